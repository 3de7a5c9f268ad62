import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Registers work to do once the caller's transaction has committed, on an EntityManager
 * outside it (see Services.inTransaction): starting a run or a mail delivery must never happen
 * for a write that rolled back.
 */
export type AfterCommit = (task: (em: EntityManager) => Promise<void>) => void;
