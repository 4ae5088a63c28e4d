import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { WorkbenchError } from '../util/errors.js';
import { RemoteServers } from './remote/servers.js';
import { RAY_ADDRESS_HELP, RayAddress } from './ray-settings.js';

/**
 * Rollouts on a Ray cluster (docs/ray.md): `python -m awb_ray serve` (resources/awb_ray) places environment servers as
 * Ray actors across the cluster's nodes (one CPU per SimDroid), prints where they listen and reports any that die;
 * this module starts it, turns its servers into RemoteServers for the rollout pool, and stops it (which stops the
 * actors) on close. If this process dies first, the driver's stdin closes and it tears the actors down all the same.
 *
 * What the nodes need, read from this process's environment once: the workbench checkout at the same path on every
 * node (AWB_RAY_CHECKOUT, default this checkout), Node.js there (AWB_NODE, default `node` on PATH), and optionally a
 * Ray runtime env for the actors (AWB_RAY_RUNTIME_ENV, JSON). The Python that runs the driver: AWB_PYTHON, else this
 * checkout's .venv, else python3.
 */

export interface RayRolloutOptions {
  address: string;
  /** SimDroids in all (each a rollout worker). */
  envs: number;
  /** SimDroids per actor (one CPU each); default 1. */
  envsPerActor?: number;
  /** Custom Ray resources each actor asks for, e.g. {"simdroid_node": 1} to keep them on the nodes that offer it. */
  resources?: Record<string, number>;
  /** Seconds to place and start every server (default 120). */
  timeoutS?: number;
  log?: (m: string) => void;
  /** The environment the settings above come from (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/** One actor's environment server. */
export interface RayServer {
  index: number;
  /** `/env` for outside agents; carries the token. */
  url: string;
  /** `/rollout` for rollout workers; carries the token. */
  rolloutUrl: string;
  nodeId: string;
  ip: string;
  devices: number;
  /** The actor's process and its `awb env serve`'s, on that node. */
  actorPid: number;
  serverPid: number;
}

/** The cluster could not give us servers: unreachable, too small, or an actor that could not start (nothing is left running). */
export class RayRolloutError extends WorkbenchError {
  override name = 'RayRolloutError';
  /** `kind`: the driver's error class (ClusterUnreachableError, ClusterResourcesError, …; their messages name the cluster), or ours. */
  constructor(readonly address: string, readonly kind: string, readonly detail: string) {
    super(/Error$/.test(kind) ? detail : `Ray rollouts on ${address}: ${kind}: ${detail}`);
  }
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const Actor = z.object({
  type: z.literal('actor'), index: z.int(), url: z.string(), rollout_url: z.string(), node_id: z.string(), ip: z.string(), devices: z.int(),
  actor_pid: z.int(), server_pid: z.int(),
});
const DriverLine = z.discriminatedUnion('type', [
  Actor,
  z.object({ type: z.literal('ready'), actors: z.int(), envs: z.int(), startup_s: z.number() }),
  z.object({ type: z.literal('dead'), index: z.int(), reason: z.string() }),
  z.object({ type: z.literal('error'), error: z.string(), message: z.string() }),
]);
type DriverLine = z.infer<typeof DriverLine>;

const RuntimeEnv = z.record(z.string(), z.unknown());

/** What the driver needs from this process's environment, each checked here with the bad value named. */
function driverSettings(env: NodeJS.ProcessEnv, address: string): { python: string; args: string[]; childEnv: NodeJS.ProcessEnv } {
  const venv = join(ROOT, '.venv', 'bin', 'python');
  const python = env.AWB_PYTHON ?? (existsSync(venv) ? venv : 'python3');
  const args: string[] = ['--checkout', env.AWB_RAY_CHECKOUT ?? ROOT];
  if (env.AWB_NODE) args.push('--node', env.AWB_NODE);
  if (env.AWB_RAY_RUNTIME_ENV) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(env.AWB_RAY_RUNTIME_ENV);
    } catch {
      parsed = undefined;
    }
    if (!RuntimeEnv.safeParse(parsed).success) throw new RayRolloutError(address, 'AWB_RAY_RUNTIME_ENV', `must be a JSON object, got ${JSON.stringify(env.AWB_RAY_RUNTIME_ENV)}`);
    args.push('--runtime-env', env.AWB_RAY_RUNTIME_ENV);
  }
  const pkg = join(ROOT, 'resources', 'awb_ray');
  const childEnv = { ...env, PYTHONPATH: env.PYTHONPATH ? `${pkg}:${env.PYTHONPATH}` : pkg, PYTHONUNBUFFERED: '1', RAY_USAGE_STATS_ENABLED: '0' };
  return { python, args, childEnv };
}

export class RayEnvServers {
  private closing: Promise<void> | null = null;

  private constructor(
    readonly address: string, readonly servers: readonly RayServer[], readonly remote: RemoteServers, readonly startupS: number,
    private readonly child: ChildProcess, private readonly exited: Promise<void>,
  ) {}

  /** Starts the driver and waits until every server listens; throws RayRolloutError (with nothing left running) otherwise. */
  static async start(opts: RayRolloutOptions): Promise<RayEnvServers> {
    const address = RayAddress.safeParse(opts.address).success ? opts.address : (() => {
      throw new RayRolloutError(opts.address, 'bad address', `must be ${RAY_ADDRESS_HELP}, got ${JSON.stringify(opts.address)}`);
    })();
    const log = opts.log ?? (() => {});
    const { python, args, childEnv } = driverSettings(opts.env ?? process.env, address);
    const argv = ['-m', 'awb_ray', 'serve', '--address', address, '--envs', String(opts.envs), '--envs-per-actor', String(opts.envsPerActor ?? 1),
      '--timeout', String(opts.timeoutS ?? 120), ...args];
    if (opts.resources && Object.keys(opts.resources).length) argv.push('--resources', JSON.stringify(opts.resources));
    const child = spawn(python, argv, { env: childEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => { stderr = (stderr + c.toString()).slice(-4000); });
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const spawnFailed = new Promise<never>((_, reject) => child.once('error', (e) => reject(new RayRolloutError(address, 'driver', `cannot run ${python}: ${e.message}`))));
    spawnFailed.catch(() => {});
    const lines = createInterface({ input: child.stdout! });
    const servers: RayServer[] = [];
    let onLine: ((l: DriverLine) => void) | null = null;
    const ready = new Promise<number>((resolve, reject) => {
      onLine = (l) => {
        switch (l.type) {
          case 'actor':
            servers.push({
              index: l.index, url: l.url, rolloutUrl: l.rollout_url, nodeId: l.node_id, ip: l.ip, devices: l.devices, actorPid: l.actor_pid, serverPid: l.server_pid,
            });
            return;
          case 'ready':
            return resolve(l.startup_s);
          case 'error':
            return reject(new RayRolloutError(address, l.error, l.message));
          case 'dead':
            return;
        }
      };
      void exited.then(() => reject(new RayRolloutError(address, 'driver', `exited with code ${child.exitCode} before its servers were up; stderr: ${stderr.trim().split('\n').slice(-5).join(' | ')}`)));
    });
    lines.on('line', (text) => {
      const parsed = DriverLine.safeParse(safeJson(text));
      if (parsed.success) onLine?.(parsed.data);
      else log(`awb_ray: ${text}`);
    });
    let startupS: number;
    try {
      startupS = await Promise.race([ready, spawnFailed]);
    } catch (e) {
      child.stdin!.end();
      await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000).unref())]);
      if (child.exitCode === null) child.kill('SIGKILL');
      throw e;
    }
    const remote = new RemoteServers(servers.map((s) => ({ url: s.rolloutUrl, capacity: s.devices })), {
      onDead: (server, reason) => log(`Ray rollouts: environment server ${server} is gone (${reason}); its episodes run again elsewhere`),
    });
    const self = new RayEnvServers(address, servers, remote, startupS, child, exited);
    onLine = (l) => {
      if (l.type !== 'dead') return;
      const s = servers.find((x) => x.index === l.index);
      if (s) remote.markDead(s.rolloutUrl, l.reason);
    };
    void exited.then(() => {
      if (!self.closing) log(`Ray rollouts: the awb_ray driver exited (code ${child.exitCode}); running episodes go on while their servers answer`);
    });
    return self;
  }

  /** Nodes the servers landed on. */
  get nodes(): number {
    return new Set(this.servers.map((s) => s.nodeId)).size;
  }

  /** One line on where the servers are, for a run's log. */
  get summary(): string {
    return `Ray rollouts: ${this.servers.length} environment server(s) on ${this.nodes} node(s) of ${this.address} in ${this.startupS.toFixed(1)} s`;
  }

  /** Stops the driver, which stops every actor and its server; resolves once it has exited. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.child.stdin!.end();
      const t = setTimeout(() => this.child.kill('SIGTERM'), 30_000).unref();
      const k = setTimeout(() => this.child.kill('SIGKILL'), 45_000).unref();
      await this.exited;
      clearTimeout(t);
      clearTimeout(k);
    })();
    return this.closing;
  }
}

/** Runs `fn` with environment servers on the cluster, stopping them however it ends. */
export async function withRayServers<T>(opts: RayRolloutOptions, fn: (ray: RayEnvServers) => Promise<T>): Promise<T> {
  const ray = await RayEnvServers.start(opts);
  try {
    return await fn(ray);
  } finally {
    await ray.close();
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
