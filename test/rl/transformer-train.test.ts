import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../core/cli/main.js';
import { runEpisode } from '../../core/episode/runner.js';
import { choiceLogProb } from '../../core/policy/transformer/actions.js';
import { TransformerModel } from '../../core/policy/transformer/model.js';
import { TransformerPolicy } from '../../core/policy/transformer/policy.js';
import { createPolicy, PolicyModels } from '../../core/policy/registry.js';
import { parseTrainConfig } from '../../core/rl/config.js';
import { TransformerSftConfigSchema } from '../../core/rl/transformer-config.js';
import { trainTransformerGrpo } from '../../core/rl/transformer-grpo.js';
import { collectTransformerDemonstrations, runTransformerSft, writeSteps, type TransformerSftResult } from '../../core/rl/transformer-sft.js';
import { TransformerSession } from '../../core/rl/transformer-session.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { device } from '../helpers/simdroid.js';
import { requirePython } from '../python-env.js';

/**
 * The transformer policy end to end at a size CI affords: a tiny network (width 32, one screen layer) behaviour-cloned
 * by the trainer's session on the oracle's demonstrations of three templates, run in ONNX Runtime, then two GRPO
 * iterations. The policy's maths is the trainer's (resources/trainer/tests/test_transformer.py tests it there);
 * this checks the two sides agree and the runs complete.
 */
const TOKENIZER = join(import.meta.dirname, '..', 'policy', 'transformer-fixtures', 'tokenizer.json');
const TEMPLATES = ['ClockStopwatchRun', 'ContactsAddContact', 'AudioRecorderRecordAudio'];
// rowMatch, textField and spanContext on, so ONNX Runtime's parity with torch covers them too.
const SHAPE = { width: 32, heads: 2, screenLayers: 1, textWidth: 32, textHeads: 2, textLayers: 0, textFfn: 64, rowMatch: true, textField: true, spanContext: true };

let dir: string;
let sft: TransformerSftResult;
const d = device();

beforeAll(async () => {
  process.env.AWB_PYTHON = requirePython();
  dir = mkdtempSync(join(tmpdir(), 'awb-transformer-'));
  const config = TransformerSftConfigSchema.parse({ templates: TEMPLATES, seeds: [1, 2], shape: SHAPE, tokenizer: TOKENIZER, sft: { epochs: 25, batchSize: 8, lr: 1e-2 } });
  sft = await runTransformerSft(config, { device: d, outDir: join(dir, 'sft') });
}, 240_000);
afterAll(() => {
  d.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('transformer policy: SFT, ONNX Runtime, GRPO', () => {
  it('behaviour cloning fits the oracle\'s demonstrations', () => {
    expect(sft.demonstrations.episodes).toBeGreaterThanOrEqual(5);
    expect(sft.demonstrations.steps).toBeGreaterThan(20);
    expect(sft.history).toHaveLength(25);
    const first = sft.history[0]!;
    const last = sft.history.at(-1)!;
    expect(last['loss/nll']).toBeLessThan(first['loss/nll'] / 3);
    expect(last['acc/top1']).toBeGreaterThanOrEqual(0.75);
    expect(sft.parameters.total).toBeGreaterThan(50_000);
  });

  it('ONNX Runtime and torch give the same log π for the same steps (|Δ| < 1e-4 at T = 0.7)', async () => {
    const model = await TransformerModel.load(join(dir, 'sft'));
    try {
      const demos = await collectTransformerDemonstrations(d, TEMPLATES.map((t) => instantiate(getTemplate(t), 5)), model.tokenizer, model.layout);
      const ours: number[] = [];
      for (const s of demos.steps) ours.push(choiceLogProb(s.choice, await model.forward(s.inputs, 0.7), model.shape, s.inputs.items));
      const file = writeSteps(dir, demos.steps.map((s) => ({ ...s, temperature: 0.7 })), 'parity.jsonl');
      const session = TransformerSession.start();
      try {
        await session.request('load', { dir: join(dir, 'sft') });
        const { logProbs } = await session.request<{ logProbs: number[] }>('log_probs', { steps: file });
        expect(logProbs).toHaveLength(ours.length);
        const worst = Math.max(...ours.map((x, i) => Math.abs(x - logProbs[i]!)));
        expect(worst).toBeLessThan(1e-4);
      } finally {
        await session.close();
      }
    } finally {
      await model.close();
    }
  }, 120_000);

  it('acts greedily through the registry with the policy\'s own probabilities as candidates', async () => {
    const models = new PolicyModels();
    const instance = instantiate(getTemplate('ClockStopwatchRun'), 9);
    const r = await runEpisode({ device: d, instance, policy: createPolicy({ name: 'transformer', model: join(dir, 'sft') }, { task: { templateId: instance.template.id, seed: 9 }, models }), maxSteps: 6 });
    expect(r.status).not.toBe('error');
    const step = r.steps[0]!;
    expect(step.thought).toMatch(/transformer/);
    // the policy's own π (not a softmax over scores): at most 1 in all, in order, and score = log π as the builtin policy's
    const probabilities = step.candidates!.map((c) => c.probability!);
    expect(probabilities.length).toBeGreaterThan(3);
    expect(probabilities.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1 + 1e-5);
    expect([...probabilities].sort((a, b) => b - a)).toEqual(probabilities);
    for (const c of step.candidates!) expect(c.score).toBeCloseTo(Math.log(c.probability!), 6);
    (await models.transformer(join(dir, 'sft'))).close();
  }, 60_000);

  it('sampling is reproducible from the RNG key, and two GRPO iterations run and write a model', async () => {
    const model = await TransformerModel.load(join(dir, 'sft'));
    const { createRng } = await import('../../core/util/rng.js');
    const run = async () => (await runEpisode({
      device: d, instance: instantiate(getTemplate('ContactsAddContact'), 3), maxSteps: 8,
      policy: new TransformerPolicy(model, { mode: 'sample', temperature: 1, rng: createRng('k') }),
    })).steps.map((s) => JSON.stringify(s.action));
    expect(await run()).toEqual(await run());
    await model.close();

    const config = parseTrainConfig({
      init: join(dir, 'sft'), iterations: 2, instancesPerIteration: 2, rolloutsPerInstance: 4, devices: 2, maxSteps: 8,
      curriculum: { mode: 'none' }, optimizer: { learningRate: 1e-3 }, advantage: { zeroStdGroups: 'keep' },
    });
    const r = await trainTransformerGrpo({ config, outDir: join(dir, 'grpo'), instances: TEMPLATES.map((t) => instantiate(getTemplate(t), 4)) });
    expect(r.stoppedBy).toBe('done');
    expect(r.history.map((h) => h.iteration)).toEqual([1, 2]);
    expect(r.history[0]!.metrics['batch/steps']).toBeGreaterThan(0);
    expect(Number.isFinite(r.history[1]!.metrics['loss/kl'])).toBe(true);
    const after = await TransformerModel.load(join(dir, 'grpo'));
    expect(after.config.meta.trainer).toBe('transformer-grpo');
    await after.close();
  }, 180_000);

  it('refuses zero demonstration epochs for a new network, and takes them from a model folder (straight to DAgger)', () => {
    const r = TransformerSftConfigSchema.safeParse({ sft: { epochs: 0 } });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path.join('.'))).toEqual(['sft.epochs']);
    expect(TransformerSftConfigSchema.safeParse({ init: '/models/sft', sft: { epochs: 0 }, dagger: { rounds: 1 } }).success).toBe(true);
    expect(TransformerSftConfigSchema.safeParse({ dagger: { rounds: 1, beta: 2 } }).success).toBe(false);
    expect(TransformerSftConfigSchema.safeParse({ sft: { rename: 1.5 } }).error!.issues.map((i) => i.path.join('.'))).toEqual(['sft.rename']);
    const rows = TransformerSftConfigSchema.safeParse({ shape: { rowMatch: true, goalMatch: false } });
    expect(rows.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual(['shape.goalMatch: rowMatch and appIdentity false both need goalMatch']);
  });

  it('DAgger rounds: the model acts, the oracle labels its screens, and SFT goes on over all steps, epochs numbered on', async () => {
    const config = TransformerSftConfigSchema.parse({
      // rename: the goal-word swap reaches the trainer (its maths is resources/trainer/tests/test_renaming.py's)
      templates: TEMPLATES, seeds: [1, 2], init: join(dir, 'sft'), sft: { epochs: 1, batchSize: 8, lr: 1e-3, rename: 0.3 },
      dagger: { rounds: 2, epochs: 2, beta: 0.5 },
    });
    const epochs: number[] = [];
    const r = await runTransformerSft(config, { device: d, outDir: join(dir, 'dagger'), onEpoch: (m) => epochs.push(m.epoch) });
    expect(r.stoppedBy).toBe('done');
    expect(epochs).toEqual([1, 2, 3, 4, 5]);
    expect(r.dagger.map((x) => x.round)).toEqual([1, 2]);
    for (const round of r.dagger) {
      expect(round.episodes).toBe(r.demonstrations.episodes);
      expect(round.steps).toBeGreaterThan(0);
      expect(round.solved).toBeLessThanOrEqual(round.episodes);
    }
    // Each pass trains on every step so far: the demonstrations, then each round's labelled screens as well.
    const total = r.demonstrations.steps + r.dagger[0]!.steps + r.dagger[1]!.steps;
    expect(r.history.at(-1)!.steps).toBe(total);
    expect(r.history[0]!.steps).toBe(r.demonstrations.steps);
    const model = await TransformerModel.load(join(dir, 'dagger'));
    expect((model.config.meta as { dagger: unknown[] }).dagger).toHaveLength(2);
    await model.close();
  }, 180_000);

  it('awb eval takes the model folder as --policy and records its runs', async () => {
    const out: string[] = [];
    const io = { out: (l: string) => out.push(l), err: () => {} };
    const code = await main(['eval', '--policy', join(dir, 'sft'), '--split', 'unseen-instance', '--limit', '2', '--seeds', '30', '--db', join(dir, 'eval.db'), '--json'], io);
    expect(code).toBe(0);
    const r = JSON.parse(out.at(-1)!);
    expect(r.policy).toMatchObject({ policy: 'transformer' });
    expect(r.overall).toMatchObject({ episodes: 2 });
    expect(r.overall.mean).toBeGreaterThanOrEqual(0);
  }, 60_000);

  it('awb adapt --policy MODEL_DIR trains a per-app adapter by GRPO (rollouts on worker threads) and reports before and after on the app', async () => {
    const config = join(dir, 'adapt.json');
    // GRPO's rollouts on two worker threads (test/rollout/transformer-remote.test.ts compares them with in-process ones)
    writeFileSync(config, JSON.stringify({ grpo: { instancesPerIteration: 1, rolloutsPerInstance: 2, maxSteps: 6, devices: 2, rolloutWorkers: 2 } }));
    const out: string[] = [];
    const io = { out: (l: string) => out.push(l), err: () => {} };
    const adapter = join(dir, 'adapter');
    const code = await main(['adapt', '--policy', join(dir, 'sft'), '--app', 'Clock', '--shots', '2', '--iterations', '2', '--eval-seeds', '30',
      '--config', config, '--out', adapter, '--json'], io);
    expect(code).toBe(0);
    const lines = out.map((l) => JSON.parse(l) as { type: string });
    expect(lines.filter((l) => l.type === 'grpo')).toHaveLength(2);
    const report = lines.at(-1) as unknown as { type: string; policy: string; shots: string[]; before: { episodes: number }; after: { episodes: number }; parameters: { total: number; trainable: number } };
    expect(report).toMatchObject({ type: 'report', policy: 'transformer' });
    expect(report.shots).toHaveLength(2);
    expect(report.after.episodes).toBe(report.before.episodes);
    expect(report.before.episodes).toBeGreaterThan(0);
    // the LoRA is a small share of the network: the base is frozen
    expect(report.parameters.trainable).toBeGreaterThan(0);
    expect(report.parameters.trainable).toBeLessThan(report.parameters.total / 4);
    expect(existsSync(join(adapter, 'policy.onnx'))).toBe(true);
    const m = await TransformerModel.load(adapter);
    expect(m.config.meta.trainer).toBe('transformer-adapt');
    await m.close();
  }, 120_000);
});
