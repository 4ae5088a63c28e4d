import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkbenchApi } from '../../core/api/api.js';
import { channelPair, connectApi } from '../../core/api/bridge.js';
import { serveApi } from '../../core/api/serve-api.js';
import type { JobInfo, JobState, TrainingEvent } from '../../core/api/types.js';
import { TransformerSftConfigSchema } from '../../core/rl/transformer-config.js';
import { configFields } from '../../core/workbench/training/describe.js';
import { createWorkbench, type Workbench } from '../../core/workbench/index.js';
import { requirePython } from '../python-env.js';

/**
 * The transformer policy's training jobs through the real bridge (core/workbench/training/transformer-start.ts,
 * worker-transformer.ts): the config described from its zod schema and checked once where the API takes it, and a
 * stopped SFT run that leaves no model folder (nor a staging one) behind. The run that finishes is the e2e test's
 * (test/e2e/transformer-training.test.ts).
 */
const TOKENIZER = join(import.meta.dirname, '..', 'policy', 'transformer-fixtures', 'tokenizer.json');
const SHAPE = { width: 16, heads: 1, screenLayers: 1, textWidth: 16, textHeads: 1, textFfn: 16 };

describe('transformer training jobs through the bridge', () => {
  let dir: string;
  let workbench: Workbench;
  let api: WorkbenchApi;
  const events: TrainingEvent[] = [];

  beforeAll(async () => {
    process.env.AWB_PYTHON = requirePython();
    dir = mkdtempSync(join(tmpdir(), 'awb-transformer-api-'));
    workbench = await createWorkbench({ dataDir: dir, adb: false, embeddedDevice: false });
    const [client, server] = channelPair();
    serveApi(workbench, server);
    api = connectApi<WorkbenchApi>(client);
    api.onTraining({}, (e) => events.push(e));
  });

  afterAll(async () => {
    await workbench.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function until<T>(what: string, get: () => T | undefined, ms = 60_000): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      const v = get();
      if (v !== undefined) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  const stateOf = (jobId: string, state: JobState) => until(`${jobId} ${state}`, () => events.find((e) => e.job.id === jobId && e.job.state === state)?.job);

  it('describes the transformer SFT config from its schema, with a smoke preset of the smallest shape', async () => {
    const d = await api.describeTrainConfig({ kind: 'transformer-sft' });
    expect(d.fields.map((f) => f.path)).toEqual(configFields(TransformerSftConfigSchema).map((f) => f.path));
    const byPath = Object.fromEntries(d.fields.map((f) => [f.path, f]));
    expect(byPath['shape.width']).toMatchObject({ kind: 'integer', min: 16, default: 128 });
    expect(byPath['shape.textInit']).toMatchObject({ kind: 'choice', options: ['scratch', 'minilm'] });
    expect(byPath['tokenizer']).toMatchObject({ kind: 'text', optional: true });
    const smoke = d.presets.find((p) => p.name === 'smoke')!;
    expect(TransformerSftConfigSchema.parse(smoke.config)).toMatchObject({ shape: { width: 16 }, sft: { epochs: 1 } });
    expect(d.charts.map((c) => c.metric)).toEqual(['loss/nll', 'acc/top1', 'optim/grad_norm', 'optim/lr']);
    const g = await api.describeTrainConfig({ kind: 'transformer-grpo' });
    expect(g.fields.find((f) => f.path === 'init')).toBeDefined();
  });

  it('refuses bad configs at the boundary with every problem listed, and starts nothing', async () => {
    const refused = async (kind: 'transformer-sft' | 'transformer-grpo', config: unknown) => {
      const e = await api.startTraining({ kind, config }).then(() => null, (x: Error & { issues?: Array<{ path: string; message: string }> }) => x);
      expect(e?.name).toBe('TrainingConfigError');
      return e!;
    };
    const schema = await refused('transformer-sft', { shape: { width: 3 }, sft: { epochs: 0 }, bogus: 1 });
    expect(schema.message).toMatch(/shape\.width/);
    expect(schema.message).toMatch(/sft\.epochs/);
    expect(schema.message).toMatch(/bogus/);
    const files = await refused('transformer-sft', { tokenizer: '/no/such/tokenizer.json', init: 'no-such-checkpoint', templates: ['ClockStopwatchRun'] });
    expect(files.message).toMatch(/tokenizer: no such file "\/no\/such\/tokenizer\.json"/);
    expect(files.message).toMatch(/init: .*no-such-checkpoint/);
    // worker threads are taken (its rollouts run there, test/rollout/transformer-remote.test.ts); only the init is wrong
    const grpo = await refused('transformer-grpo', { rolloutWorkers: 2 });
    expect(grpo.message).not.toMatch(/rolloutWorkers/);
    expect(grpo.message).toMatch(/init: a transformer GRPO run starts from a transformer model folder/);
    const notModel = await refused('transformer-grpo', { init: dir });
    expect(notModel.message).toMatch(/is not a transformer model folder/);
    expect(await api.listTrainingJobs({})).toEqual([]);
  });

  it('lists a transformer model folder as its own kind of policy, and refuses what its adaptation cannot do, every problem named', async () => {
    // a folder is a transformer model by its config.json's format (core/policy/transformer/model.ts isTransformerModelDir)
    const folder = join(dir, 'checkpoints', 'transformer-sft-fake');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'config.json'), JSON.stringify({ format: 'awb-transformer-policy', version: 1, meta: { trainer: 'transformer-sft', final: { epoch: 3 } } }));
    try {
      expect((await api.listCheckpoints({})).find((c) => c.name === 'transformer-sft-fake')).toMatchObject({ model: 'transformer', trainer: 'transformer-sft', iteration: 3, policy: folder });
      const choice = (await api.listPolicies({})).find((p) => p.name === 'checkpoint:transformer-sft-fake');
      expect(choice).toMatchObject({ kind: 'transformer', trainable: false, evaluable: true });
      // builtin GRPO cannot start from it; it says which run can
      await expect(api.startTraining({ kind: 'grpo', config: { init: 'checkpoint:transformer-sft-fake' } })).rejects.toThrow(/a transformer GRPO run starts from it/);
      const e = await api.startAdaptation({
        app: 'Clock', policy: 'checkpoint:transformer-sft-fake', method: 'sft', kind: 'head', home: 'task-app', epochs: 3, episodes: [1],
        config: { grpo: { rolloutWorkers: 2, devices: 2 }, ray: { address: '127.0.0.1:6379' } },
      }).then(() => null, (x: Error) => x);
      expect(e?.name).toBe('AdaptationInputError');
      for (const path of ['method', 'kind', 'home', 'sft.epochs', 'episodes', 'ray.address']) expect(e!.message).toContain(path);
      // worker threads are taken; a Ray cluster is refused only because this fake folder cannot be sent to its servers
      expect(e!.message).not.toContain('rolloutWorkers');
      expect(e!.message).toMatch(/its rollout servers are sent the model folder, and Model folder ".*transformer-sft-fake": no tokenizer\.json/);
      expect(e!.message).toMatch(/adapts by GRPO with a LoRA/);
      // its recording (episodes in Trajectories) is the builtin adaptation's setting, checked by the same schema
      await expect(api.startAdaptation({ app: 'Clock', policy: 'checkpoint:transformer-sft-fake', config: { recording: { keepEvery: 0 } } }))
        .rejects.toThrow(/recording\.keepEvery: Too small/);
      expect(await api.listTrainingJobs({})).toEqual([]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('stops an SFT run mid-training: the run is interrupted and no model folder, whole or partial, is left', async () => {
    const job: JobInfo = await api.startTraining({
      kind: 'transformer-sft',
      config: { templates: ['ClockStopwatchRun', 'ContactsAddContact'], seeds: [0, 1], tokenizer: TOKENIZER, shape: SHAPE, sft: { epochs: 1000, batchSize: 4 } },
    });
    expect(job.kind).toBe('transformer-sft');
    // paused between epochs it cannot be: its epochs run in the trainer process
    await expect(api.pauseTraining({ jobId: job.id })).rejects.toThrow(/cannot be paused/);
    const first = await until('the first epoch', () => events.find((e) => e.kind === 'iteration' && e.job.id === job.id));
    expect(first.kind === 'iteration' && first.metrics['loss/nll']).toBeGreaterThan(0);
    await api.stopTraining({ jobId: job.id });
    const stopped = await stateOf(job.id, 'stopped');
    expect(stopped.checkpoint).toBeNull();
    expect(stopped.iteration).toBeLessThan(1000);
    const runs = await api.listTrainingRuns({});
    expect(runs.find((r) => r.runId === stopped.runId)).toMatchObject({ trainer: 'transformer-sft', status: 'interrupted' });
    expect(await api.listCheckpoints({})).toEqual([]);
    const root = join(dir, 'checkpoints');
    expect(existsSync(root) ? readdirSync(root) : []).toEqual([]);
  }, 90_000);
});
