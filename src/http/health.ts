import Router from '@koa/router';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { AppState } from './state.ts';

export type ReadinessCheck = { name: string; check: () => Promise<void> };

const CHECK_TIMEOUT_MS = 3_000;

/** /healthz: the process is up. /readyz: the database (and any other dependency) answers. */
export function healthRoutes(orm: MikroORM, extra: ReadinessCheck[]): Router<AppState> {
  const router = new Router<AppState>();
  const checks: ReadinessCheck[] = [
    { name: 'database', check: async () => void (await orm.em.fork().execute('select 1')) },
    ...extra,
  ];

  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });

  router.get('/readyz', async (ctx) => {
    const results = await Promise.all(checks.map(async ({ name, check }) => [name, await withTimeout(check())] as const));
    const failed = results.filter(([, r]) => r !== 'ok');
    if (failed.length === 0) {
      ctx.body = { status: 'ready', checks: Object.fromEntries(results) };
      return;
    }
    ctx.status = 503;
    ctx.body = {
      error: {
        code: 'unavailable',
        message: `Not ready: ${failed.map(([name]) => name).join(', ')} unavailable.`,
        details: failed.map(([name, message]) => ({ path: name, message })),
      },
    };
  });

  return router;
}

async function withTimeout(p: Promise<void>): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([p, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS)))]);
    return 'ok';
  } catch (err) {
    return err instanceof Error ? err.message.split('\n')[0] : 'failed';
  } finally {
    clearTimeout(timer);
  }
}
