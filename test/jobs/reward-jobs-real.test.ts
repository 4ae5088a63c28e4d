import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli as run } from '../helpers/cli.js';
import { decodeFeatures } from '../../core/remote-jobs/steps.js';
import { readTar } from '../../core/util/tar.js';
import { deserializeProgressModel } from '../../core/rewards/progrm/checkpoint.js';
import { loadProgRm } from '../../core/rewards/progrm/fit.js';
import { deserializeJudge, loadJudge } from '../../core/rewards/shepherd/builtin.js';
import type { SigmoidMlp } from '../../core/rewards/mlp.js';
import { TASKS } from '../../core/tasks/registry.js';
import { splitInstances } from '../../core/tasks/splits.js';
import { scratch, TOKEN } from './fixture.js';
import { PYTHON, realTrainerAvailability, startRealTrainer, TRAINER_ROOT, type RealTrainer } from './real-service.js';

/**
 * progrm and prm end to end through the real Python trainer (resources/trainer on loopback) and the
 * CLI: awb jobs submit --follow (bundle from awb rewards fit's collection, 2 instances) → download →
 * register → a reward config naming the registered file scores a recorded episode. Parity: the
 * trained model.json loads in TypeScript and its predictions on the bundle the job trained on (read
 * from the service's upload folder) equal torch's, computed by the trainer's own loader in a python
 * snippet, within 1e-5. Needs torch; skipped with the reason otherwise.
 */
const avail = realTrainerAvailability();
const skip = avail.service ?? avail.torch;
if (skip) console.log(`skipping the progrm / prm jobs against the real trainer: ${skip}`);

const tmp = scratch('awb-reward-jobs-');
const saved = process.env.AWB_HOME;
let service: RealTrainer;
let work: string;
let home: string;
let db: string;

/** σ(model(x)) per sample row, by the trainer's loader and torch (float64, as it trains). */
function torchPredictions(model: string, format: string, samples: string): number[] {
  const script = `
import base64, json, sys
import numpy as np, torch
from awb_trainer.jobs.sigmoid_mlp import load_mlp_checkpoint
model, _ = load_mlp_checkpoint(sys.argv[1], sys.argv[2], sys.argv[2] == "awb-shepherd-judge")
rows = [json.loads(l) for l in open(sys.argv[3], encoding="utf-8") if l.strip()]
x = torch.from_numpy(np.stack([np.frombuffer(base64.b64decode(r["features"]), dtype="<f4") for r in rows])).to(torch.float64)
with torch.no_grad():
    print(json.dumps(torch.sigmoid(model(x)).tolist()))
`;
  const r = spawnSync(PYTHON, ['-c', script, model, format, samples], { cwd: TRAINER_ROOT, env: { ...process.env, PYTHONPATH: TRAINER_ROOT, PYTHONDONTWRITEBYTECODE: '1' }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`torch predictions failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as number[];
}

const predictAll = (net: SigmoidMlp, rows: readonly Float32Array[]) => rows.map((x) => net.predict(x));

describe.skipIf(skip !== null)('progrm / prm jobs against the real trainer service', () => {
  beforeAll(async () => {
    work = tmp.dir();
    home = tmp.dir();
    db = join(home, 'store.db');
    process.env.AWB_HOME = home;
    service = await startRealTrainer(work, TOKEN);
    const tokenFile = join(home, 'token');
    writeFileSync(tokenFile, TOKEN);
    expect((await run('jobs', 'trainers', 'add', 'local', '--url', service.url, '--token-file', tokenFile)).code).toBe(0);
    // One recorded episode for the registered models to score: an oracle run of a fitted template at a test seed.
    const template = splitInstances(TASKS, 'unseen-instance', 'train')[0]!.template.id;
    const rec = await run('run', '--task', template, '--seed', '30', '--policy', 'oracle', '--db', db);
    expect(rec.code, rec.err).toBe(0);
  }, 60_000);
  afterAll(async () => {
    await service?.stop();
    if (saved === undefined) delete process.env.AWB_HOME;
    else process.env.AWB_HOME = saved;
    tmp.cleanup();
  });

  it('trainers add checks the real service first: a wrong token is refused by it in one line (nothing saved), the right one was saved above', async () => {
    const wrong = await run('jobs', 'trainers', 'add', 'wrong', '--url', service.url, '--token', 'not-the-token');
    expect(wrong.code).toBe(2);
    expect(wrong.err.trim()).toBe(`awb: Trainer "wrong" at ${service.url} did not answer GET /v1/health: it refused the token (HTTP 401). `
      + 'give the token the service printed when it started; or pass --save-anyway to keep a trainer that is off now');
    expect(JSON.parse((await run('jobs', 'trainers', 'list', '--json')).out)).toEqual([{ name: 'local', baseUrl: service.url, hasToken: true }]);
  });

  /** submit --follow → download → register; returns the job's record, the registration and the bundle the job trained on. */
  async function trainRemotely(kind: 'progrm' | 'prm', flags: string[], config: Record<string, unknown>) {
    const cfg = join(home, `${kind}-config.json`);
    writeFileSync(cfg, JSON.stringify(config));
    const sub = await run('jobs', 'submit', '--trainer', 'local', '--kind', kind, '--from-split', 'unseen-instance:train', '--limit', '2', '--seed', '1', ...flags, '--config', cfg, '--follow', '--db', db);
    expect(sub.code, `${sub.err}\n${sub.out}`).toBe(0);
    expect(sub.err).toMatch(new RegExp(`bundle [0-9a-f]{12}: \\d+ bytes, \\d+ samples from 2 instances`));
    expect(sub.out).toMatch(/status succeeded/);
    const job = (JSON.parse((await run('jobs', 'list', '--json', '--db', db)).out) as { id: number; kind: string; remoteId: string; datasetSha256: string }[]).find((j) => j.kind === kind)!;
    const dl = await run('jobs', 'download', String(job.id), '--db', db);
    expect(dl.code, dl.err).toBe(0);
    const reg = await run('jobs', 'register', String(job.id), '--json', '--db', db);
    expect(reg.code, reg.err).toBe(0);
    const registered = JSON.parse(reg.out) as { rewardModel: string; checkpoint: string; component: { kind: string } };
    const bundle = readTar(readFileSync(join(work, 'service', 'uploads', job.datasetSha256)));
    const samplesFile = join(home, `${kind}-samples.jsonl`);
    writeFileSync(samplesFile, bundle.get('samples.jsonl')!);
    const rows = bundle.get('samples.jsonl')!.toString('utf8').trim().split('\n').map((l) => decodeFeatures((JSON.parse(l) as { features: string }).features));
    return { job, registered, init: bundle.get('init/model.json')!.toString('utf8'), samplesFile, rows };
  }

  /** The reward config with only the registered component scores the recorded episode (every step a number). */
  async function scoresEpisode(component: { kind: string }) {
    const cfg = join(home, `reward-${component.kind}.json`);
    writeFileSync(cfg, JSON.stringify({ components: [component] }));
    const r = await run('rewards', 'compute', '--episode', '1', '--config', cfg, '--db', db, '--json');
    expect(r.code, r.err).toBe(0);
    const values = (JSON.parse(r.out) as { episodes: { breakdown: { byKind: Record<string, { value: number | null }[]> } }[] }).episodes[0]!.breakdown.byKind[component.kind]!;
    expect(values.length).toBeGreaterThan(0);
    for (const v of values) expect(Number.isFinite(v.value)).toBe(true);
    return values.map((v) => v.value!);
  }

  it('progrm: trained remotely, registered under progrm/, its predictions equal torch\'s, and the progrm reward scores with it', async () => {
    const { job, registered, init, samplesFile, rows } = await trainRemotely('progrm', ['--perturbations', '0,0.3', '--hidden', '8'], { epochs: 6, batchSize: 16, learningRate: 0.01, seed: 0 });
    expect(registered).toMatchObject({ rewardModel: join(home, 'progrm', `local-${job.remoteId}.json`), checkpoint: join('progrm', `local-${job.remoteId}.json`) });
    const trained = loadProgRm(registered.rewardModel);
    const start = deserializeProgressModel(init).model;
    expect(trained.model.net.dims).toEqual({ input: 258, hidden: 8 });
    expect(Array.from(trained.model.net.params)).not.toEqual(Array.from(start.net.params));
    // The trainer keeps the init's meta: the recipe library the reward's explanations name key steps from.
    expect(trained.library.size).toBeGreaterThan(0);
    expect(trained.meta).toMatchObject({ trainer: 'awb-trainer', job: job.remoteId, source: 'lcs' });

    const ts = predictAll(trained.model.net, rows);
    const torch = torchPredictions(registered.rewardModel, 'awb-progrm', samplesFile);
    expect(torch).toHaveLength(rows.length);
    const worst = Math.max(...ts.map((p, i) => Math.abs(p - torch[i]!)));
    expect(worst).toBeLessThanOrEqual(1e-5);
    expect(Math.max(...ts) - Math.min(...ts)).toBeGreaterThan(1e-3); // not a constant model, so the comparison says something

    await scoresEpisode(registered.component);
  }, 60_000);

  it('prm: trained remotely, registered under shepherd/, its predictions equal torch\'s, and the shepherd reward scores with it', async () => {
    const { job, registered, init, samplesFile, rows } = await trainRemotely('prm', ['--deviations', '2'], { epochs: 6, batchSize: 16, learningRate: 0.02, seed: 0 });
    expect(registered).toMatchObject({ rewardModel: join(home, 'shepherd', `local-${job.remoteId}.json`), checkpoint: join('shepherd', `local-${job.remoteId}.json`) });
    const trained = loadJudge(registered.rewardModel);
    expect(Array.from(trained.model.net.params)).not.toEqual(Array.from(deserializeJudge(init).model.net.params));

    const ts = predictAll(trained.model.net, rows);
    const torch = torchPredictions(registered.rewardModel, 'awb-shepherd-judge', samplesFile);
    expect(torch).toHaveLength(rows.length);
    expect(Math.max(...ts.map((p, i) => Math.abs(p - torch[i]!)))).toBeLessThanOrEqual(1e-5);
    expect(Math.max(...ts) - Math.min(...ts)).toBeGreaterThan(1e-3);

    const values = await scoresEpisode(registered.component);
    // mapping 'probability': each step's reward is the judge's P(correct).
    for (const v of values) expect(v).toBeGreaterThanOrEqual(0);
  }, 60_000);
});
