import type { MikroORM } from '@mikro-orm/postgresql';
import type { WorkflowEngine } from '../../src/executions/engine.ts';
import type { Logger } from '../../src/logger.ts';
import { createServices } from '../../src/services.ts';
import type { HttpRequestOptions } from './http-request.ts';

export type ActivityDeps = {
  orm: MikroORM;
  logger: Logger;
  http: HttpRequestOptions;
  /** Starts the runs of scheduled ticks. */
  engine?: WorkflowEngine;
};

/** The services on a unit of work of the activity's own. */
export const servicesOf = (deps: ActivityDeps) => createServices(deps.orm.em.fork(), { logger: deps.logger, engine: deps.engine });
