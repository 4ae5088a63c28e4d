import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, type RunningServer } from '../api/ws/server.js';
import { RolloutHost } from '../rollout/remote/serve.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import type { Workbench } from './index.js';

/** The built renderer, next to the sources (vite builds renderer/ into dist/renderer). */
export const RENDERER_DIR = fileURLToPath(new URL('../../dist/renderer', import.meta.url));

/**
 * Where a running workbench says how to reach it: `<data folder>/env-server.json` holds the environment endpoint's URL
 * (with its token: the file is readable by its owner only), the UI's URL and the process, so an agent on the same
 * machine can join the workbench a person is watching (awb_env's `server="workbench"`, docs/outside-agents.md).
 * The last server started wins; a server removes the file on close if it is still its own.
 */
export const ENDPOINT_FILE = 'env-server.json';

export interface EndpointRecord {
  url: string;
  ui: string;
  pid: number;
  startedAt: number;
}

export interface WorkbenchServer extends RunningServer {
  /** The endpoint file written, or null when it could not be (the server runs all the same). */
  endpointFile: string | null;
}

/**
 * Serves a workbench over HTTP: the UI, its API at /api and the environment server at /env (`awb serve`, `awb env
 * serve`, the desktop app's host), and records the endpoint in the data folder.
 */
export async function serveWorkbench(workbench: Workbench, opts: {
  port: number; dataDir: string; log: (m: string) => void; token?: string; host?: string;
  /** Also serve remote rollout workers at /rollout, at most `limit` at once (`awb env serve`, docs/ray.md). */
  rollout?: { limit: number };
}): Promise<WorkbenchServer> {
  const rollout = opts.rollout ? new RolloutHost({ limit: opts.rollout.limit, log: opts.log }) : null;
  const server = await serve({
    api: workbench, env: workbench.env, port: opts.port, staticDir: RENDERER_DIR, log: opts.log,
    ...(opts.token ? { token: opts.token } : {}), ...(opts.host ? { host: opts.host } : {}), ...(rollout ? { rollout } : {}),
  });
  const file = join(opts.dataDir, ENDPOINT_FILE);
  const record: EndpointRecord = { url: server.envUrl, ui: server.url, pid: process.pid, startedAt: Date.now() };
  let written: string | null = file;
  try {
    writeFileAtomic(file, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  } catch (e) {
    written = null;
    opts.log(`could not record the endpoint in ${file}: ${(e as Error).message}`);
  }
  return {
    ...server,
    endpointFile: written,
    close: async () => {
      if (written) removeIfOurs(written);
      await server.close();
      await rollout?.close();
    },
  };
}

function removeIfOurs(file: string): void {
  try {
    if (!existsSync(file)) return;
    const r = JSON.parse(readFileSync(file, 'utf8')) as Partial<EndpointRecord>;
    if (r.pid === process.pid) rmSync(file, { force: true });
  } catch {
    // Another server's file, or one that is half there: it is theirs to remove.
  }
}
