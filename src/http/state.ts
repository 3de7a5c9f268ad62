import type { Services } from '../services.ts';

/** What middleware leaves on ctx.state for the routes. */
export type AppState = {
  /** The request's id, answered in X-Request-Id and written in its log lines. */
  requestId: string;
  services: Services;
  workspaceId: string;
  bodyLimit?: number;
};
