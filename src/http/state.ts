import type { Services } from '../services.ts';

/** What middleware leaves on ctx.state for the routes. */
export type AppState = {
  services: Services;
  workspaceId: string;
  bodyLimit?: number;
};
