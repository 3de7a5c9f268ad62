import Koa from 'koa';
import Router from '@koa/router';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';
import { authenticate } from './http/auth.ts';
import { errorHandler } from './http/errors.ts';
import { RateLimiter } from './http/rate-limit.ts';
import type { AppState } from './http/state.ts';
import { healthRoutes, type ReadinessCheck } from './http/health.ts';
import { metricsRoutes } from './http/metrics.ts';
import { createServices } from './services.ts';
import { ticketRoutes } from './tickets/routes.ts';
import { messageRoutes } from './messages/routes.ts';
import { workflowRoutes } from './workflows/routes.ts';
import { webhookRoutes } from './workflows/webhook-routes.ts';
import type { WorkflowEngine } from './executions/run-input.ts';
import type { ScheduleSync } from './workflows/schedules.ts';

export type AppDeps = {
  orm: MikroORM;
  config: Pick<Config, 'rateLimit'> & Partial<Pick<Config, 'metricsToken'>>;
  logger: Logger;
  /** Starts and cancels runs; without one, executions stay pending until a relay starts them. */
  engine?: WorkflowEngine;
  /** Keeps Temporal Schedules of scheduled workflows in step. */
  schedules?: ScheduleSync;
  /** Extra readiness checks beyond the database (the workflow engine). */
  readiness?: ReadinessCheck[];
};

/** Builds the HTTP application; never listens (server.ts and the tests do). */
export function createApp(deps: AppDeps): Koa<AppState> {
  const app = new Koa<AppState>();
  app.proxy = true;
  const limiter = new RateLimiter(deps.config.rateLimit);

  app.use(errorHandler(deps.logger));
  app.use(async (ctx, next) => {
    ctx.state.services = createServices(deps.orm.em.fork(), { engine: deps.engine, schedules: deps.schedules, logger: deps.logger });
    await next();
  });

  const health = healthRoutes(deps.orm, deps.readiness ?? []);
  app.use(health.routes());
  if (deps.config.metricsToken) app.use(metricsRoutes(deps.orm, deps.config.metricsToken).routes());

  // Signed instead of keyed: mounted before the keyed workflows routes.
  app.use(webhookRoutes().routes());

  const requireKey = authenticate((ctx) => ctx.state.services.workspaces, limiter);
  const tickets = new Router<AppState>({ prefix: '/api/v1/tickets' });
  tickets.use(requireKey);
  tickets.use(ticketRoutes().routes());
  tickets.use(messageRoutes().routes());
  app.use(tickets.routes());

  const workflows = new Router<AppState>({ prefix: '/api/workflows' });
  workflows.use(requireKey);
  workflows.use(workflowRoutes().routes());
  app.use(workflows.routes());

  return app;
}
