import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { notFound, unavailable } from '../errors.ts';
import { operation, undocumented } from '../http/operation.ts';
import type { AppState } from '../http/state.ts';

/** Where `npm ci` (the prepare script) or `npm run build:console` leaves the built console. */
export const consoleDistDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'console', 'dist');

export type ConsoleOptions = {
  /** A Temporal Web UI to link runs to (TEMPORAL_UI_URL, or the dev server's). */
  temporalUiUrl?: string;
  temporalNamespace?: string;
  /** The built console (default: console/dist). */
  distDir?: string;
};

/**
 * The console (GET /console): a single page built from console/ at install, a client of the
 * public API like any other. The page and its files need no key; the page asks for one and
 * keeps it in the tab's sessionStorage. Its files have content hashes in their names, so they
 * are cached for a year; the page itself is revalidated, so a new build is picked up at once.
 */
export function consoleRoutes(opts: ConsoleOptions = {}): Router<AppState> {
  const router = new Router<AppState>();
  const build = new ConsoleBuild(opts.distDir ?? consoleDistDir);

  const page = operation({
    operationId: 'console',
    summary: 'The console: draw, try and watch workflows in the browser',
    description: 'An HTML page that asks for an API key and then uses this API with it. Served by Deskflow itself: it loads nothing from elsewhere.',
    tag: 'Service',
    security: 'none',
    responses: { 200: { description: 'An HTML page.', schema: z.string(), contentType: 'text/html' } },
    errors: ['unavailable'],
  });
  router.get('/console', page, (ctx) => {
    secure(ctx);
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = withSettings(build.page(), opts);
  });

  router.get('/console/assets/:file', undocumented('the files of the console page'), (ctx) => {
    const file = build.asset(ctx.params.file);
    if (!file) throw notFound('File');
    secure(ctx);
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.type = contentType(ctx.params.file);
    ctx.body = file;
  });

  return router;
}

/**
 * Only Deskflow's own scripts, styles and API; no inline script, no plugin, no framing, no form
 * posted elsewhere. Trusted Types make any assignment of a string to an HTML sink (innerHTML
 * and the like) throw, so user-written text can only ever reach the page as text.
 */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

function secure(ctx: Context): void {
  ctx.set('Content-Security-Policy', CONSOLE_CONTENT_SECURITY_POLICY);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
}

/** Settings the page reads from meta tags (no inline script): where the Temporal Web UI is. */
function withSettings(html: string, opts: ConsoleOptions): string {
  const meta = [
    opts.temporalUiUrl ? `<meta name="deskflow-temporal-ui" content="${escapeAttribute(opts.temporalUiUrl)}">` : '',
    `<meta name="deskflow-temporal-namespace" content="${escapeAttribute(opts.temporalNamespace ?? 'default')}">`,
  ].join('');
  return html.replace('</head>', `${meta}</head>`);
}

function escapeAttribute(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

function contentType(file: string): string {
  return TYPES[path.extname(file)] ?? 'application/octet-stream';
}

/** The built files, read once when first asked for. A missing build is a 503 that says how to make it. */
class ConsoleBuild {
  readonly #dir: string;
  #index: string | undefined;
  #assets: Map<string, Buffer> | undefined;

  constructor(dir: string) {
    this.#dir = dir;
  }

  page(): string {
    if (this.#index === undefined) {
      const file = path.join(this.#dir, 'index.html');
      if (!existsSync(file)) {
        throw unavailable('The console is not built: run `npm run build:console` (`npm ci` builds it too) and reload.');
      }
      this.#index = readFileSync(file, 'utf8');
    }
    return this.#index;
  }

  asset(name: string): Buffer | undefined {
    if (this.#assets === undefined) {
      const dir = path.join(this.#dir, 'assets');
      if (!existsSync(dir)) return undefined;
      // Only the files of the build are served: a name is looked up, never joined to a path.
      this.#assets = new Map(readdirSync(dir).map((f) => [f, readFileSync(path.join(dir, f))]));
    }
    return this.#assets.get(name);
  }
}
