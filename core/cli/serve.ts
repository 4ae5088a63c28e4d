import { createServer } from 'node:net';
import { z } from 'zod';
import { createWorkbench, DEFAULT_ENV_DEVICES } from '../workbench/index.js';
import { serveWorkbench } from '../workbench/endpoint.js';
import { intArg, parseFlags, UsageError } from './args.js';
import { dataDir } from '../util/data-dir.js';
import { storePathArg } from './open-db.js';
import type { Io } from './main.js';


const Flags = z.object({
  port: intArg('--port').pipe(z.number().min(0).max(65535)).default(0),
  token: z.string().optional(),
  db: z.string().optional(),
  'no-adb': z.boolean().optional(),
  'adb-port': intArg('--adb-port').optional(),
  'no-device': z.boolean().optional(),
  devices: intArg('--devices').pipe(z.number().min(1, '--devices must be at least 1').max(256)).optional(),
  host: z.string().min(1).optional(),
  json: z.boolean().optional(),
  'stop-with-stdin': z.boolean().optional(),
});

const OPTIONS = {
  port: { type: 'string' }, token: { type: 'string' }, db: { type: 'string' }, 'no-adb': { type: 'boolean' },
  'adb-port': { type: 'string' }, 'no-device': { type: 'boolean' }, devices: { type: 'string' }, host: { type: 'string' }, json: { type: 'boolean' },
  'stop-with-stdin': { type: 'boolean' },
} as const;

/**
 * `awb serve [--port P] [--token T]`: the workbench UI in a browser, and the environment server for outside agents at
 * /env. Prints the URL (with the session token) and serves until interrupted; then stops its devices and closes the
 * store. `awb env serve` is the same server led by its environment endpoint: it prints that URL first, starts no
 * default device (sessions start their own SimDroids, at most --devices), and may listen beyond loopback (--host).
 * It also serves remote rollout workers at /rollout (at most --devices at once; docs/ray.md); `--stop-with-stdin`
 * stops it when its stdin closes, so a Ray actor that starts it takes it along when it dies.
 */
export async function serveCommand(argv: string[], io: Io, signal?: AbortSignal, mode: 'ui' | 'env' = 'ui'): Promise<number> {
  const { values } = parseFlags(argv, OPTIONS, Flags);
  if (mode === 'ui' && (values.host !== undefined || values.devices !== undefined || values['stop-with-stdin'])) {
    const flag = values.host !== undefined ? '--host' : values.devices !== undefined ? '--devices' : '--stop-with-stdin';
    throw new UsageError(`${flag} is for \`awb env serve\`; \`awb serve\` listens on 127.0.0.1`);
  }
  const home = dataDir();
  // A port in use is said before the workbench opens the store and the devices (EADDRINUSE, one line by main).
  if (values.port !== 0) await portFree(values.port, values.host ?? '127.0.0.1');
  const workbench = await createWorkbench({
    dataDir: home, ...(values.db !== undefined || process.env.AWB_DB ? { dbPath: storePathArg(values.db) } : {}), log: (m) => io.err(m),
    embeddedDevice: mode === 'ui' && !values['no-device'],
    ...(values.devices !== undefined ? { envDevices: values.devices } : {}),
    ...(values['no-adb'] ? { adb: false as const } : values['adb-port'] !== undefined ? { adb: values['adb-port'] } : {}),
  });
  let server;
  try {
    server = await serveWorkbench(workbench, {
      port: values.port, dataDir: home, log: (m) => io.err(m), ...(values.token ? { token: values.token } : {}), ...(values.host ? { host: values.host } : {}),
      ...(mode === 'env' ? { rollout: { limit: values.devices ?? DEFAULT_ENV_DEVICES } } : {}),
    });
  } catch (e) {
    await workbench.close();
    throw e;
  }
  if (mode === 'env') {
    io.out(values.json ? JSON.stringify({ url: server.envUrl, port: server.port, token: server.token, ui: server.url, rollout: server.rolloutUrl }) : server.envUrl);
    if (!values.json) io.err(`Environment server for outside agents (docs/outside-agents.md); watch its sessions in the workbench UI: ${server.url}`);
  } else {
    io.out(values.json ? JSON.stringify({ url: server.url, port: server.port, env: server.envUrl }) : `Android Agent Workbench: ${server.url}`);
  }
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    signal?.addEventListener('abort', stop);
    if (values['stop-with-stdin']) {
      process.stdin.once('close', stop);
      process.stdin.resume();
    }
  });
  if (values['stop-with-stdin']) process.stdin.pause();
  await server.close();
  await workbench.close();
  return 0;
}

/** `awb env serve …`: the environment server (docs/env-protocol.md). */
export async function envCommand(argv: string[], io: Io, signal?: AbortSignal): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'serve') {
    throw new UsageError(`${sub === undefined ? 'awb env needs a subcommand' : `awb env ${sub}: unknown subcommand`}: awb env serve [--port P] [--devices N] [--host H] [--stop-with-stdin]`);
  }
  return serveCommand(rest, io, signal, 'env');
}

/** Resolves when `port` can be listened on at `host` (checked by listening and closing); rejects with Node's EADDRINUSE. */
function portFree(port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}
