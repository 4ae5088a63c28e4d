import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Header } from 'tar';
import { WebSocket } from 'ws';
import { serve, type RunningServer } from '../../core/api/ws/server.js';
import { main } from '../../core/cli/main.js';
import { TransformerModel } from '../../core/policy/transformer/model.js';
import { METRIC, type IterationMetrics } from '../../core/rl/grpo-loop.js';
import { parseTrainConfig } from '../../core/rl/config.js';
import { trainTransformerGrpo } from '../../core/rl/transformer-grpo.js';
import { checkTransformerRollouts, runTransformerRollouts, TransformerUnsupportedError, type TransformerRollout } from '../../core/rl/transformer-rollouts.js';
import { MAX_MODEL_ARCHIVE, ModelArchiveError, packModelFolder, unpackModelFolder } from '../../core/rollout/remote/model-folder.js';
import { RemoteServers } from '../../core/rollout/remote/servers.js';
import { RolloutHost } from '../../core/rollout/remote/serve.js';
import { decodeFromServer, encodeFrame, ROLLOUT_PROTOCOL_VERSION, type FromServer, type ToServer } from '../../core/rollout/remote/wire.js';
import { RolloutWorkerPool } from '../../core/rollout/rollout-workers.js';
import type { RolloutJob as GrpoJob } from '../../core/rollout/rollouts.js';
import { runPool, type RolloutJob } from '../../core/rollout/threads/run-pool.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { scratch } from '../helpers/scratch.js';
import { device } from '../helpers/simdroid.js';
import { TINY_TRANSFORMER_TEMPLATES, tinyTransformerModel } from '../helpers/transformer-fixture.js';
import { createHash } from 'node:crypto';

/**
 * The transformer policy's rollouts off this thread (docs/policy-transformer.md, docs/ray.md): its model folder as
 * one archive on the rollout wire, checked on arrival; sampled rollouts on worker threads and on real rollout servers
 * over their WebSocket (`serve()` with a RolloutHost at /rollout, as `awb env serve` mounts it), each the episode the
 * same job gives in process; GRPO on worker threads. The Ray cluster's run is in test/jobs/ray-rollouts.ts.
 */
const tmp = scratch('awb-tf-remote-');
const hostLog: string[] = [];
const servers: Array<{ server: RunningServer; host: RolloutHost }> = [];

async function rolloutServer(limit: number, opts: { maxFolderBytes?: number } = {}): Promise<{ server: RunningServer; host: RolloutHost }> {
  const host = new RolloutHost({ limit, log: (m) => hostLog.push(m), ...opts });
  const server = await serve({ api: {}, port: 0, staticDir: tmp.dir(), rollout: host });
  servers.push({ server, host });
  return { server, host };
}

let model: string;
beforeAll(async () => {
  model = await tinyTransformerModel(join(tmp.dir(), 'sft'));
}, 120_000);
afterAll(async () => {
  for (const s of servers) {
    await s.server.close();
    await s.host.close();
  }
  tmp.cleanup();
});

/** An archive with entries as given, written with node-tar's Header (TarWriter itself refuses such names). */
function rawArchive(entries: Array<[string, Buffer]>): Buffer {
  const blocks: Buffer[] = [];
  for (const [path, data] of entries) {
    const block = Buffer.alloc(512);
    new Header({ path, mode: 0o644, size: data.length, mtime: new Date(0), type: 'File' }).encode(block, 0);
    blocks.push(block, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  return Buffer.concat([...blocks, Buffer.alloc(1024)]);
}

const modelFiles = (): Array<[string, Buffer]> => ['config.json', 'tokenizer.json', 'policy.onnx'].map((f) => [f, readFileSync(join(model, f))]);

describe('a transformer model folder on the rollout wire', () => {
  it('packs to the same archive however its files were touched, and unpacks to a folder the policy loads', async () => {
    const a = packModelFolder(model);
    utimesSync(join(model, 'policy.onnx'), new Date(), new Date(Date.now() + 5000));
    const b = packModelFolder(model);
    expect(b).not.toBe(a); // packed again: the file changed on disk
    expect(b.sha256).toBe(a.sha256);
    expect(createHash('sha256').update(b.bytes).digest('hex')).toBe(b.sha256);
    expect(b.bytes.length).toBeLessThan(700_000); // config, tokenizer and graph; weights.pt stays home
    const dir = join(tmp.dir(), 'unpacked');
    unpackModelFolder('sft', b.bytes, dir);
    const [orig, copy] = [await TransformerModel.load(model), await TransformerModel.load(dir)];
    expect(copy.sha256).toBe(orig.sha256);
    await Promise.all([orig.close(), copy.close()]);
  });

  it('refuses a malformed archive in one line: an entry escaping the folder, a missing file, one over the bound, not a tar, a foreign config', () => {
    const refusal = (bytes: Buffer, max = MAX_MODEL_ARCHIVE) => {
      try {
        unpackModelFolder('m', bytes, join(tmp.dir(), 'x'), max);
      } catch (e) {
        expect(e).toBeInstanceOf(ModelArchiveError);
        expect((e as Error).message).not.toContain('\n');
        return (e as Error).message;
      }
      return 'accepted';
    };
    const files = modelFiles();
    expect(refusal(rawArchive([...files, ['../evil.sh', Buffer.from('rm -rf ~')]]))).toBe('Model folder "m": entry "../evil.sh" is not a file name inside the folder');
    expect(refusal(rawArchive([...files, ['/etc/cron.d/x', Buffer.from('x')]]))).toMatch(/^Model folder "m": entry "\/?etc\/cron\.d\/x" is not a file name inside the folder$/);
    expect(refusal(rawArchive([...files, ['sub/config.json', Buffer.from('{}')]]))).toBe('Model folder "m": entry "sub/config.json" is not a file name inside the folder');
    expect(refusal(rawArchive(files.filter(([f]) => f !== 'policy.onnx')))).toBe('Model folder "m": the archive lacks policy.onnx');
    const good = rawArchive(files);
    expect(refusal(good, 100_000)).toBe(`Model folder "m": its archive of ${good.length} bytes is over the 100000 bytes this server accepts`);
    expect(refusal(Buffer.from('not a tar archive at all'.repeat(40)))).toMatch(/^Model folder "m": not a readable tar archive/);
    const foreign = rawArchive(files.map(([f, d]) => [f, f === 'config.json' ? Buffer.from('{"format":"something-else"}') : d]));
    expect(refusal(foreign)).toMatch(/^Model folder "m": config\.json: format: /);
    expect(refusal(good)).toBe('accepted');
    // The driver refuses to pack what a server would refuse for size, and so a GRPO run on Ray refuses it before it starts.
    expect(() => packModelFolder(model, 1000)).toThrow(/^Model folder ".*sft": its archive of \d+ bytes is over the 1000 bytes a rollout server accepts$/);
    expect(() => checkTransformerRollouts({ address: '127.0.0.1:6379' }, model, 1000)).toThrow(TransformerUnsupportedError);
    expect(() => checkTransformerRollouts({ address: '127.0.0.1:6379' }, model, 1000)).toThrow(
      /^The transformer policy's rollouts cannot run with ray\.address "127\.0\.0\.1:6379": its rollout servers are sent the model folder, and Model folder ".*sft": its archive of \d+ bytes is over the 1000 bytes a rollout server accepts$/,
    );
    expect(() => checkTransformerRollouts({ address: null }, model, 1000)).not.toThrow();
  });

  it('over a real WebSocket: a bad archive, a wrong hash or one over the server\'s bound is refused in one line and the connection ends', async () => {
    const small = await rolloutServer(1, { maxFolderBytes: 100_000 });
    const refusal = async (folder: Extract<ToServer, { kind: 'folder' }>): Promise<FromServer> => {
      const ws = new WebSocket(small.server.rolloutUrl);
      const got = new Promise<FromServer>((resolve) => ws.once('message', (d: Buffer) => resolve(decodeFromServer(d))));
      await new Promise((r) => ws.once('open', r));
      ws.send(encodeFrame({ kind: 'start', version: ROLLOUT_PROTOCOL_VERSION, config: { serial: 's', deviceSeed: 0, screenshots: 'none', forward: 'results' } }));
      ws.send(encodeFrame(folder));
      const reply = await got;
      await new Promise((r) => ws.once('close', r));
      return reply;
    };
    const frame = (bytes: Buffer, sha256 = createHash('sha256').update(bytes).digest('hex')) => ({ kind: 'folder' as const, name: 'evil', sha256, bytes });
    const evil = frame(rawArchive([['config.json', Buffer.from('{}')], ['../../x', Buffer.from('x')]]));
    expect(await refusal(evil)).toEqual({ kind: 'refused', reason: `Model folder "evil (sha256 ${evil.sha256.slice(0, 12)})": entry "../../x" is not a file name inside the folder` });
    const packed = packModelFolder(model);
    expect(await refusal(frame(packed.bytes))).toEqual({ kind: 'refused', reason: `Model folder "evil (sha256 ${packed.sha256.slice(0, 12)})": its archive of ${packed.bytes.length} bytes is over the 100000 bytes this server accepts` });
    expect(await refusal(frame(packed.bytes, '0'.repeat(64)))).toMatchObject({ kind: 'refused', reason: `folder "evil": its bytes hash to ${packed.sha256}, not ${'0'.repeat(64)}` });
  });
});

describe('transformer rollouts off this thread', () => {
  const instances = TINY_TRANSFORMER_TEMPLATES.map((id) => instantiate(getTemplate(id), 3));
  const jobs: GrpoJob[] = instances.flatMap((instance, g) => [0, 1, 2, 3].map((k) => ({ group: g, rollout: k, instance, rngKey: `tf-remote/${g}/${k}` })));
  const essence = (r: TransformerRollout) => ({
    reward: r.reward, status: r.result.status, actions: r.result.steps.map((s) => s.action),
    records: r.records.map((x) => ({ choice: x.choice, logProb: x.logProb, goalIds: Array.from(x.inputs.goalIds), features: Array.from(x.inputs.itemFeatures) })),
  });

  it('sample the in-process episodes on worker threads and on remote servers; a server is sent each model once', async () => {
    const m = await TransformerModel.load(model);
    const d = device();
    const a = await rolloutServer(2);
    const opts = { model: m, temperature: 1, maxSteps: 6 };
    const threads = await RolloutWorkerPool.start({ workers: 2 });
    const remote = await RolloutWorkerPool.start({ workers: 2, remote: new RemoteServers([{ url: a.server.rolloutUrl, capacity: 2 }]) });
    try {
      const here = (await runTransformerRollouts([d], jobs, opts)).map(essence);
      expect(here.flatMap((r) => r.records)).not.toHaveLength(0);
      expect(new Set(here.map((r) => r.reward)).size, 'the tiny model both succeeds and fails').toBe(2);
      hostLog.length = 0;
      expect((await runTransformerRollouts(threads, jobs, opts)).map(essence)).toEqual(here);
      expect((await runTransformerRollouts(remote, jobs, opts)).map(essence)).toEqual(here);
      // Two connections to one server: the first unpacks the folder, the second finds it there.
      const sha = packModelFolder(model).sha256;
      expect(hostLog).toEqual([expect.stringMatching(new RegExp(`^rollout: model folder sft \\(\\d+ bytes, sha256 ${sha}\\) received for jobs$`)), `rollout: model folder sft (sha256 ${sha.slice(0, 12)}) already here`]);
      // The next batch with the same model sends nothing; a new model (another folder) goes once per connection.
      expect((await runTransformerRollouts(remote, jobs, opts)).map(essence)).toEqual(here);
      expect(hostLog).toHaveLength(2);
      // The same files under another path are the same archive: nothing is sent. Another model (here its config's
      // meta differs) is sent: unpacked once by the server, found there by its second connection.
      const copy = join(tmp.dir(), 'copy');
      cpSync(model, copy, { recursive: true });
      const sample = async (dir: string) => {
        const m2 = await TransformerModel.load(dir);
        try {
          return (await runTransformerRollouts(remote, jobs, { ...opts, model: m2 })).map(essence);
        } finally {
          await m2.close();
        }
      };
      expect(await sample(copy)).toEqual(here);
      expect(hostLog).toHaveLength(2);
      const config = JSON.parse(readFileSync(join(copy, 'config.json'), 'utf8')) as { meta: Record<string, unknown> };
      writeFileSync(join(copy, 'config.json'), JSON.stringify({ ...config, meta: { ...config.meta, iteration: 1 } }));
      expect(await sample(copy)).toEqual(here);
      const copySha = packModelFolder(copy).sha256;
      expect(copySha).not.toBe(sha);
      expect(hostLog[2]).toMatch(new RegExp(`^rollout: model folder copy \\(\\d+ bytes, sha256 ${copySha}\\) received for jobs$`));
      expect(hostLog.slice(3)).toEqual(hostLog.length > 3 ? [`rollout: model folder copy (sha256 ${copySha.slice(0, 12)}) already here`] : []);
      expect(remote.reruns).toBe(0);
    } finally {
      await threads.close();
      await remote.close();
      await m.close();
      d.close();
    }
  }, 120_000);

  it('a greedy transformer spec (awb suite/eval --ray --policy DIR) runs on a remote server with the actions of a worker thread here', async () => {
    const b = await rolloutServer(1);
    const spec = { name: 'transformer', model } as const;
    const suite: RolloutJob[] = instances.map((i) => ({ key: `${i.template.id}#${i.seed}`, templateId: i.template.id, seed: i.seed, policy: spec, maxSteps: 5 }));
    const here = await runPool({ devices: 1, jobs: suite });
    const there = await runPool({ devices: 1, jobs: suite, remote: new RemoteServers([{ url: b.server.rolloutUrl, capacity: 1 }]) });
    for (const j of suite) {
      const [x, y] = [here.outcomes.get(j.key)!, there.outcomes.get(j.key)!];
      expect(y, j.key).toMatchObject({ ok: true, result: { policy: 'transformer' } });
      if (x.ok && y.ok) expect(y.result.steps.map((s) => s.action)).toEqual(x.result.steps.map((s) => s.action));
    }
  }, 60_000);

  it('awb eval --policy MODEL_DIR --parallel 2 runs its episodes on worker threads with the outcomes of --parallel 1', async () => {
    const evalJson = async (parallel: string) => {
      const out: string[] = [];
      const code = await main(['eval', '--policy', model, '--split', 'unseen-instance', '--limit', '4', '--seeds', '30', '--parallel', parallel, '--db', join(tmp.dir(), 'eval.db'), '--json'], { out: (l) => out.push(l), err: () => {} });
      expect(code).toBe(0);
      return JSON.parse(out.at(-1)!) as { policy: unknown; overall: { episodes: number; mean: number } };
    };
    const [one, two] = [await evalJson('1'), await evalJson('2')];
    expect(two.policy).toMatchObject({ policy: 'transformer' });
    expect(two.overall).toEqual(one.overall);
    expect(one.overall.episodes).toBe(4);
  }, 60_000);

  it('two GRPO iterations on 2 worker threads: the metrics and the trained model of in-process rollouts', async () => {
    const same = (h: IterationMetrics) => Object.fromEntries(
      [METRIC.rewardMean, METRIC.successRate, METRIC.lossPolicy, METRIC.lossKl, METRIC.batchSteps, METRIC.episodeLength, METRIC.envErrors].map((k) => [k, h.metrics[k]]),
    );
    const run = async (rolloutWorkers: number) => {
      const out = join(tmp.dir(), `grpo-${rolloutWorkers}`);
      const config = parseTrainConfig({
        init: model, seed: 2, iterations: 2, instancesPerIteration: 2, rolloutsPerInstance: 4, devices: 2, rolloutWorkers, maxSteps: 6,
        curriculum: { mode: 'none' }, optimizer: { learningRate: 1e-2 },
      });
      const r = await trainTransformerGrpo({ config, outDir: out, instances });
      const trained = await TransformerModel.load(out);
      await trained.close();
      return { history: r.history.map(same), sha256: trained.sha256 };
    };
    const inProcess = await run(0);
    expect(inProcess.history.some((h) => h[METRIC.batchSteps]! > 0), 'some group had mixed outcomes').toBe(true);
    expect(await run(2)).toEqual(inProcess);
    expect(inProcess.sha256, 'the update changed the model').not.toBe((await TransformerModel.load(model).then(async (m) => { await m.close(); return m; })).sha256);
  }, 180_000);
});
