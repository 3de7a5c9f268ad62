import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { runNode } from './run-cli.ts';

/** docs/configuration.md: a setting the process cannot honour stops it at start with a message naming it. */
describe('npm run start:worker with TEMPORAL_METRICS_PORT', () => {
  it('stops at once, saying so, when the port is taken', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as net.AddressInfo;
    try {
      const result = await runNode('src/server.ts', ['worker'], { TEMPORAL_METRICS_PORT: String(port), DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }, 30_000);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toContain(`Deskflow could not start: Failed to start prometheus metrics exporter: Address already in use`);
      expect(result.stderr).toContain(`TEMPORAL_METRICS_PORT 127.0.0.1:${port}`);
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });

  it('is refused when it is not a port', async () => {
    const result = await runNode('src/server.ts', ['worker'], { TEMPORAL_METRICS_PORT: 'ninety' }, 30_000);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('TEMPORAL_METRICS_PORT');
  });
});
