import { Migration20261123090646_initial } from '../../migrations/Migration20261123090646_initial.ts';
import { Migration20261123091542_workflows } from '../../migrations/Migration20261123091542_workflows.ts';

/**
 * Migrations in the order they apply. Listed explicitly so that the running service never
 * depends on a directory scan; add each file `npm run migration:create` writes to this list.
 */
export const migrationsList = [Migration20261123090646_initial, Migration20261123091542_workflows];
