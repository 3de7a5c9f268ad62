import net from 'node:net';

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A TCP port in [min, max] that was free a moment ago on 127.0.0.1, for servers that cannot
 * take the kernel's ephemeral ports (32768 and up).
 */
export async function freePortIn(min: number, max: number): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = min + Math.floor(Math.random() * (max - min + 1));
    if (await isFree(port)) return port;
  }
  throw new Error(`no free port in ${min}-${max}`);
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
