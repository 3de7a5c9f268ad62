import Koa from 'koa';
import Router from '@koa/router';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';
import { authenticate } from './http/auth.ts';
import { errorHandler } from './http/errors.ts';
import { RateLimiter } from './http/rate-limit.ts';
import type { AppState } from './http/state.ts';
import { lookupKeys, type KeyAuthenticator } from './workspaces/key-cache.ts';
import { KeyUsage, type KeyUsageRecorder } from './workspaces/key-usage.ts';
import { databaseCheck, healthRoutes, passes, type ReadinessCheck } from './http/health.ts';
import { metricsRoutes, processMetrics } from './observability/metrics.ts';
import { requestLog } from './observability/request-log.ts';
import { openApiDocument, type OpenApiDocument } from './openapi/document.ts';
import { openApiRoutes } from './openapi/routes.ts';
import { createServices } from './services.ts';
import { ticketRoutes } from './tickets/routes.ts';
import { messageRoutes } from './messages/routes.ts';
import { workflowRoutes } from './workflows/routes.ts';
import { executionRoutes, ticketExecutionRoutes } from './executions/routes.ts';
import { triggerRoutes } from './triggers/routes.ts';
import { dryRunRoutes } from './dry-runs/routes.ts';
import { webhookRoutes } from './triggers/webhook-routes.ts';
import { replyRoutes } from './mail/reply-routes.ts';
import type { MailDeliveryStarter } from './mail/outbound.ts';
import { calendarRoutes } from './calendars/routes.ts';
import { eventRoutes } from './feed/routes.ts';
import type { EventFeed } from './feed/hub.ts';
import { noteRoutes } from './notes/routes.ts';
import { approvalRoutes } from './approvals/routes.ts';
import { memberRoutes } from './workspaces/routes.ts';
import { slaPolicyRoutes, slaQueueRoutes, ticketSlaRoutes } from './sla/routes.ts';
import { knowledgeRoutes } from './knowledge/routes.ts';
import { aiSettingsRoutes } from './ai/routes.ts';
import { aiTicketRoutes } from './ai/ticket-routes.ts';
import type { SecretBox } from './mail/secrets.ts';
import { consoleRoutes, type ConsoleOptions } from './console/routes.ts';
import type { WorkflowEngine } from './executions/engine.ts';
import type { ScheduleSync } from './workflows/schedule-spec.ts';

export type AppDeps = {
  orm: MikroORM;
  config: Pick<Config, 'rateLimit'> & Partial<Pick<Config, 'metricsToken'>>;
  logger: Logger;
  /** Starts and cancels runs; without one, executions stay pending until a relay starts them. */
  engine?: WorkflowEngine;
  /** Keeps Temporal Schedules of scheduled workflows in step. */
  schedules?: ScheduleSync;
  /** How API keys are resolved (default: a query per request). */
  keys?: KeyAuthenticator;
  /** Where each key's last use is noted (default: the api_key_usage table, at most once a minute per key). */
  keyUsage?: KeyUsageRecorder;
  /** Extra readiness checks beyond the database (the workflow engine). */
  readiness?: ReadinessCheck[];
  /** True once the process shuts down: /readyz answers 503 from then on. */
  stopping?: () => boolean;
  /** Starts the delivery workflow of an agent's reply right after its commit (else the mail worker does, within seconds). */
  mailDelivery?: MailDeliveryStarter;
  /** The Temporal SDK's metrics exporter of a worker in this process, added to GET /metrics. */
  temporalMetricsUrl?: string;
  /** Settings of the console page (GET /console): where the Temporal Web UI is. */
  console?: ConsoleOptions;
  /** The event feed of this process (GET /api/v1/events); without one that route answers 503. */
  feed?: EventFeed;
  /** Seals the AI owner's model key (the key of mailbox credentials). */
  secrets?: () => SecretBox;
  /** DESKFLOW_HTTP_ALLOW: the AI owner's model may be on these private hosts or CIDRs. */
  httpAllow?: string[];
};

/** Builds the HTTP application; never listens (server.ts and the tests do). */
export function createApp(deps: AppDeps): Koa<AppState> {
  const app = new Koa<AppState>();
  app.proxy = true;
  const limiter = new RateLimiter(deps.config.rateLimit);

  const database = databaseCheck(deps.orm);
  app.use(requestLog(deps.logger, processMetrics()));
  app.use(errorHandler(deps.logger, { databaseAnswers: () => passes(database, 2_000) }));
  if (deps.stopping) {
    const stopping = deps.stopping;
    // While the process drains, clients on a kept-alive connection are told to open the next one elsewhere.
    app.use(async (ctx, next) => {
      if (stopping()) ctx.set('Connection', 'close');
      await next();
    });
  }
  app.use(async (ctx, next) => {
    ctx.state.services = createServices(deps.orm.em.fork(), { engine: deps.engine, schedules: deps.schedules, logger: deps.logger, mailDelivery: deps.mailDelivery, secrets: deps.secrets, httpAllow: deps.httpAllow });
    await next();
  });

  const health = healthRoutes(deps.orm, deps.readiness ?? [], deps.stopping);
  app.use(health.routes());
  if (deps.config.metricsToken) {
    app.use(metricsRoutes(deps.orm, { token: deps.config.metricsToken, logger: deps.logger, temporalMetricsUrl: deps.temporalMetricsUrl }).routes());
  }
  // Generated from the routers mounted here, once all are (src/http/operation.ts says how a route describes itself).
  let document: OpenApiDocument | undefined;
  app.use(openApiRoutes(() => (document ??= openApiDocument(app))).routes());

  // The page needs no key: it asks for one, then calls the keyed routes below like any client.
  app.use(consoleRoutes(deps.console).routes());

  // Signed instead of keyed: mounted before the keyed workflows routes.
  app.use(webhookRoutes().routes());

  // The keyed API: every route under these prefixes answers only with a valid API key (the key's
  // workspace, its rate limit and usage: src/http/auth.ts).
  const keys = deps.keys ?? lookupKeys;
  const requireKey = authenticate(keys, limiter, deps.keyUsage ?? new KeyUsage(deps.orm, deps.logger));
  const keyed: Array<{ prefix: string; routes: Router<AppState>[] }> = [
    { prefix: '/api/v1/tickets', routes: [ticketRoutes(), messageRoutes(), replyRoutes(), noteRoutes(), ticketExecutionRoutes(), ticketSlaRoutes(), aiTicketRoutes()] },
    { prefix: '/api/v1/events', routes: [eventRoutes({ feed: deps.feed, keys, logger: deps.logger })] },
    { prefix: '/api/workflows', routes: [workflowRoutes(), triggerRoutes(), dryRunRoutes(), executionRoutes()] },
    { prefix: '/api/calendars', routes: [calendarRoutes()] },
    { prefix: '/api/approvals', routes: [approvalRoutes()] },
    { prefix: '/api/members', routes: [memberRoutes()] },
    { prefix: '/api/sla-policies', routes: [slaPolicyRoutes()] },
    { prefix: '/api/sla', routes: [slaQueueRoutes()] },
    { prefix: '/api/knowledge', routes: [knowledgeRoutes()] },
    { prefix: '/api/ai', routes: [aiSettingsRoutes()] },
  ];
  for (const { prefix, routes } of keyed) {
    const mounted = new Router<AppState>({ prefix });
    mounted.use(requireKey);
    for (const router of routes) mounted.use(router.routes());
    app.use(mounted.routes());
  }

  return app;
}
