import { WorkbenchError } from '../../util/errors.js';
import type { RolloutWorker } from '../threads/pool.js';
import type { WorkerConfig } from '../threads/protocol.js';
import { RemoteWorker, type RemoteWorkerOptions } from './remote-worker.js';
import { serverLabel } from './wire.js';

/**
 * The rollout servers a pool's workers go to (the Ray actors' environment servers, core/rollout/ray.ts): each takes
 * at most `capacity` workers. A new worker goes to the live server with the most room, so workers spread over the
 * servers (and so over the cluster's nodes) before any doubles up. A server is taken for gone when a connection to it
 * is refused or cut off, or when its owner says so (`markDead`: Ray reported the actor dead); its dead workers are
 * then replaced elsewhere where there is room, and not at all where there is none (the pool goes on smaller).
 */
export interface RolloutServer {
  /** `ws://host:port/rollout?token=…` */
  url: string;
  /** Workers it may run at once (its SimDroids). */
  capacity: number;
}

export class RolloutServersError extends WorkbenchError {
  override name = 'RolloutServersError';
  constructor(readonly detail: string) {
    super(`Rollout servers: ${detail}`);
  }
}

interface ServerState extends RolloutServer {
  label: string;
  live: number;
  dead: string | null;
}

export class RemoteServers {
  private readonly servers: ServerState[];

  constructor(servers: readonly RolloutServer[], private readonly opts: RemoteWorkerOptions & { onDead?: (server: string, reason: string) => void } = {}) {
    if (!servers.length) throw new RolloutServersError('none given');
    for (const s of servers) {
      if (!Number.isInteger(s.capacity) || s.capacity < 1) throw new RolloutServersError(`capacity of ${serverLabel(s.url)} must be a positive integer, got ${s.capacity}`);
      if (!/^wss?:\/\//.test(s.url)) throw new RolloutServersError(`not a ws:// URL: ${JSON.stringify(serverLabel(s.url))}`);
    }
    this.servers = servers.map((s) => ({ ...s, label: serverLabel(s.url), live: 0, dead: null }));
  }

  /** Workers the live servers can hold. */
  get capacity(): number {
    return this.servers.reduce((n, s) => n + (s.dead ? 0 : s.capacity), 0);
  }

  /** Servers taken for gone, with why. */
  get dead(): Array<{ server: string; reason: string }> {
    return this.servers.flatMap((s) => (s.dead ? [{ server: s.label, reason: s.dead }] : []));
  }

  /** The server at `url` is gone (its actor died): no more workers go there. */
  markDead(url: string, reason: string): void {
    const s = this.servers.find((x) => x.url === url);
    if (!s || s.dead) return;
    s.dead = reason;
    this.opts.onDead?.(s.label, reason);
  }

  /** WorkerPool's `startWorker`: a remote worker on the live server with the most room, or null when none has any. */
  readonly startWorker = (config: WorkerConfig): RolloutWorker | null => {
    let best: ServerState | null = null;
    for (const s of this.servers) if (!s.dead && s.live < s.capacity && (!best || s.capacity - s.live > best.capacity - best.live)) best = s;
    if (!best) return null;
    const server = best;
    server.live++;
    const worker = new RemoteWorker(server.url, config, this.opts);
    worker.once('exit', () => {
      server.live--;
      const end = worker.end;
      // Refused by HTTP (the server is not there, or not this one) or cut off at the socket: the server is gone.
      // A worker thread that died, or a refusal from a live server (busy, another version), says nothing of it.
      if (end?.kind === 'lost') this.markDead(server.url, end.reason);
      if (end?.kind === 'refused' && /^HTTP /.test(end.reason)) this.markDead(server.url, end.reason);
    });
    return worker;
  };
}
