import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { createWorkbench } from '../workbench/index.js';
import { serve } from '../api/ws/server.js';
import { intArg, parseFlags } from './args.js';
import { dataDir, dbPath } from '../util/data-dir.js';
import type { Io } from './main.js';

/** The built renderer, next to the sources (vite builds renderer/ into dist/renderer). */
export const RENDERER_DIR = fileURLToPath(new URL('../../dist/renderer', import.meta.url));

const Flags = z.object({
  port: intArg('--port').pipe(z.number().min(0).max(65535)).default(0),
  token: z.string().optional(),
  db: z.string().optional(),
  'no-adb': z.boolean().optional(),
  'adb-port': intArg('--adb-port').optional(),
  'no-device': z.boolean().optional(),
  json: z.boolean().optional(),
});

/**
 * `awb serve [--port P] [--token T]`: the workbench UI in a browser. Prints the URL (with the
 * session token) and serves until interrupted; then stops its devices and closes the store.
 */
export async function serveCommand(argv: string[], io: Io, signal?: AbortSignal): Promise<number> {
  const { values } = parseFlags(argv, {
    port: { type: 'string' }, token: { type: 'string' }, db: { type: 'string' }, 'no-adb': { type: 'boolean' },
    'adb-port': { type: 'string' }, 'no-device': { type: 'boolean' }, json: { type: 'boolean' },
  }, Flags);
  const workbench = await createWorkbench({
    dataDir: dataDir(), ...(values.db || process.env.AWB_DB ? { dbPath: dbPath(values.db) } : {}), log: (m) => io.err(m), embeddedDevice: !values['no-device'],
    ...(values['no-adb'] ? { adb: false as const } : values['adb-port'] !== undefined ? { adb: values['adb-port'] } : {}),
  });
  let server;
  try {
    server = await serve({ api: workbench, port: values.port, staticDir: RENDERER_DIR, log: (m) => io.err(m), ...(values.token ? { token: values.token } : {}) });
  } catch (e) {
    await workbench.close();
    throw e;
  }
  io.out(values.json ? JSON.stringify({ url: server.url, port: server.port }) : `Android Agent Workbench: ${server.url}`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    signal?.addEventListener('abort', stop);
  });
  await server.close();
  await workbench.close();
  return 0;
}
