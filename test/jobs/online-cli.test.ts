import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli as run } from '../helpers/cli.js';
import { runOnlineGrpo } from '../../core/remote-jobs/online.js';
import { OnlineGrpoStoppedError } from '../../core/remote-jobs/online-errors.js';
import { TrainerProfiles } from '../../core/remote-jobs/profiles.js';
import { RemoteJobs } from '../../core/remote-jobs/remote.js';
import { openStore } from '../../core/store/db.js';
import { getRun } from '../../core/store/runs.js';
import { listIterationMetrics } from '../../core/store/training.js';
import { SimDroid } from '../../emulators/simdroid/simdroid.js';
import { GRPO_POOL, sftWarmStart } from '../helpers/grpo-fixture.js';
import { fastClient } from './fixture.js';
import { startFakeTrainer, type FakeTrainer } from '../helpers/fake-trainer.js';
import { TOKEN } from './fixture.js';

/**
 * `awb jobs grpo`: its usage, refusals of bad input, an iteration without signal, and a stop while a
 * job trains, against the TypeScript fake trainer (test/helpers/fake-trainer.ts: no Python needed).
 */
const home = mkdtempSync(join(tmpdir(), 'awb-online-cli-'));
const db = join(home, 'store.db');
const saved = process.env.AWB_HOME;
let fake: FakeTrainer;
/** A trainer whose epochs take a while, so a job is still running when the loop is stopped. */
let slow: FakeTrainer;

beforeAll(async () => {
  process.env.AWB_HOME = home;
  fake = await startFakeTrainer({ token: TOKEN });
  slow = await startFakeTrainer({ token: TOKEN, epochDelayMs: 50 });
});
afterAll(async () => {
  await fake.close();
  await slow.close();
  if (saved === undefined) delete process.env.AWB_HOME;
  else process.env.AWB_HOME = saved;
  rmSync(home, { recursive: true, force: true });
});

describe('awb jobs grpo', () => {
  it('--help prints its usage; awb jobs lists it', async () => {
    expect(await run('jobs', 'grpo', '--help')).toMatchObject({ code: 0, out: expect.stringMatching(/awb jobs grpo --trainer NAME --iterations N \[--policy builtin\|vlm\]/) });
    expect((await run('jobs', 'bogus')).err).toMatch(/awb jobs grpo --trainer NAME/);
  });

  it('refuses bad input with exit 2, naming the bad value, before any rollout', async () => {
    writeFileSync(join(home, 'token'), TOKEN);
    expect((await run('jobs', 'trainers', 'add', 'box', '--url', fake.url, '--token-file', join(home, 'token'))).code).toBe(0);
    const base = ['jobs', 'grpo', '--trainer', 'box', '--db', db];
    expect(await run(...base, '--iterations', '0')).toMatchObject({ code: 2, err: expect.stringMatching(/--iterations/) });
    expect(await run(...base, '--iterations', 'two')).toMatchObject({ code: 2, err: expect.stringMatching(/--iterations must be a non-negative integer/) });
    expect(await run(...base, '--iterations', '1', '--policy', 'magic')).toMatchObject({ code: 2, err: expect.stringMatching(/--policy.*"magic"|--policy/) });
    expect(await run(...base, '--iterations', '1', '--temperature', '0')).toMatchObject({ code: 2, err: expect.stringMatching(/--temperature/) });
    expect(await run(...base, '--iterations', '1', '--group-size', '1')).toMatchObject({ code: 2, err: expect.stringMatching(/--group-size/) });
    expect(await run(...base, '--iterations', '1', '--from-split', 'nowhere:train')).toMatchObject({ code: 2, err: expect.stringMatching(/Unknown split "nowhere"/) });
    expect(await run(...base, '--iterations', '1', '--policy', 'vlm', '--base-model', 'm')).toMatchObject({ code: 2, err: expect.stringMatching(/needs --endpoint PROFILE/) });
    expect(await run(...base, '--iterations', '1', '--policy', 'vlm', '--endpoint', 'nope', '--base-model', 'm')).toMatchObject({ code: 2, err: expect.stringMatching(/"nope"/) });
    expect(await run(...base, '--iterations', '1', '--policy', 'vlm', '--endpoint', 'e', '--init', 'x.json')).toMatchObject({ code: 2, err: expect.stringMatching(/--init is for --policy builtin/) });
    expect(await run(...base, '--iterations', '1', '--endpoint', 'e')).toMatchObject({ code: 2, err: expect.stringMatching(/--endpoint and --base-model are for --policy vlm/) });
    const bad = join(home, 'bad.json');
    writeFileSync(bad, JSON.stringify({ clipEps: 7 }));
    expect(await run(...base, '--iterations', '1', '--config', bad)).toMatchObject({ code: 2, err: expect.stringMatching(/Invalid builtin-grpo job config: clipEps/) });
    expect((await run('endpoints', 'add', 'e', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'served-vlm')).code).toBe(0);
    const owned = join(home, 'owned.json');
    writeFileSync(owned, JSON.stringify({ resumeFrom: 'job-7' }));
    expect(await run(...base, '--iterations', '1', '--policy', 'vlm', '--endpoint', 'e', '--base-model', 'm', '--config', owned))
      .toMatchObject({ code: 2, err: expect.stringMatching(/Online GRPO config.resumeFrom "job-7": is set by the loop/) });
    writeFileSync(owned, JSON.stringify({ publish: { baseUrl: 'http://elsewhere' } }));
    expect(await run(...base, '--iterations', '1', '--policy', 'vlm', '--endpoint', 'e', '--base-model', 'm', '--config', owned))
      .toMatchObject({ code: 2, err: expect.stringMatching(/config.publish .*only \{"apiKeyEnv": "VAR"\}/) });
    expect(await run(...base, '--iterations', '1', '--policy', 'vlm', '--endpoint', 'e', '--base-model', 'm', '--temperature', '0')).toMatchObject({ code: 2, err: expect.stringMatching(/--temperature/) });
    expect((await run('endpoints', 'add', 'turns', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'served-vlm', '--history-style', 'turns', '--history-images', '2')).code).toBe(0);
    // Earlier screenshots resent are trained on as the steps' images (each image part names its step): not refused,
    // the run gets as far as the trainer's health.
    expect(await run(...base, '--iterations', '1', '--policy', 'vlm', '--endpoint', 'turns', '--base-model', 'm'))
      .toMatchObject({ code: 2, err: expect.stringMatching(/cannot run vlm-grpo jobs/) });
    // the fake trainer runs builtin kinds only: refused after asking its health, before any rollout
    expect(await run(...base, '--iterations', '1', '--policy', 'vlm', '--endpoint', 'e', '--base-model', 'm'))
      .toMatchObject({ code: 2, err: expect.stringMatching(/Online GRPO trainer "box": cannot run vlm-grpo jobs \(it runs builtin-sft, builtin-grpo\)/) });
    expect(await run('jobs', 'grpo', '--trainer', 'nope', '--iterations', '1', '--db', db)).toMatchObject({ code: 2, err: expect.stringMatching(/Trainer profile "nope": not found/) });
    // Choosing templates: each must exist and have instances in the split part.
    expect(await run(...base, '--iterations', '1', '--templates', 'ClockStopwatchRun,Nope')).toMatchObject({ code: 2, err: expect.stringMatching(/--templates: unknown template "Nope"/) });
    expect(await run(...base, '--iterations', '1', '--from-split', 'unseen-app:train', '--templates', 'ClockStopwatchRun'))
      .toMatchObject({ code: 2, err: expect.stringMatching(/--templates: "ClockStopwatchRun" has no instance in unseen-app:train/) });
    expect(fake.jobs.size).toBe(0);
  });

  it('an iteration whose groups all have zero reward std submits nothing, says so on its line, and the run finishes', async () => {
    // A fresh builtin policy, two short rollouts of one instance: both fail, so the group has no spread.
    // --templates picks the instances (here the one template, first instance).
    const r = await run('jobs', 'grpo', '--trainer', 'box', '--iterations', '1', '--templates', 'ClockStopwatchRun', '--limit', '1', '--group-size', '2', '--max-steps', '2', '--seed', '1', '--db', db);
    expect(r.code, r.err).toBe(0);
    const store = openStore(db);
    const config = JSON.parse(store.prepare("SELECT config FROM runs WHERE kind = 'training' ORDER BY id DESC LIMIT 1").pluck().get() as string) as Record<string, unknown>;
    store.close();
    expect(config).toMatchObject({ source: 'unseen-instance:train, templates ClockStopwatchRun, limit 1', instances: 1 });
    expect(r.out).toMatch(/^iteration 1\/1: success 0%, reward 0\.000, 1 group\(s\) skipped; nothing submitted \(no reward spread\), policy stays fresh \(seed 1\)$/m);
    expect(r.out).toMatch(/^run \d+ finished: 0 job\(s\), 1 iteration\(s\) skipped; final policy fresh \(seed 1\)$/m);
    expect(fake.jobs.size).toBe(0);
    const list = JSON.parse((await run('jobs', 'list', '--json', '--db', db)).out) as unknown[];
    expect(list).toEqual([]);
  });

  it('a stop while the job trains cancels it on the trainer, ends the run interrupted, and writes no metrics for that iteration', async () => {
    const dataDir = mkdtempSync(join(home, 'stop-'));
    const profiles = new TrainerProfiles(dataDir);
    profiles.put({ name: 'slow', baseUrl: slow.url, token: TOKEN });
    const store = openStore(':memory:');
    const device = new SimDroid({ serial: 'simdroid-online-stop' });
    try {
      const init = await sftWarmStart(device, dataDir);
      const jobs = new RemoteJobs({ db: store, dataDir, profiles, clientFor: (p) => fastClient(p.baseUrl) });
      const stop = new AbortController();
      const err = await runOnlineGrpo({
        trainer: 'slow', iterations: 2, instances: GRPO_POOL, source: 'GRPO_POOL', groupSize: 4, temperature: 1, maxSteps: 8, seed: 3,
        config: { epochs: 200 }, policy: { kind: 'builtin', init },
      }, { jobs, dataDir }, { signal: stop.signal, onLog: (l) => { if (/job \S+ \(local \d+\) submitted/.test(l)) setTimeout(() => stop.abort(new Error('stop requested')), 50); } })
        .catch((e: unknown) => e);
      const [row] = jobs.list('slow');
      expect(err).toBeInstanceOf(OnlineGrpoStoppedError);
      expect(err).toMatchObject({ iteration: 1, jobId: row!.remoteId, message: `Online GRPO stopped in iteration 1 (job ${row!.remoteId} cancelled): stop requested` });
      await expect.poll(() => slow.jobs.get(row!.remoteId!)?.status, { timeout: 5000 }).toBe('cancelled');
      const runs = store.prepare("SELECT id FROM runs WHERE kind = 'training'").all() as Array<{ id: number }>;
      expect(getRun(store, runs[0]!.id as never).status).toBe('interrupted');
      expect(listIterationMetrics(store, runs[0]!.id as never)).toEqual([]);
    } finally {
      device.close();
      store.close();
    }
  }, 60_000);
});
