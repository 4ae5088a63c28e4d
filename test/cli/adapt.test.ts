import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newestCheckpoint, progressText } from '../../core/cli/adapt.js';
import { main } from '../../core/cli/main.js';
import { adapterPath, loadAdapters, loadBasePolicy } from '../../core/policy/adapter-file.js';
import { createModel } from '../../core/policy/builtin.js';
import { saveCheckpoint } from '../../core/policy/checkpoint.js';
import type { AdaptationReport } from '../../core/rl/adapt.js';
import { createRng } from '../../core/util/rng.js';

const capture = () => {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) } };
};

const home = mkdtempSync(join(tmpdir(), 'awb-adapt-cli-'));
const policy = join(home, 'base.json');
const saved = process.env.AWB_HOME;
beforeAll(() => {
  process.env.AWB_HOME = home; // adapters and the default checkpoint go to the test's own data folder
  saveCheckpoint(policy, createModel(createRng('adapt-cli/base')));
});
afterAll(() => {
  if (saved === undefined) delete process.env.AWB_HOME;
  else process.env.AWB_HOME = saved;
  rmSync(home, { recursive: true, force: true });
});

async function run(...argv: string[]) {
  const c = capture();
  const code = await main(['adapt', ...argv], c.io);
  return { code, out: c.out, err: c.err.join('\n') };
}

describe('awb adapt', () => {
  it.each([
    [['--policy', 'x.json'], /--app is required/],
    [['--app', 'Nope', '--policy', 'x.json'], /Unknown app "Nope" for adaptation; choose one of Audio Recorder, Broccoli, Calendar, Clock/],
    [['--app', 'Clock', '--shots', 'abc'], /--shots must be a non-negative integer/],
    [['--app', 'Clock', '--shots', '0'], /--shots: .*≥ 1/],
    [['--app', 'Clock', '--rank', '0'], /--rank/],
    [['--app', 'Clock', '--iterations', '-3'], /--iterations/],
    [['--app', 'Clock', '--method', 'ppo'], /--method/],
    [['--app', 'Clock', '--kind', 'full'], /--kind/],
    [['--app', 'Clock', '--from-episodes', '1,x'], /--from-episodes must be a comma-separated list/],
    [['--app', 'Clock', '--policy', 'missing.json'], /cannot read/],
    [['--app', 'Clock', '--policy', policy, '--shots', '500'], /Cannot pick 500 adaptation instances for Clock: shots must be an integer from 1 to \d+/],
    [['--app', 'Clock', '--policy', policy, '--rank', '999'], /rank/],
    [['--app', 'Clock', 'extra'], /Unexpected "extra"/],
    [['--app', 'Clock', '--policy', policy, '--from-episodes', '999', '--db', join(home, 'store.db')], /Cannot use these episodes as demonstrations:\n {2}- episode 999: /],
  ])('refuses %j with exit 2', async (argv, message) => {
    const r = await run(...argv);
    expect(r.err).toMatch(message);
    expect(r.code).toBe(2);
  });

  it('without --policy takes the newest checkpoint of the data folder, and says so when there is none', async () => {
    expect(newestCheckpoint(home)).toBeNull();
    const r = await run('--app', 'Clock');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--policy is required: no checkpoint under .*checkpoints/);
    mkdirSync(join(home, 'checkpoints', 'sft-1'), { recursive: true });
    writeFileSync(join(home, 'checkpoints', 'sft-1', 'policy.json'), '{}');
    expect(newestCheckpoint(home)).toBe(join(home, 'checkpoints', 'sft-1', 'policy.json'));
    expect((await run('--app', 'Clock')).err).toMatch(/Bad policy checkpoint .*sft-1/); // it was picked up (and is not a valid checkpoint)
  });

  it('runs before → adapt → after on a tiny budget, prints a progress line per iteration, saves the adapter per app', async () => {
    const config = join(home, 'tiny.json');
    writeFileSync(config, JSON.stringify({ grpo: { instancesPerIteration: 1, rolloutsPerInstance: 2, maxSteps: 3, devices: 2 } }));
    const r = await run('--app', 'broccoli', '--policy', policy, '--shots', '2', '--iterations', '2', '--eval-seeds', '30', '--config', config, '--kind', 'head');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out[0]).toMatch(/^Adapting Broccoli \(com\.flauschcode\.broccoli, unseen-app regime\) from /);
    expect(r.out.filter((l) => l.startsWith('grpo '))).toEqual([expect.stringMatching(/^grpo 1\/2 {2}success /), expect.stringMatching(/^grpo 2\/2 {2}success /)]);
    // Every test episode of the app's templates (one eval seed each) failed before adapting.
    const episodes = /^before: (\d+) test episodes done$/.exec(r.out.find((l) => l.startsWith('before: ')) ?? '')?.[1];
    expect(Number(episodes)).toBeGreaterThan(0);
    expect(r.out).toContain(`Before  0.0%  (0/${episodes})`);
    expect(r.out.some((l) => /^Delta {3}\+0\.0 points/.test(l))).toBe(true);
    expect(r.out.some((l) => l.startsWith('Note: every GRPO group had equal outcomes'))).toBe(true);
    const sha = loadBasePolicy(policy).sha256;
    const file = adapterPath(join(home, 'adapters'), sha, 'Broccoli');
    expect(r.out.at(-1)).toBe(`Adapter: head, ${2 * 24 + createModel(createRng('x')).net.dims.input} parameters, saved to ${file}`);
    expect(loadAdapters(join(home, 'adapters'), sha).get('com.flauschcode.broccoli')!.adapter.spec).toEqual({ kind: 'head' });

    const j = await run('--app', 'Tasks', '--policy', policy, '--shots', '1', '--iterations', '1', '--eval-seeds', '7', '--config', config, '--out', join(home, 'tasks.json'), '--json');
    expect(j.code).toBe(0);
    const events = j.out.slice(0, -1).map((l) => JSON.parse(l) as { phase: string });
    expect(events.filter((e) => e.phase === 'grpo')).toHaveLength(1);
    const report = JSON.parse(j.out.at(-1)!) as AdaptationReport;
    expect(report).toMatchObject({ app: 'Tasks', regime: 'unseen-app', evalSeeds: [7], adapter: { kind: 'lowrank', rank: 4, path: join(home, 'tasks.json') } });
    expect(existsSync(join(home, 'tasks.json'))).toBe(true);
  }, 60_000);

  it('formats SFT progress every tenth epoch and the last', () => {
    const m = { epoch: 10, 'loss/nll': 0.5, 'acc/top1': 0.75, 'grad/norm': 1, steps: 4 };
    expect(progressText({ phase: 'sft', epoch: 10, epochs: 25, metrics: m })).toBe('sft 10/25  loss/nll 0.5000  acc/top1 75.0%');
    expect(progressText({ phase: 'sft', epoch: 11, epochs: 25, metrics: m })).toBeNull();
    expect(progressText({ phase: 'sft', epoch: 25, epochs: 25, metrics: m })).not.toBeNull();
  });
});
