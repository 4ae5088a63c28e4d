import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkbenchApi } from '../../core/api/api.js';
import { channelPair, connectApi } from '../../core/api/bridge.js';
import { serveApi } from '../../core/api/serve-api.js';
import type { EvaluationEvent, EvaluationInfo, JobInfo, SessionInfo, TrainingEvent } from '../../core/api/types.js';
import { createWorkbench, type Workbench } from '../../core/workbench/index.js';
import { listPolicyChoices, resolvePolicyChoice, trainableCheckpoint, type PolicyChoiceContext } from '../../core/workbench/policy-choices.js';
import { createModel } from '../../core/policy/builtin.js';
import { saveCheckpoint } from '../../core/policy/checkpoint.js';
import { exportPolicyOnnx } from '../../core/policy/onnx/index.js';
import { adapterPath, saveAdapter, sha256Hex } from '../../core/policy/adapter-file.js';
import { ScorerAdapter } from '../../core/policy/adapter.js';
import { AdaptedPolicy } from '../../core/policy/adapter-policy.js';
import { createPolicy } from '../../core/policy/registry.js';
import { createRng } from '../../core/util/rng.js';
import { listRuns, type RunId } from '../../core/store/index.js';

/**
 * The one policy resolver (core/workbench/policy-choices.ts) on a data folder holding every kind of
 * stored policy, and the places that choose a policy through the real bridge: listPolicies, an Agent
 * session on a checkpoint by name, GRPO init by name, and Evaluate (a worker) before/after.
 */
const CKPT = 'sft-2026-01-01T00-00-00-000Z';
const OTHER = 'grpo-other';

describe('policy choices', () => {
  let dir: string;
  let workbench: Workbench;
  let api: WorkbenchApi;
  let ctx: PolicyChoiceContext;
  const trainingEvents: TrainingEvent[] = [];
  const evaluationEvents: EvaluationEvent[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'awb-policy-choices-'));
    const model = createModel(createRng('policy-choices/base'));
    mkdirSync(join(dir, 'checkpoints', CKPT), { recursive: true });
    saveCheckpoint(join(dir, 'checkpoints', CKPT, 'policy.json'), model);
    mkdirSync(join(dir, 'checkpoints', OTHER), { recursive: true });
    saveCheckpoint(join(dir, 'checkpoints', OTHER, 'policy.json'), createModel(createRng('policy-choices/other')));
    mkdirSync(join(dir, 'policies'));
    saveCheckpoint(join(dir, 'policies', 'reg.json'), model);
    exportPolicyOnnx(join(dir, 'policies', 'reg.onnx'), model);
    const sha = sha256Hex(readFileSync(join(dir, 'checkpoints', CKPT, 'policy.json')));
    saveAdapter(adapterPath(join(dir, 'adapters'), sha, 'Clock'), {
      app: 'Clock', package: 'com.google.android.deskclock', baseSha256: sha, meta: {},
      adapter: ScorerAdapter.init({ kind: 'lowrank', rank: 2 }, model.net.dims, createRng('policy-choices/adapter')),
    });
    ctx = { dataDir: dir, vlmProfiles: () => [], vlmSpec: (p) => { throw new Error(`no profile ${p}`); } };
    workbench = await createWorkbench({ dataDir: dir, adb: false });
    const [client, server] = channelPair();
    serveApi(workbench, server);
    api = connectApi<WorkbenchApi>(client);
    api.onTraining({}, (e) => trainingEvents.push(e));
    api.onEvaluation({}, (e) => evaluationEvents.push(e));
  });

  afterAll(async () => {
    await workbench.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function until<T>(what: string, get: () => T | undefined | Promise<T | undefined>, ms = 60_000): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      const v = await get();
      if (v !== undefined) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('lists every stored kind once, saying which can be trained from and evaluated', () => {
    const byName = Object.fromEntries(listPolicyChoices(ctx).map((c) => [c.name, c]));
    expect(byName[`checkpoint:${CKPT}`]).toMatchObject({ kind: 'checkpoint', trainable: true, evaluable: true, checkpoint: CKPT });
    expect(byName['checkpoint:reg.json']).toMatchObject({ kind: 'policy-file', trainable: true, evaluable: true });
    expect(byName['checkpoint:reg.onnx']).toMatchObject({ kind: 'onnx', trainable: false, evaluable: true });
    expect(byName[`adapter:${CKPT}/clock`]).toMatchObject({ kind: 'adapter', trainable: false, evaluable: true, checkpoint: CKPT, app: 'Clock' });
    expect(byName.manual).toMatchObject({ kind: 'builtin', evaluable: false });
    expect(byName[`adapter:${OTHER}/clock`]).toBeUndefined();
  });

  it('resolves each name to its spec; an adapter applies to its app\'s screens', () => {
    const ckpt = join(dir, 'checkpoints', CKPT, 'policy.json');
    expect(resolvePolicyChoice(ctx, `checkpoint:${CKPT}`)).toEqual({ name: 'builtin', checkpoint: ckpt, policyName: `checkpoint:${CKPT}` });
    expect(resolvePolicyChoice(ctx, 'checkpoint:reg.onnx')).toMatchObject({ name: 'onnx', model: join(dir, 'policies', 'reg.onnx') });
    const adapted = resolvePolicyChoice(ctx, `adapter:${CKPT}/clock`);
    expect(adapted).toMatchObject({ name: 'builtin-adapted', checkpoint: ckpt, home: 'task-app' });
    const policy = createPolicy(adapted, { task: { templateId: 'ClockStopWatchRunning', seed: 0 } });
    expect(policy).toBeInstanceOf(AdaptedPolicy);
    expect((policy as AdaptedPolicy).adapterFor('com.google.android.deskclock')).toBe('Clock');
    expect((policy as AdaptedPolicy).adapterFor('com.android.settings')).toBeNull();
  });

  it('refuses bad names with PolicyChoiceError carrying the name', () => {
    for (const bad of ['checkpoint:nope', 'checkpoint:../etc', 'checkpoint:missing.json', `adapter:${OTHER}/clock`, 'adapter:x', 'vlm:none', 'bogus']) {
      expect(() => resolvePolicyChoice(ctx, bad), bad).toThrow(expect.objectContaining({ name: 'PolicyChoiceError', policy: bad }));
    }
  });

  it('names what training starts from: a bare checkpoint name, a choice, a registered .json, a path; not an ONNX export or an adapter', () => {
    const ckpt = join(dir, 'checkpoints', CKPT, 'policy.json');
    expect(trainableCheckpoint(dir, CKPT)).toBe(ckpt);
    expect(trainableCheckpoint(dir, `checkpoint:${CKPT}`)).toBe(ckpt);
    expect(trainableCheckpoint(dir, 'checkpoint:reg.json')).toBe(join(dir, 'policies', 'reg.json'));
    expect(trainableCheckpoint(dir, ckpt)).toBe(ckpt);
    expect(() => trainableCheckpoint(dir, 'checkpoint:reg.onnx')).toThrow(/\.onnx export cannot be trained/);
    expect(() => trainableCheckpoint(dir, `adapter:${CKPT}/clock`)).toThrow(expect.objectContaining({ name: 'PolicyChoiceError' }));
    expect(() => trainableCheckpoint(dir, 'no-such-run')).toThrow(expect.objectContaining({ name: 'PolicyChoiceError', policy: 'no-such-run' }));
  });

  it('listPolicies carries the same choices through the bridge, and an Agent session runs a checkpoint by name', async () => {
    const names = (await api.listPolicies()).map((p) => p.name);
    expect(names).toEqual(listPolicyChoices(ctx).map((c) => c.name));
    const s = await api.startSession({ serial: 'simdroid-1', templateId: 'SystemWifiTurnOn', seed: 0, policy: `checkpoint:${CKPT}`, run: true, maxSteps: 2 });
    const done = await until<SessionInfo>('the session', async () => {
      const info = await api.getSession({ sessionId: s.id });
      return info.result ? info : undefined;
    });
    expect(done.policy).toBe(`checkpoint:${CKPT}`);
    expect(done.steps.length).toBeGreaterThan(0);
    await expect(api.startSession({ serial: 'simdroid-1', templateId: 'SystemWifiTurnOn', seed: 0, policy: 'checkpoint:nope' }))
      .rejects.toMatchObject({ name: 'PolicyChoiceError' });
  });

  it('GRPO init takes a checkpoint by the name Training lists (was refused as "no such checkpoint file")', async () => {
    await expect(api.startTraining({ kind: 'grpo', config: { init: 'no-such-run' } }))
      .rejects.toMatchObject({ name: 'TrainingConfigError', message: expect.stringContaining('init: Policy "no-such-run": no checkpoint "no-such-run"') });
    const job = await api.startTraining({ kind: 'grpo', config: { init: CKPT, iterations: 1, instancesPerIteration: 1, rolloutsPerInstance: 2, maxSteps: 2, devices: 1 } });
    expect(job.config.init).toBe(join(dir, 'checkpoints', CKPT, 'policy.json'));
    const end = await until<JobInfo>('the GRPO job', () => trainingEvents.find((e) => e.job.id === job.id && ['finished', 'failed'].includes(e.job.state))?.job);
    expect(end.error).toBeNull();
    expect(end.state).toBe('finished');
  });

  it('Evaluate runs a before and an after in a worker: progress with an ETA, reports per app and difficulty, deltas, awb eval\'s store runs', async () => {
    await expect(api.startEvaluation({ policy: 'manual', limit: 1, seeds: [30] })).rejects.toMatchObject({ name: 'EvaluationInputError' });
    await expect(api.startEvaluation({ policy: 'checkpoint:nope', limit: 1, seeds: [30] })).rejects.toMatchObject({ name: 'PolicyChoiceError', message: expect.stringContaining('"checkpoint:nope"') });
    const started = await api.startEvaluation({ before: 'oracle', policy: `checkpoint:${CKPT}`, limit: 1, seeds: [30, 7] });
    expect(started).toMatchObject({ state: 'running', policies: ['oracle', `checkpoint:${CKPT}`], total: 4, done: 0 });
    const end = await until<EvaluationInfo>('the evaluation', () => evaluationEvents.find((e) => e.evaluation.id === started.id && e.evaluation.state !== 'running')?.evaluation);
    expect(end.error).toBeNull();
    expect(end).toMatchObject({ state: 'finished', done: 4, etaSeconds: 0 });
    const progress = evaluationEvents.filter((e) => e.kind === 'progress' && e.evaluation.id === started.id).map((e) => e.evaluation);
    expect(progress.map((p) => p.done)).toEqual([1, 2, 3, 4]);
    expect(progress[0]!.etaSeconds).not.toBeNull();
    const [before, after] = end.results;
    expect(before!.policy).toBe('oracle');
    expect(before!.report.overall.mean).toBe(1); // the oracle solves its task
    const app = Object.keys(after!.report.byApp)[0]!;
    expect(Object.keys(after!.report.byDifficulty)).toHaveLength(1);
    expect(end.deltas!.byApp[app]).toBeCloseTo(after!.report.byApp[app]!.mean - before!.report.byApp[app]!.mean);
    expect(end.deltas!.overall).toBeCloseTo(after!.report.overall.mean - 1);
    // The same store runs as `awb eval`: a 'suite' run per seed with eval: true, holding its episodes.
    const runs = listRuns(workbench.db).filter((r) => after!.runs.some((x) => x.runId === r.id));
    expect(runs.map((r) => [r.kind, r.config.eval, r.config.policy, r.config.seed, r.status])).toEqual(
      expect.arrayContaining([['suite', true, 'builtin', 30, 'finished'], ['suite', true, 'builtin', 7, 'finished']]),
    );
    const page = await api.listEpisodes({ runId: after!.runs[0]!.runId as RunId });
    expect(page.total).toBe(1);
    expect(page.rows[0]!.policy).toBe(`checkpoint:${CKPT}`);
  });
});
