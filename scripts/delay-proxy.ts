/**
 * A TCP proxy on loopback that delays every byte by half of an added round trip in each direction:
 * the local demo's honest stand-in for a region's distance to the targets. Probes measure it as
 * network time, because it is network time.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface DelayProxy {
  url: string;
  addedRttMs: number;
  close(): Promise<void>;
}

export async function startDelayProxy(upstream: URL, addedRttMs: number, port = 0): Promise<DelayProxy> {
  const oneWayMs = addedRttMs / 2;
  const sockets = new Set<Socket>();
  const pipeDelayed = (from: Socket, to: Socket) => {
    from.on('data', (chunk) => setTimeout(() => to.writable && to.write(chunk), oneWayMs));
    from.on('end', () => setTimeout(() => to.end(), oneWayMs));
    from.on('error', () => to.destroy());
    from.on('close', () => setTimeout(() => to.destroy(), oneWayMs));
  };
  const server: Server = createServer((client) => {
    const target = connect(Number(upstream.port), upstream.hostname);
    for (const s of [client, target]) {
      s.setNoDelay(true);
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    pipeDelayed(client, target);
    pipeDelayed(target, client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    addedRttMs,
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
