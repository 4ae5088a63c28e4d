import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { dataDir, dbPath } from '../util/data-dir.js';
import { connectionChannel, parseToHost, type FromHost, type ToHost } from '../api/ipc/channel.js';
import { serveApi } from '../api/serve-api.js';
import { RelayedSecretStore, type SecretsToHost } from '../api/ipc/secrets-relay.js';
import { createWorkbench, type Workbench, type WorkbenchOptions } from './index.js';
import { serveWorkbench } from './endpoint.js';

/**
 * The API host: the workbench (SimDroid rendering, rollouts, SQLite) in a process of its own, so
 * none of that work runs on Electron's main thread. It serves one bridge connection per renderer
 * window over its parent channel (envelopes in core/api/ipc/channel.ts) and exits when the parent goes away.
 *
 * Started as `child_process.fork('core/workbench/host.ts', { execArgv: ['--import', 'tsx'],
 * serialization: 'advanced' })` under Node, or through core/workbench/host-entry.mjs by Electron's
 * `utilityProcess.fork` (whose child talks through `process.parentPort`); detected at run time.
 */
export interface ParentLink {
  kind: 'node' | 'electron';
  /** `sent` runs once the message is handed to the parent (to exit only after a last word). */
  post(m: FromHost, sent?: () => void): void;
  onMessage(listener: (raw: unknown) => void): void;
  /** Called when the parent goes away (Electron ends utility processes itself when the app quits). */
  onDisconnect(listener: () => void): void;
}

interface ElectronParentPort {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (e: { data: unknown }) => void): unknown;
}

/** The channel to the parent, or null when this process was not started by one. */
export function parentLink(proc: NodeJS.Process = process): ParentLink | null {
  const electronPort = (proc as { parentPort?: ElectronParentPort }).parentPort;
  if (electronPort) {
    return {
      kind: 'electron',
      post: (m, sent) => {
        electronPort.postMessage(m);
        if (sent) setImmediate(sent);
      },
      onMessage: (l) => void electronPort.on('message', (e) => l(e.data)),
      onDisconnect: () => {},
    };
  }
  const send = proc.send?.bind(proc);
  if (send && proc.connected) {
    return {
      kind: 'node',
      // With a callback, a send after the parent left is dropped instead of throwing.
      post: (m, sent) => {
        if (proc.connected) send(m, undefined, undefined, () => sent?.());
        else sent?.();
      },
      onMessage: (l) => void proc.on('message', l),
      onDisconnect: (l) => void proc.once('disconnect', l),
    };
  }
  return null;
}

export interface HostOptions {
  link: ParentLink;
  start: () => Promise<Workbench>;
  log: (message: string) => void;
  exit: (code: number) => void;
  /** A close that hangs longer than this still exits (no orphan host). */
  closeTimeoutMs?: number;
  /** The app's endpoint keys from the main process (any time, also while the workbench starts). */
  onSecrets?: (m: SecretsToHost) => void;
}

/** Serves the workbench to the parent until it disconnects or asks for shutdown. */
export function runHost(opts: HostOptions): { stopped: Promise<number>; stop(reason?: string): void } {
  const { link, log } = opts;
  const closeTimeoutMs = opts.closeTimeoutMs ?? 10_000;
  const conns = new Map<number, ReturnType<typeof connectionChannel>>();
  const queued: Array<Exclude<ToHost, SecretsToHost>> = [];
  let workbench: Workbench | null = null;
  let stopping = false;
  let finished = false;
  let resolveStopped!: (code: number) => void;
  const stopped = new Promise<number>((r) => (resolveStopped = r));

  const finish = (code: number) => {
    if (finished) return;
    finished = true;
    resolveStopped(code);
    opts.exit(code);
  };
  const closeAndFinish = async (wb: Workbench) => {
    try {
      await wb.close();
    } catch (e) {
      log(`closing the workbench: ${(e as Error).stack ?? String(e)}`);
    }
    finish(0);
  };
  const stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    log(`${reason}: closing the workbench`);
    setTimeout(() => {
      log(`the workbench did not close within ${closeTimeoutMs} ms; exiting anyway`);
      finish(0);
    }, closeTimeoutMs).unref?.();
    for (const c of conns.values()) c.close();
    conns.clear();
    // A workbench still starting is closed by the start task once it is up.
    if (workbench) void closeAndFinish(workbench);
  };

  const handle = (m: Exclude<ToHost, SecretsToHost>, wb: Workbench) => {
    if ('shutdown' in m) return stop('shutdown requested');
    if ('close' in m) {
      conns.get(m.conn)?.close();
      conns.delete(m.conn);
      return;
    }
    let c = conns.get(m.conn);
    if (!c) {
      c = connectionChannel(m.conn, (reply) => link.post(reply));
      conns.set(m.conn, c);
      serveApi(wb, c, { onError: (member, e) => log(`${member}: ${(e as Error).stack ?? String(e)}`) });
    }
    c.deliver(m.msg);
  };

  link.onMessage((raw) => {
    if (stopping) return;
    const m = parseToHost(raw);
    if (!m) return log('dropped a message that is not a host envelope');
    if ('shutdown' in m) return stop('shutdown requested');
    if ('secrets' in m || 'secretAck' in m) {
      if (opts.onSecrets) opts.onSecrets(m);
      else log('dropped endpoint keys: this host keeps them in the data folder');
      return;
    }
    if (workbench) handle(m, workbench);
    else queued.push(m); // served once the workbench is up
  });
  link.onDisconnect(() => stop('the parent went away'));

  void (async () => {
    let wb: Workbench;
    try {
      wb = await opts.start();
    } catch (e) {
      const message = `${(e as Error).name ?? 'Error'}: ${(e as Error).message ?? String(e)}`;
      log(`the workbench could not start: ${(e as Error).stack ?? message}`);
      stopping = true;
      // Exit once the parent has the reason (or soon anyway).
      setTimeout(() => finish(1), 2_000).unref?.();
      link.post({ fatal: message }, () => finish(1));
      return;
    }
    workbench = wb;
    if (stopping) return void closeAndFinish(wb); // the parent left while it was starting
    link.post({ ready: true });
    for (const m of queued.splice(0)) handle(m, wb);
  })();
  return { stopped, stop: (reason = 'asked to stop') => stop(reason) };
}

export class HostConfigError extends Error {
  override name = 'HostConfigError';
}

/** The workbench's options from the environment: the same data folder as the `awb` CLI. */
export function optionsFromEnv(env: NodeJS.ProcessEnv, log: (m: string) => void): WorkbenchOptions {
  // The store follows the settings' data folder unless $AWB_DB fixes it (as `awb serve` does).
  const opts: WorkbenchOptions = { dataDir: dataDir(), ...(env.AWB_DB ? { dbPath: dbPath(undefined) } : {}), log, embeddedDevice: env.AWB_NO_DEVICE !== '1' };
  if (env.AWB_NO_ADB === '1') opts.adb = false;
  else if (env.AWB_ADB_PORT) {
    const port = Number(env.AWB_ADB_PORT);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new HostConfigError(`AWB_ADB_PORT must be a port number (1-65535), got ${JSON.stringify(env.AWB_ADB_PORT)}`);
    opts.adb = port;
  }
  return opts;
}

/**
 * The desktop app serves the environment endpoint too (docs/outside-agents.md), on loopback: port AWB_ENV_PORT
 * (default: any free one), recorded in `<AWB_HOME>/env-server.json` so an agent can join the app a person is watching;
 * AWB_NO_ENV=1 serves none. A port that cannot be had leaves the app working without it, said in the log.
 */
export async function withEnvEndpoint(wb: Workbench, env: NodeJS.ProcessEnv, log: (m: string) => void): Promise<Workbench> {
  if (env.AWB_NO_ENV === '1') return wb;
  const port = env.AWB_ENV_PORT === undefined ? 0 : Number(env.AWB_ENV_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new HostConfigError(`AWB_ENV_PORT must be a port number (0-65535), got ${JSON.stringify(env.AWB_ENV_PORT)}`);
  let server: Awaited<ReturnType<typeof serveWorkbench>>;
  try {
    server = await serveWorkbench(wb, { port, dataDir: dataDir(), log });
  } catch (e) {
    log(`the environment server for outside agents could not start (${(e as Error).message}); the app runs without it`);
    return wb;
  }
  log(`environment server for outside agents: ${server.envUrl.replace(/token=.*/, 'token=…')}${server.endpointFile ? ` (recorded in ${server.endpointFile})` : ''}`);
  const closeWorkbench = wb.close;
  return Object.assign(wb, {
    close: async () => {
      await server.close();
      await closeWorkbench();
    },
  });
}

export async function main(): Promise<void> {
  const log = (m: string) => process.stderr.write(`awb host: ${m}\n`);
  const link = parentLink();
  if (!link) {
    log('this process serves the workbench API to a parent process; start it with child_process.fork '
      + "(serialization: 'advanced') or Electron's utilityProcess.fork, not from a shell");
    process.exitCode = 2;
    return;
  }
  // The app (electron/main.ts) keeps endpoint keys with safeStorage in its main process: this host asks it for them.
  const secrets = process.env.AWB_SECRETS === 'parent' ? new RelayedSecretStore((m) => link.post(m), log) : null;
  const host = runHost({
    link,
    start: async () => {
      if (secrets) await secrets.ready();
      const wb = await createWorkbench({ ...optionsFromEnv(process.env, log), ...(secrets ? { secrets } : {}) });
      return withEnvEndpoint(wb, process.env, log);
    },
    log,
    exit: (code) => process.exit(code),
    ...(secrets ? { onSecrets: (m: SecretsToHost) => secrets.receive(m) } : {}),
  });
  // Electron's utilityProcess.kill() and a terminal's Ctrl-C: close the store cleanly first.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => host.stop(signal));
  await host.stopped;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) void main();
