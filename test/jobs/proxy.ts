import net, { type AddressInfo, type Socket } from 'node:net';

/**
 * A TCP proxy for tests that cuts a connection after N bytes: `cut({ direction, afterBytes, match })`
 * arms one cut, applied to the next connection whose first request bytes contain `match` (e.g.
 * "PUT /v1/uploads"). Both sockets are destroyed the moment the byte budget is spent, as a
 * dropped network would; later connections pass untouched.
 */
export interface CutPlan {
  /** up: client → server bytes (an upload body); down: server → client (a stream, a download). */
  direction: 'up' | 'down';
  afterBytes: number;
  match: string;
}

export interface CuttingProxy {
  url: string;
  cut(plan: CutPlan): void;
  /** Cuts performed so far. */
  readonly cuts: number;
  close(): Promise<void>;
}

export async function startCuttingProxy(targetPort: number): Promise<CuttingProxy> {
  const plans: CutPlan[] = [];
  let cuts = 0;
  const sockets = new Set<Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    const upstream = net.connect(targetPort, '127.0.0.1');
    sockets.add(upstream);
    let plan: CutPlan | null = null;
    let decided = false;
    let budget = 0;
    let killed = false;
    const kill = () => {
      if (killed) return;
      killed = true;
      cuts++;
      client.destroy();
      upstream.destroy();
    };
    // Returns how much of `chunk` may pass before the cut (all of it when no cut applies).
    const allow = (dir: CutPlan['direction'], chunk: Buffer): number => {
      if (!plan || plan.direction !== dir) return chunk.length;
      const n = Math.min(chunk.length, budget);
      budget -= n;
      return n;
    };
    client.on('data', (chunk: Buffer) => {
      if (!decided) {
        decided = true;
        const head = chunk.toString('latin1');
        const i = plans.findIndex((p) => head.includes(p.match));
        if (i >= 0) {
          plan = plans.splice(i, 1)[0]!;
          budget = plan.afterBytes;
        }
      }
      const n = allow('up', chunk);
      if (n > 0) upstream.write(chunk.subarray(0, n));
      if (n < chunk.length) setImmediate(kill);
    });
    upstream.on('data', (chunk: Buffer) => {
      const n = allow('down', chunk);
      if (n > 0) client.write(chunk.subarray(0, n));
      if (n < chunk.length) setImmediate(kill);
    });
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => { sockets.delete(client); upstream.destroy(); });
    upstream.on('close', () => { sockets.delete(upstream); client.destroy(); });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    cut: (p) => plans.push(p),
    get cuts() { return cuts; },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
