// GET /console and its files (docs/contract.md §7, "The console"): served without a key, with a
// strict Content-Security-Policy, no inline script, hashed files cached for a year.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { client, startTestApp, useTestApp } from '../helpers/app.ts';
import { expectError } from '../helpers/expect.ts';

const app = useTestApp({ console: { temporalUiUrl: 'https://temporal.example.test/ui"><script>', temporalNamespace: 'deskflow' } });
const anonymous = () => client(app.baseUrl);

const page = async () => {
  const res = await fetch(`${app.baseUrl}/console`);
  return { res, html: await res.text() };
};

describe('GET /console', () => {
  it('serves the page without a key, revalidated, under a strict policy', async () => {
    const { res, html } = await page();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const csp = res.headers.get('content-security-policy')!;
    for (const rule of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "require-trusted-types-for 'script'"]) {
      expect(csp).toContain(rule);
    }
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(html).toContain('<div id="root">');
  });

  it('has no inline script: every script is a file of its own', async () => {
    const { html } = await page();
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/src="\/console\/assets\//);
      expect(body.trim()).toBe('');
    }
    expect(html).not.toMatch(/\son[a-z]+=/i);
  });

  it('serves its hashed files for a year, with their types, and nothing else', async () => {
    const { html } = await page();
    const files = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(files.some((f) => f.endsWith('.js'))).toBe(true);
    expect(files.some((f) => f.endsWith('.css'))).toBe(true);
    for (const file of files) {
      expect(file).toMatch(/-[\w-]{8}\.(js|css)$/);
      const res = await fetch(app.baseUrl + file);
      expect(res.status, file).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('content-type')).toBe(file.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8');
    }
    expectError(await anonymous().get('/console/assets/nothing-here.js'), 404, 'not_found');
    expectError(await anonymous().get('/console/assets/..%2F..%2Fpackage.json'), 404, 'not_found');
    expectError(await anonymous().get('/console/assets/..%2Findex.html'), 404, 'not_found');
  });

  it('tells the page where the Temporal Web UI is, as an escaped attribute', async () => {
    const { html } = await page();
    expect(html).toContain('<meta name="deskflow-temporal-ui" content="https://temporal.example.test/ui&quot;&gt;&lt;script&gt;">');
    expect(html).toContain('<meta name="deskflow-temporal-namespace" content="deskflow">');
  });

  it('names no Web UI when none is configured', async () => {
    const plain = await startTestApp();
    try {
      const html = await (await fetch(`${plain.baseUrl}/console`)).text();
      expect(html).not.toContain('deskflow-temporal-ui');
    } finally {
      await plain.close();
    }
  });

  it('answers 503 saying how to build it when the console was not built', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'deskflow-no-console-'));
    const bare = await startTestApp({ console: { distDir: empty } });
    try {
      const res = await client(bare.baseUrl).get('/console');
      expectError(res, 503, 'unavailable');
      expect(res.body.error.message).toContain('npm run build:console');
      expectError(await client(bare.baseUrl).get('/console/assets/index.js'), 404, 'not_found');
    } finally {
      await bare.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
