import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { serve, type RunningServer } from '../../core/api/ws/server.js';
import type { EpisodeRecorder } from '../../core/episode/record.js';
import { createModel } from '../../core/policy/builtin.js';
import { saveCheckpoint } from '../../core/policy/checkpoint.js';
import { VlmPolicySettings } from '../../core/policy/vlm/settings.js';
import { RemoteServers } from '../../core/rollout/remote/servers.js';
import { RolloutHost } from '../../core/rollout/remote/serve.js';
import { decodeFromServer, encodeFrame, mapPolicyFiles, ROLLOUT_PROTOCOL_VERSION, type FromServer } from '../../core/rollout/remote/wire.js';
import { RolloutWorkerPool } from '../../core/rollout/rollout-workers.js';
import { runRollouts, type Rollout, type RolloutJob as GrpoJob } from '../../core/rollout/rollouts.js';
import { NoWorkersLeftError, WorkerStartError } from '../../core/rollout/threads/pool.js';
import { runPool, type RolloutJob } from '../../core/rollout/threads/run-pool.js';
import { createRun, listEpisodes, loadTrajectory, openStore, StoreRecorder } from '../../core/store/index.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { createRng } from '../../core/util/rng.js';
import { replyChat, startFakeChat } from '../helpers/fake-chat.js';
import { device } from '../helpers/simdroid.js';
import { scratch } from '../helpers/scratch.js';

/**
 * Remote rollout workers (core/rollout/remote, docs/ray.md) against real servers on loopback: `serve()` with a
 * RolloutHost at /rollout, as `awb env serve` mounts it, each connection a worker thread of that server. The Ray
 * actors around such servers are tested on a real cluster in test/jobs/ray-jobs.test.ts.
 */
const tmp = scratch('awb-remote-workers-');
const servers: Array<{ server: RunningServer; host: RolloutHost }> = [];

const hostLog: string[] = [];

async function rolloutServer(limit = 2): Promise<{ server: RunningServer; host: RolloutHost }> {
  const host = new RolloutHost({ limit, log: (m) => hostLog.push(m) });
  const server = await serve({ api: {}, port: 0, staticDir: tmp.dir(), rollout: host });
  const s = { server, host };
  servers.push(s);
  return s;
}

let a: { server: RunningServer; host: RolloutHost };
let b: { server: RunningServer; host: RolloutHost };
beforeAll(async () => {
  [a, b] = [await rolloutServer(), await rolloutServer()];
});
afterAll(async () => {
  for (const s of servers) {
    await s.server.close();
    await s.host.close();
  }
  tmp.cleanup();
});

const job = (templateId: string, seed: number, policy: RolloutJob['policy'] = { name: 'random' }): RolloutJob => ({ key: `${templateId}#${seed}`, templateId, seed, policy });
const JOBS = [job('SystemWifiTurnOff', 1), job('ContactsAddContact', 2, { name: 'oracle' }), job('ClockStopwatchRun', 3), job('FilesCreateFolder', 7)];

/** Every record a recorder got, screenshots as bytes. */
function recording(): { recorder: (j: RolloutJob) => EpisodeRecorder; log: Map<string, unknown[]> } {
  const log = new Map<string, unknown[]>();
  return {
    log,
    recorder: (j) => {
      const events: unknown[] = [];
      log.set(j.key, events);
      return {
        begin: (s) => void events.push({ begin: { ...s, startedAt: 0, device: { ...s.device, serial: '' } } }),
        step: (s, before) => void events.push({ step: { ...s, timings: null, startedAt: 0 }, before: { ...before, screenshot: before.screenshot ? Buffer.from(before.screenshot).toString('base64') : null } }),
        end: (r) => void events.push({ end: { status: r.status, success: r.success, steps: r.steps.length, terminatedBy: r.terminatedBy } }),
      };
    },
  };
}

describe('remote rollout workers', () => {
  // One device on each side: SimDroid's clock runs on across a device's episodes (a stopwatch shows it), so screens
  // match byte for byte only when the same device ran the same episodes before; outcomes and actions match anyway.
  it('run suite jobs with the same episodes and records, screenshots byte for byte, as a worker thread here', async () => {
    const local = recording();
    const remote = recording();
    const here = await runPool({ devices: 1, jobs: JOBS, recorder: local.recorder, screenshots: 'half' });
    const there = await runPool({ devices: 1, jobs: JOBS, recorder: remote.recorder, screenshots: 'half', remote: new RemoteServers([{ url: a.server.rolloutUrl, capacity: 1 }]) });
    expect(there.reruns).toBe(0);
    expect(there.steps).toBe(here.steps);
    for (const j of JOBS) {
      const [x, y] = [here.outcomes.get(j.key)!, there.outcomes.get(j.key)!];
      expect(y.ok && x.ok, j.key).toBe(true);
      if (x.ok && y.ok) expect(y.result.steps.map((s) => s.action)).toEqual(x.result.steps.map((s) => s.action));
      expect(remote.log.get(j.key), j.key).toEqual(local.log.get(j.key));
    }
    expect(JSON.stringify([...remote.log.values()])).toContain('"screenshot":"iVBOR'); // PNG bytes crossed the wire
  });

  it('run GRPO rollouts with the same rewards, actions, log-probs and features as in-process rollouts', async () => {
    const model = createModel(createRng('remote-workers-test/init'));
    const instances = ['SystemWifiTurnOn', 'ClockStopwatchRun'].map((id) => instantiate(getTemplate(id), 0));
    const jobs: GrpoJob[] = instances.flatMap((instance, g) => [0, 1, 2].map((k) => ({ group: g, rollout: k, instance, rngKey: `remote-test/${g}/${k}` })));
    const opts = { model, temperature: 1, maxSteps: 6 };
    const d = device();
    const essence = (r: Rollout) => ({
      reward: r.reward, status: r.result.status, actions: r.result.steps.map((s) => s.action),
      records: r.records.map((x) => ({ chosen: x.chosen, logProb: x.logProb, features: Array.from(x.features), ctor: x.features.constructor.name })),
    });
    const pool = await RolloutWorkerPool.start({ workers: 2, remote: new RemoteServers([{ url: a.server.rolloutUrl, capacity: 2 }]) });
    try {
      const inProcess = await runRollouts([d], jobs, opts);
      expect((await pool.run(jobs, opts)).map(essence)).toEqual(inProcess.map(essence));
      expect(a.host.active).toBe(2);
      expect(pool.reruns).toBe(0);
    } finally {
      await pool.close();
      d.close();
    }
  });

  it("send a job's policy files with it, once per connection, and the server runs its own copy", async () => {
    const dir = tmp.dir();
    const checkpoint = join(dir, 'policy.json');
    saveCheckpoint(checkpoint, createModel(createRng('remote-workers-test/ckpt')), { kind: 'test' });
    const sha256 = createHash('sha256').update(readFileSync(checkpoint)).digest('hex');
    const spec = { name: 'builtin', checkpoint } as const;
    const jobs = [job('SystemWifiTurnOn', 1, spec), job('SystemWifiTurnOn', 2, spec)];
    const here = await runPool({ devices: 1, jobs });
    hostLog.length = 0;
    const there = await runPool({ devices: 1, jobs, remote: new RemoteServers([{ url: b.server.rolloutUrl, capacity: 1 }]) });
    expect(hostLog).toEqual([`rollout: policy file policy.json (${statSync(checkpoint).size} bytes, sha256 ${sha256}) received for jobs`]);
    for (const j of jobs) {
      const [x, y] = [here.outcomes.get(j.key)!, there.outcomes.get(j.key)!];
      expect(y, j.key).toMatchObject({ ok: true });
      if (x.ok && y.ok) expect(y.result.steps.map((s) => s.action)).toEqual(x.result.steps.map((s) => s.action));
    }
  });

  it('re-run once, on the other server, a job whose server went away mid-episode: the failed attempt is an error episode, nothing is recorded twice', async () => {
    const victim = await rolloutServer(1);
    const db = openStore(':memory:');
    const runId = createRun(db, { kind: 'suite', name: 'lost server', config: {} }).id;
    const reran: string[] = [];
    // One worker, on the first server (ties go in order): its first job asks a served model for its first action, and
    // that request is held while the server goes away, so the episode is cut mid-way whatever the machine's speed (a
    // cut from a recorder callback raced the server's own thread, which could finish the episode first). The worker's
    // replacement can only go to the other server.
    let held: ServerResponse | null = null;
    const endpoint = await startFakeChat((_req, res) => {
      if (held === null) {
        held = res;
        void victim.server.close();
        return;
      }
      replyChat(res, 'Reason: done.\nAction: {"action_type": "status", "goal_status": "complete"}');
    });
    const settings = VlmPolicySettings.parse({ endpoint: { baseUrl: `${endpoint.url}/v1`, model: 'fake-vlm', retries: 0, timeoutMs: 60_000 }, format: 'androidworld' });
    const jobs = [job('SystemWifiTurnOff', 1, { name: 'vlm', settings }), ...JOBS.slice(1)];
    const remote = new RemoteServers([{ url: victim.server.rolloutUrl, capacity: 1 }, { url: b.server.rolloutUrl, capacity: 1 }]);
    try {
      const summary = await runPool({
        devices: 1, jobs, remote, screenshots: 'half', onRerun: (j, error) => reran.push(`${j.key}: ${error.message}`),
        recorder: () => new StoreRecorder(db, runId),
      });
      expect(reran).toEqual([expect.stringMatching(/^SystemWifiTurnOff#1: .*died mid-episode: RemoteWorkerError: rollout server 127\.0\.0\.1:\d+: connection lost/)]);
      expect(summary.reruns).toBe(1);
      expect([...summary.outcomes.values()].every((o) => o.ok)).toBe(true);
      expect(remote.dead.map((d) => d.server)).toEqual([new URL(victim.server.rolloutUrl).host]);
      const episodes = listEpisodes(db, { runId, limit: 100 }).rows.map((e) => loadTrajectory(db, e.id));
      const errors = episodes.filter((t) => t.episode.status === 'error');
      expect(errors).toHaveLength(1);
      expect(errors[0]!.episode).toMatchObject({ terminatedBy: 'environment_error', error: { name: 'WorkerCrash' } });
      const finished = episodes.filter((t) => t.episode.status !== 'error').map((t) => `${t.instance.templateId}#${t.instance.seed}`);
      expect(finished.sort()).toEqual(JOBS.map((j) => j.key).sort());
      expect(`${errors[0]!.instance.templateId}#${errors[0]!.instance.seed}`).toBe(reran[0]!.split(':')[0]);
    } finally {
      (held as ServerResponse | null)?.destroy();
      await endpoint.close();
      db.close();
    }
  });

  it('stop with NoWorkersLeftError when the last server goes: nothing is left to run the waiting jobs (the lost episode included)', async () => {
    const only = await rolloutServer(1);
    let cut = false;
    const err = await runPool({
      devices: 1, jobs: JOBS, remote: new RemoteServers([{ url: only.server.rolloutUrl, capacity: 1 }]),
      recorder: () => ({
        begin: () => {},
        step: () => {
          if (!cut) void only.server.close();
          cut = true;
        },
        end: () => {},
      }),
    }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(NoWorkersLeftError);
    expect((err as Error).message).toMatch(/^Worker pool: no worker is left to run the [1-4] job\(s\) still waiting \(the last one: RemoteWorkerError: rollout server 127\.0\.0\.1:\d+: connection lost/);
  });

  it('refuse what they cannot serve: a wrong token (the server is taken for gone), a pool larger than the servers', async () => {
    const wrong = new RemoteServers([{ url: a.server.rolloutUrl.replace(/token=.*/, 'token=not-the-token-0123456789'), capacity: 1 }]);
    const err = await runPool({ devices: 1, jobs: JOBS.slice(0, 1), remote: wrong }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(WorkerStartError);
    expect((err as Error).message).toMatch(/refused: HTTP 401 Unauthorized/);
    expect((err as Error).message).not.toContain('not-the-token');
    expect(wrong.dead).toEqual([{ server: new URL(a.server.rolloutUrl).host, reason: 'HTTP 401 Unauthorized' }]);
    // Two workers where the server takes one: the second is refused as busy.
    const small = await rolloutServer(1);
    const busy = await RolloutWorkerPool.start({ workers: 2, remote: new RemoteServers([{ url: small.server.rolloutUrl, capacity: 2 }]) }).then(() => null, (e: unknown) => e);
    expect((busy as Error).message).toMatch(/refused: all 1 rollout workers of this server are busy/);
  });

  it('answer a bad opening with one refusal: another protocol version, a frame that is not V8 data, a job before the start', async () => {
    const opening = async (frame: Buffer): Promise<FromServer> => {
      const ws = new WebSocket(a.server.rolloutUrl);
      const got = new Promise<FromServer>((resolve) => ws.once('message', (d: Buffer) => resolve(decodeFromServer(d))));
      await new Promise((r) => ws.once('open', r));
      ws.send(frame);
      const reply = await got;
      await new Promise((r) => ws.once('close', r));
      return reply;
    };
    const config = { serial: 's', deviceSeed: 0, screenshots: 'none', forward: 'results' } as const;
    expect(await opening(encodeFrame({ kind: 'start', version: ROLLOUT_PROTOCOL_VERSION + 1, config }))).toEqual({
      kind: 'refused', reason: `rollout protocol ${ROLLOUT_PROTOCOL_VERSION + 1} asked, this server speaks ${ROLLOUT_PROTOCOL_VERSION}: run the same awb version on the driver and the nodes`,
    });
    expect(await opening(Buffer.from('{"kind":"start"}'))).toMatchObject({ kind: 'refused', reason: expect.stringMatching(/^Bad rollout frame: not V8-serialized data \(16 bytes\)/) });
    expect(await opening(encodeFrame({ kind: 'post', message: { type: 'job', job: JOBS[0]! } }))).toEqual({ kind: 'refused', reason: 'post before the start frame' });
    expect(a.host.active).toBe(0);
  });
});

describe('the policy files a job names', () => {
  it('are every checkpoint, adapter and ONNX model path, a replay\'s fallback included; other specs stay as they are', () => {
    const up = (p: string) => p.toUpperCase();
    expect(mapPolicyFiles({ name: 'builtin-adapted', checkpoint: 'b.json', adapters: ['x.json', 'y.json'], home: 'base' }, up))
      .toEqual({ name: 'builtin-adapted', checkpoint: 'B.JSON', adapters: ['X.JSON', 'Y.JSON'], home: 'base' });
    expect(mapPolicyFiles({ name: 'replay', actions: [], then: { name: 'onnx', model: 'm.onnx' } }, up)).toEqual({ name: 'replay', actions: [], then: { name: 'onnx', model: 'M.ONNX' } });
    // A transformer model folder is named as a folder (it goes as one archive), in its greedy and its sampling spec.
    const kinds = (p: string, kind: 'file' | 'folder') => `${kind}:${p}`;
    expect(mapPolicyFiles({ name: 'transformer', model: 'tf' }, kinds)).toEqual({ name: 'transformer', model: 'folder:tf' });
    expect(mapPolicyFiles({ name: 'replay', actions: [], then: { name: 'transformer-sample', model: 'tf', temperature: 1, rngKey: 'k', policyName: 'p' } }, kinds))
      .toEqual({ name: 'replay', actions: [], then: { name: 'transformer-sample', model: 'folder:tf', temperature: 1, rngKey: 'k', policyName: 'p' } });
    expect(mapPolicyFiles({ name: 'onnx', model: 'm.onnx' }, kinds)).toEqual({ name: 'onnx', model: 'file:m.onnx' });
    const sample = { name: 'builtin-sample', temperature: 1, rngKey: 'k', policyName: 'p' } as const;
    expect(mapPolicyFiles(sample, up)).toBe(sample);
  });
});
