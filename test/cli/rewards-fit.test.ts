import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../core/cli/main.js';
import { loadProgRm } from '../../core/rewards/progrm/fit.js';
import { loadJudge } from '../../core/rewards/shepherd/builtin.js';
import { tempDir } from '../store/helpers.js';

const capture = () => {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) } };
};

// Two templates of the unseen-instance split with ground-truth subgoals, two training seeds: a fit in a few seconds.
const SMALL = ['--templates', 'TasksAddTask,ContactsDeleteContact', '--seeds', '1,2'];

let tmp: ReturnType<typeof tempDir>;
let home: string;
let db: string;
let fast: string;
const before = process.env.AWB_HOME;
beforeAll(() => {
  tmp = tempDir('awb-rewards-fit-');
  home = join(tmp.dir, 'home');
  db = join(tmp.dir, 'store.db');
  fast = join(tmp.dir, 'fast.json');
  writeFileSync(fast, JSON.stringify({ epochs: 8 }));
  process.env.AWB_HOME = home;
});
afterAll(() => {
  if (before === undefined) delete process.env.AWB_HOME;
  else process.env.AWB_HOME = before;
  tmp.cleanup();
});

async function run(...args: string[]) {
  const c = capture();
  const code = await main(args, c.io);
  return { code, out: c.out, err: c.err.join('\n') };
}

/** Records one oracle episode of an instance that was not fitted on, and computes `kind` on it from the default checkpoint. */
async function rewardsOnRecordedEpisode(kind: string): Promise<{ value: number | null; explanation: string }[]> {
  if (!existsSync(db)) expect((await run('run', '--task', 'TasksAddTask', '--seed', '3', '--policy', 'oracle', '--db', db)).code).toBe(0);
  const r = await run('rewards', 'compute', '--episode', '1', '--components', kind, '--db', db, '--json');
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out[0]!).episodes[0].breakdown.byKind[kind];
}

describe('awb rewards fit progrm', () => {
  it('collects, trains, reports the held-out key-step error and writes the default checkpoint the reward then reads', async () => {
    const r = await run('rewards', 'fit', 'progrm', ...SMALL, '--perturbations', '0,0.3', '--config', fast, '--json');
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/^ProgRM \(lcs\): 4 instances of unseen-instance\/train x perturbations 0,0.3; 2 held out/);
    expect(r.err).toMatch(/collect: 4\/4 instances[\s\S]*collect held-out: 2\/2 instances[\s\S]*epoch 8\/8  loss\/bce/);
    const s = JSON.parse(r.out[0]!);
    const file = join(home, 'progrm', 'model.json');
    expect(s).toMatchObject({ checkpoint: file, source: 'lcs', instances: 4, heldOutInstances: 2, testSeeds: [30], trainEpisodes: { total: 8 }, heldOutEpisodes: { total: 4 } });
    expect(s.heldOut.keySteps).toBeGreaterThan(0);
    expect(s.heldOut.keyStepError).toBeGreaterThanOrEqual(0);
    expect(s.heldOut.keyStepError).toBeLessThan(0.5);
    expect(s.recipes).toBeGreaterThan(0);

    const { model, library, meta } = loadProgRm(file);
    expect(model.net.dims.hidden).toBe(32);
    expect(library.size).toBeGreaterThan(0);
    expect(meta).toMatchObject({ trainer: 'awb rewards fit progrm', source: 'lcs', config: { epochs: 8 }, heldOut: { keyStepError: s.heldOut.keyStepError } });

    const values = await rewardsOnRecordedEpisode('progrm');
    expect(values.length).toBeGreaterThan(2);
    for (const v of values) {
      expect(v.value).not.toBeNull();
      expect(v.explanation).toMatch(/^progress \d\.\d\d → \d\.\d\d/);
    }
    expect(values.some((v) => /key step \d+\/\d+ of recipe/.test(v.explanation))).toBe(true);
  });

  it('--source env labels from the ground truth (zero label error), to --out, and the same --seed gives the same parameters', async () => {
    const out = (n: number) => join(tmp.dir, `env-${n}.json`);
    const args = ['rewards', 'fit', 'progrm', ...SMALL, '--perturbations', '0.3', '--source', 'env', '--hidden', '8', '--config', fast, '--seed', '5', '--json'];
    const a = await run(...args, '--out', out(1));
    const b = await run(...args, '--out', out(2));
    expect(a.code, a.err).toBe(0);
    expect(b.code, b.err).toBe(0);
    const s = JSON.parse(a.out[0]!);
    expect(s).toMatchObject({ checkpoint: out(1), source: 'env', seed: 5, labels: { keyStepError: 0 } });
    expect(s.labels.keySteps).toBeGreaterThan(0);
    const m1 = loadProgRm(out(1)).model;
    expect(m1.net.dims.hidden).toBe(8);
    expect(m1.net.params).toEqual(loadProgRm(out(2)).model.net.params);
  });
});

describe('awb rewards fit shepherd', () => {
  it('trains the judge on oracle-labelled steps, reports held-out accuracy, and the shepherd reward reads the default checkpoint', async () => {
    const r = await run('rewards', 'fit', 'shepherd', ...SMALL, '--config', fast);
    expect(r.code, r.err).toBe(0);
    const file = join(home, 'shepherd', 'judge.json');
    expect(r.out.join('\n')).toMatch(/Labelled steps: \d+ fitted[\s\S]*Held-out accuracy: \d\.\d{3} [\s\S]*Checkpoint: /);
    expect(r.out.at(-1)).toBe(`Checkpoint: ${file}`);
    expect(r.err).toMatch(/collect: 4\/4 instances[\s\S]*epoch 8\/8  loss\/bce [\d.]+  acc\/train/);
    const { model, meta } = loadJudge(file);
    expect(model.net.dims.hidden).toBe(16);
    expect(meta).toMatchObject({ trainer: 'awb rewards fit shepherd', instances: 4, heldOut: { n: expect.any(Number) } });
    expect((meta.heldOut as { n: number }).n).toBeGreaterThan(0);

    const values = await rewardsOnRecordedEpisode('shepherd');
    expect(values.length).toBeGreaterThan(2);
    for (const v of values) {
      expect(v.value).toBeGreaterThan(0);
      expect(v.value).toBeLessThan(1);
      expect(v.explanation).toMatch(/P\(correct\) = /);
    }
  });

  it('--hidden 0 fits the logistic judge, --deviations caps the negatives per instance', async () => {
    const out = join(tmp.dir, 'logistic.json');
    const r = await run('rewards', 'fit', 'shepherd', ...SMALL, '--hidden', '0', '--deviations', '1', '--config', fast, '--out', out, '--json');
    expect(r.code, r.err).toBe(0);
    const s = JSON.parse(r.out[0]!);
    expect(s.trainSteps.steps - s.trainSteps.positives).toBe(4);
    expect(loadJudge(out).model.net.dims.hidden).toBe(0);
  });
});

describe('awb rewards fit: bad input', () => {
  it('refuses it with the bad value named, exit 2, before collecting anything', async () => {
    const file = join(tmp.dir, 'a-file');
    writeFileSync(file, 'x');
    mkdirSync(join(tmp.dir, 'a-folder'), { recursive: true });
    const badConfig = join(tmp.dir, 'bad.json');
    writeFileSync(badConfig, JSON.stringify({ epochs: 0, extra: 1 }));
    const cases: [string[], RegExp][] = [
      [['progrm', '--split', 'unseen-thing'], /Unknown split "unseen-thing"; choose one of unseen-instance/],
      [['shepherd', '--part', 'dev'], /Unknown split part "dev"/],
      [['progrm', '--part', 'test'], /--part test: the models are scored on the test part/],
      [['progrm', '--seeds', '1,two'], /--seeds: not a seed \(a non-negative integer\): "two"/],
      [['shepherd', '--test-seeds', '30,1.5'], /--test-seeds: not a seed.*"1.5"/],
      [['progrm', '--templates', 'NoSuchTemplate'], /--templates: "NoSuchTemplate" is not a template of unseen-instance\/train/],
      [['progrm', ...SMALL, '--out', join(file, 'model.json')], /--out .*a-file\/model\.json: cannot write in/],
      [['shepherd', ...SMALL, '--out', join(tmp.dir, 'a-folder')], /is a folder/],
      [['progrm', '--source', 'prm'], /--source: must be one of lcs, env, outcome \(got "prm"\)/],
      [['progrm', '--perturbations', '0,1.5'], /--perturbations: not a probability in \[0, 1\]: "1.5"/],
      [['progrm', '--config', badConfig], /--config .*bad\.json: epochs: .*>=1.*; .*extra/],
      [['shepherd', '--config', join(tmp.dir, 'missing.json')], /--config .*missing\.json: ENOENT/],
      [['progrm', '--hidden', '0'], /at least 1 hidden unit/],
      [['shepherd', '--deviations', '0'], /--deviations: at least 1/],
      [['progrm', 'extra'], /Unexpected "extra"/],
      [['orm'], /unknown model "orm"; choose progrm or shepherd/],
    ];
    for (const [args, message] of cases) {
      const r = await run('rewards', 'fit', ...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err, args.join(' ')).toMatch(message);
      expect(r.err, args.join(' ')).not.toMatch(/^collect/m);
    }
    expect(existsSync(join(tmp.dir, 'a-folder', 'judge.json'))).toBe(false);
  });

  it('awb rewards compute without a fitted model says which command trains one (exit 2, no stack trace)', async () => {
    if (!existsSync(db)) expect((await run('run', '--task', 'TasksAddTask', '--seed', '3', '--policy', 'oracle', '--db', db)).code).toBe(0);
    process.env.AWB_HOME = join(tmp.dir, 'empty-home');
    try {
      for (const kind of ['progrm', 'shepherd']) {
        const r = await run('rewards', 'compute', '--episode', '1', '--components', kind, '--db', db);
        expect(r.code).toBe(2);
        expect(r.err).toMatch(new RegExp(`empty-home/${kind}/(model|judge)\\.json(: cannot read|: fit one with \`awb rewards fit progrm\`)[\\s\\S]*awb rewards fit progrm\\|shepherd trains one`));
        expect(r.err).not.toMatch(/\n\s+at /);
      }
    } finally {
      process.env.AWB_HOME = home;
    }
  });

  it('prints its usage for --help, and awb rewards --help names both commands', async () => {
    const r = await run('rewards', 'fit', 'progrm', '--help');
    expect(r.code).toBe(0);
    expect(r.out.join('\n')).toMatch(/awb rewards fit progrm \[--source lcs\|env\|outcome\][\s\S]*--test-seeds/);
    const all = await run('rewards', '--help');
    expect(all.out.join('\n')).toMatch(/awb rewards compute[\s\S]*awb rewards fit shepherd/);
  });
});
