import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Router from '@koa/router';
import { z } from 'zod';
import { notFound } from '../errors.ts';
import { operation, undocumented } from '../http/operation.ts';
import type { AppState } from '../http/state.ts';
import type { OpenApiDocument } from './document.ts';

/**
 * GET /openapi.json and the API reference page GET /docs (Swagger UI from the swagger-ui-dist
 * package, served from here: no CDN). Neither needs a key: the document describes the service,
 * nothing of a workspace.
 */
export function openApiRoutes(document: () => OpenApiDocument): Router<AppState> {
  const router = new Router<AppState>();

  const spec = operation({
    operationId: 'openApiDocument',
    summary: 'This OpenAPI 3.1 document',
    tag: 'Service',
    security: 'none',
    responses: { 200: { description: 'The document.', schema: z.looseObject({ openapi: z.string() }) } },
  });
  router.get('/openapi.json', spec, (ctx) => {
    ctx.body = document();
  });

  const page = operation({
    operationId: 'apiReference',
    summary: 'The API reference page, with "try it"',
    tag: 'Service',
    security: 'none',
    responses: { 200: { description: 'An HTML page.', schema: z.string(), contentType: 'text/html' } },
  });
  router.get('/docs', page, (ctx) => {
    ctx.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = PAGE;
  });

  router.get('/docs/:file', undocumented('the files of the docs page'), (ctx) => {
    const asset = ASSETS.get(ctx.params.file);
    if (!asset) throw notFound('File');
    ctx.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.type = asset.type;
    ctx.body = asset.read();
  });

  return router;
}

/**
 * The page may load only what Deskflow serves and talk only to Deskflow: even a default of the
 * renderer that would call out (Swagger UI's validator badge, turned off below) is blocked by
 * the browser. Swagger UI sets inline styles, hence 'unsafe-inline' for styles only.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Deskflow API reference</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

/**
 * Swagger UI's settings. Its defaults that reach out are turned off: `validatorUrl` (a badge
 * that sends the document's address to validator.swagger.io) and `queryConfigEnabled` (a
 * `?url=` in the page address loading another document). "Try it out" is on for every
 * operation; the key given under "Authorize" is kept in the page only, never stored.
 */
const INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
  deepLinking: true,
  validatorUrl: null,
  queryConfigEnabled: false,
  tryItOutEnabled: true,
  persistAuthorization: false,
  defaultModelsExpandDepth: 0,
});
`;

const swaggerUiDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** Read once, when first asked for (the bundle is over a megabyte). */
function fromPackage(file: string): () => Buffer {
  let content: Buffer | undefined;
  return () => (content ??= readFileSync(join(swaggerUiDir, file)));
}

const ASSETS = new Map<string, { type: string; read: () => Buffer | string }>([
  ['swagger-ui.css', { type: 'text/css; charset=utf-8', read: fromPackage('swagger-ui.css') }],
  ['swagger-ui-bundle.js', { type: 'text/javascript; charset=utf-8', read: fromPackage('swagger-ui-bundle.js') }],
  ['favicon-32x32.png', { type: 'image/png', read: fromPackage('favicon-32x32.png') }],
  ['init.js', { type: 'text/javascript; charset=utf-8', read: () => INIT }],
]);
