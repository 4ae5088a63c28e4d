import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimDroid } from '../../emulators/simdroid/simdroid.js';
import { runCli as run } from '../helpers/cli.js';
import { BundleError, RemoteJobStateError } from '../../core/remote-jobs/errors.js';
import { prepareBundle } from '../../core/remote-jobs/prepare.js';
import { registerRewardModel, RewardModelRejectedError } from '../../core/remote-jobs/register-reward.js';
import { RemoteJobs } from '../../core/remote-jobs/remote.js';
import { RemoteJobsHost } from '../../core/workbench/remote-jobs.js';
import { decodeFeatures } from '../../core/remote-jobs/steps.js';
import { readTar } from '../../core/util/tar.js';
import { deserializeProgressModel, serializeProgressModel } from '../../core/rewards/progrm/checkpoint.js';
import { loadProgRm } from '../../core/rewards/progrm/fit.js';
import { parseProgressTrainConfig, trainProgressModel } from '../../core/rewards/progrm/train.js';
import { deserializeJudge, featureMatrix, loadJudge, parseJudgeTrainConfig, serializeJudge, trainJudge } from '../../core/rewards/shepherd/builtin.js';
import { collectJudgeFitSteps, createFitJudgeModel } from '../../core/rewards/shepherd/fit.js';
import { openStore, type WritableDB } from '../../core/store/db.js';
import { insertRemoteJob, updateRemoteJob } from '../../core/store/remote-jobs.js';
import { TASKS } from '../../core/tasks/registry.js';
import { splitInstances } from '../../core/tasks/splits.js';
import { createProgressModel } from '../../core/rewards/progrm/model.js';
import { createRng } from '../../core/util/rng.js';
import { scratch } from './fixture.js';

/**
 * progrm / prm bundles without a trainer: they hold exactly what `awb rewards fit` trains on (training
 * the bundle's init on its samples in TypeScript gives the fit's checkpoint bit for bit), the
 * refusals, and registering a downloaded model.json (no service: the job record is written directly).
 */
const tmp = scratch('awb-reward-bundles-');
const saved = process.env.AWB_HOME;
let home: string;
beforeAll(() => {
  home = tmp.dir();
  process.env.AWB_HOME = home;
});
afterAll(() => {
  if (saved === undefined) delete process.env.AWB_HOME;
  else process.env.AWB_HOME = saved;
  tmp.cleanup();
});

// The first two instances of unseen-instance/train are one template at two seeds: `--limit 2` for the job,
// `--templates T --seeds a,b` for the local fit.
const first = splitInstances(TASKS, 'unseen-instance', 'train').slice(0, 2);
const fitSelection = ['--templates', first[0]!.template.id, '--seeds', first.map((i) => i.seed).join(',')];

function bundleFiles(file: string) {
  const tar = readTar(readFileSync(file));
  const samples = tar.get('samples.jsonl')!.toString('utf8').trim().split('\n').map((l) => JSON.parse(l) as { features: string; label: number });
  return { tar, samples, init: tar.get('init/model.json')!.toString('utf8') };
}

describe('progrm / prm bundles hold what awb rewards fit trains on', () => {
  it('progrm: the fit checkpoint is the bundle init trained on the bundle samples (bit for bit), with the recipe library in its meta', async () => {
    expect(first[1]!.template.id).toBe(first[0]!.template.id);
    const seed = 3;
    const perturbations = [0, 0.3];
    const p = await prepareBundle({
      kind: 'progrm', file: join(tmp.dir(), 'progrm.tar'), createdAt: 1_700_000_000_000, seed, split: { split: 'unseen-instance', part: 'train' }, limit: 2,
      rewards: { source: 'lcs', perturbations, hidden: 8 },
    });
    expect(p.instances).toBe(2);
    expect(p.bundle.manifest).toMatchObject({ kind: 'progrm', counts: { samples: expect.any(Number), steps: 0 } });
    const { samples, init } = bundleFiles(p.bundle.file);
    expect(samples.length).toBe(p.bundle.manifest.counts.samples);
    const start = deserializeProgressModel(init, 'init/model.json');
    expect(start.model.net.dims).toEqual({ input: 4 * 64 + 2, hidden: 8 });
    // The fresh model is the fit's: seeded by progrm-fit/<seed>.
    expect(Array.from(start.model.net.params)).toEqual(Array.from(createProgressModel(createRng(`progrm-fit/${seed}`), { hidden: 8 }).net.params));

    const fast = join(tmp.dir(), 'fast.json');
    writeFileSync(fast, JSON.stringify({ epochs: 4 }));
    const out = join(tmp.dir(), 'fit.json');
    const fit = await run('rewards', 'fit', 'progrm', ...fitSelection, '--perturbations', '0,0.3', '--hidden', '8', '--seed', String(seed), '--config', fast, '--out', out, '--json');
    expect(fit.code, fit.err).toBe(0);

    trainProgressModel(start.model, samples.map((s) => ({ x: decodeFeatures(s.features), y: s.label })), parseProgressTrainConfig({ epochs: 4 }));
    const fitted = loadProgRm(out);
    expect(Array.from(start.model.net.params)).toEqual(Array.from(fitted.model.net.params));
    expect(start.meta.library).toEqual(fitted.meta.library);
    expect(Object.keys(start.meta.library as object).length).toBeGreaterThan(0);
    expect(start.meta).toMatchObject({ source: 'lcs', annotate: fitted.meta.annotate, seed, perturbations });
  }, 60_000);

  it('prm: the bundle rows are the judge features of the steps the fit trains on, and its init is the fit seed judge', async () => {
    const seed = 2;
    const p = await prepareBundle({
      kind: 'prm', file: join(tmp.dir(), 'prm.tar'), createdAt: 1_700_000_000_000, seed, split: { split: 'unseen-instance', part: 'train' }, limit: 2,
      rewards: { hidden: 0, deviations: 2 },
    });
    const { samples, init } = bundleFiles(p.bundle.file);
    const start = deserializeJudge(init, 'init/model.json').model;

    const fast = join(tmp.dir(), 'fast-judge.json');
    writeFileSync(fast, JSON.stringify({ epochs: 5 }));
    const out = join(tmp.dir(), 'judge.json');
    const fit = await run('rewards', 'fit', 'shepherd', ...fitSelection, '--hidden', '0', '--deviations', '2', '--seed', String(seed), '--config', fast, '--out', out, '--json');
    expect(fit.code, fit.err).toBe(0);

    // The shared collection, trained as the CLI trains, gives the CLI's checkpoint…
    const device = new SimDroid({ serial: 'simdroid-test' });
    const steps = await collectJudgeFitSteps(device, first, { seed, deviations: 2, part: 'train' }).finally(() => device.close());
    const model = createFitJudgeModel(seed, 0);
    expect(Array.from(start.net.params)).toEqual(Array.from(model.net.params));
    const x = featureMatrix(model, steps.steps);
    trainJudge(model, steps.steps, parseJudgeTrainConfig({ epochs: 5 }));
    expect(Array.from(model.net.params)).toEqual(Array.from(loadJudge(out).model.net.params));
    // … and the bundle carries those steps: one row of judge features and the label each.
    const F = start.net.dims.input;
    expect(samples.map((s) => s.label)).toEqual(steps.steps.map((s) => s.label));
    expect(samples.map((s) => Array.from(decodeFeatures(s.features)))).toEqual(steps.steps.map((_, r) => Array.from(x.subarray(r * F, (r + 1) * F))));
    expect(new Set(samples.map((s) => s.label))).toEqual(new Set([0, 1]));
  }, 60_000);

  it('refuses stored episodes, --init, the test part and the other kind\'s settings, naming them', async () => {
    const file = join(tmp.dir(), 'x.tar');
    const base = { file, createdAt: 0, seed: 0, limit: 1 } as const;
    await expect(prepareBundle({ ...base, kind: 'progrm', split: { split: 'unseen-instance', part: 'test' } })).rejects.toThrow(BundleError);
    await expect(prepareBundle({ ...base, kind: 'prm', init: join(home, 'nope.json') })).rejects.toThrow(/--init is for the builtin policy kinds/);
    await expect(prepareBundle({ ...base, kind: 'prm', rewards: { source: 'env' } })).rejects.toThrow(/--source and --perturbations are progrm settings/);
    await expect(prepareBundle({ ...base, kind: 'progrm', rewards: { hidden: 0 } })).rejects.toThrow(/at least 1 hidden unit/);

    const cli = (...a: string[]) => run('jobs', 'submit', '--trainer', 'nobody', ...a);
    expect(await cli('--kind', 'builtin-sft', '--source', 'env')).toMatchObject({ code: 2, err: expect.stringContaining('--source is not a builtin-sft setting') });
    expect(await cli('--kind', 'progrm', '--deviations', '2')).toMatchObject({ code: 2, err: expect.stringContaining('--deviations is not a progrm setting (progrm takes --source, --perturbations, --hidden)') });
    expect(await cli('--kind', 'prm', '--episodes', '1,2')).toMatchObject({ code: 2, err: expect.stringContaining('no --episodes') });
    expect(await cli('--kind', 'progrm', '--from-split', 'unseen-app:test')).toMatchObject({ code: 2, err: expect.stringContaining('unseen-app:test') });
    expect(await cli('--kind', 'progrm', '--perturbations', '0,1.5')).toMatchObject({ code: 2, err: expect.stringContaining('"1.5"') });
  });
});

describe('registering a progrm / prm model.json', () => {
  let db: WritableDB;
  let jobs: RemoteJobs;
  beforeAll(() => {
    db = openStore(':memory:');
    jobs = new RemoteJobs({ db, dataDir: home });
  });
  afterAll(() => db?.close());

  /** A finished job record with `model.json` downloaded to `file`. */
  function downloaded(kind: string, remoteId: string, text: string | null) {
    const row = insertRemoteJob(db, { trainer: 'box', idempotencyKey: remoteId, kind, name: null, datasetSha256: 'a'.repeat(64), datasetSize: 1, config: {}, createdAt: 0 });
    const path = join(tmp.dir(), 'model.json');
    if (text !== null) writeFileSync(path, text);
    return updateRemoteJob(db, row.id, { remoteId, status: 'succeeded', artifacts: text === null ? [] : [{ name: 'model.json', path, sha256: 'b'.repeat(64), size: text.length }] });
  }

  it('copies a loadable model under a versioned name beside the default and records it; the reward config entry names it', () => {
    const progress = createProgressModel(createRng('reg/progrm'), { hidden: 4 });
    const a = downloaded('progrm', 'j-p1', serializeProgressModel(progress, { source: 'lcs' }));
    const r = registerRewardModel(jobs, home, String(a.id));
    expect(r).toMatchObject({ kind: 'progrm', path: join(home, 'progrm', 'box-j-p1.json'), checkpoint: join('progrm', 'box-j-p1.json') });
    expect(r.component).toEqual({ kind: 'progrm', weight: 1, options: { checkpoint: join('progrm', 'box-j-p1.json') } });
    expect(r.job.policyPath).toBe(r.path);
    expect(Array.from(loadProgRm(r.path).model.net.params)).toEqual(Array.from(progress.net.params));

    const judge = createFitJudgeModel(0, 0);
    const b = downloaded('prm', 'j-j1', serializeJudge(judge));
    const s = registerRewardModel(jobs, home, 'j-j1');
    expect(s.path).toBe(join(home, 'shepherd', 'box-j-j1.json'));
    expect(s.component).toEqual({ kind: 'shepherd', weight: 1, options: { judge: { kind: 'builtin', checkpoint: join('shepherd', 'box-j-j1.json') } } });
    expect(b.id).not.toBe(a.id);
  });

  it('the workbench API registers a progrm / prm job\'s model the same way (the Jobs view\'s Register button), and a builtin job\'s policy still as a policy', () => {
    const host = new RemoteJobsHost({ db: () => db, dataDir: () => home, log: () => {} });
    const a = downloaded('prm', 'j-api', serializeJudge(createFitJudgeModel(0, 0)));
    const info = host.registerPolicy(a.id as number);
    expect(info.policyPath).toBe(join(home, 'shepherd', 'box-j-api.json'));
    expect(loadJudge(info.policyPath!).model).toBeTruthy();
    const b = downloaded('builtin-sft', 'j-api-sft', '{}');
    expect(() => host.registerPolicy(b.id as number)).toThrow(/policy\.json/);
  });

  it('refuses (RewardModelRejectedError, nothing copied) a file the component loader rejects, and a job without model.json', () => {
    // A judge where a progress model is expected: the loader's format check names the problem.
    downloaded('progrm', 'j-bad', serializeJudge(createFitJudgeModel(0)));
    const err = (() => {
      try {
        registerRewardModel(jobs, home, 'j-bad');
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(RewardModelRejectedError);
    expect(err).toMatchObject({ ref: 'j-bad', kind: 'progrm', message: expect.stringMatching(/j-bad \(progrm\).*not registered.*format/) });
    expect(() => loadProgRm(join(home, 'progrm', 'box-j-bad.json'))).toThrow(/cannot read/);

    downloaded('prm', 'j-none', null);
    expect(() => registerRewardModel(jobs, home, 'j-none')).toThrow(RemoteJobStateError);
    downloaded('builtin-sft', 'j-sft', '{}');
    expect(() => registerRewardModel(jobs, home, 'j-sft')).toThrow(/is a builtin-sft job, not progrm or prm/);
  });

  it('awb jobs register prints the registered file and its reward config component; a rejected model.json exits 2 with the named error', async () => {
    const dbFile = join(tmp.dir(), 'store.db');
    const fileDb = openStore(dbFile);
    const record = (remoteId: string, text: string) => {
      const row = insertRemoteJob(fileDb, { trainer: 'box', idempotencyKey: remoteId, kind: 'prm', name: null, datasetSha256: 'a'.repeat(64), datasetSize: 1, config: {}, createdAt: 0 });
      const path = join(tmp.dir(), 'model.json');
      writeFileSync(path, text);
      updateRemoteJob(fileDb, row.id, { remoteId, status: 'succeeded', artifacts: [{ name: 'model.json', path, sha256: 'b'.repeat(64), size: 1 }] });
    };
    try {
      record('j-cli', '{"format":"awb-shepherd-judge","version":1}');
      record('j-ok', serializeJudge(createFitJudgeModel(1)));
    } finally {
      fileDb.close();
    }
    const r = await run('jobs', 'register', 'j-cli', '--db', dbFile);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^awb: Remote job j-cli \(prm\): .*model\.json is not a model the shepherd judge can load/);
    const ok = await run('jobs', 'register', 'j-ok', '--db', dbFile);
    expect(ok.code, ok.err).toBe(0);
    const file = join(home, 'shepherd', 'box-j-ok.json');
    expect(ok.out.split('\n')[0]).toBe(`registered ${file}`);
    expect(ok.out).toContain(JSON.stringify({ kind: 'shepherd', weight: 1, options: { judge: { kind: 'builtin', checkpoint: join('shepherd', 'box-j-ok.json') } } }));
    expect((await run('jobs', 'list', '--db', dbFile)).out).toContain(file);
  });
});
