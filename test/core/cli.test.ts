import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../core/cli/main.js';
import { runCli as awb } from '../helpers/cli.js';
import { TASKS } from '../../core/tasks/registry.js';

// Recordings go to a fresh data folder, never the user's ~/.awb; temp folders are removed after.
const temps: string[] = [];
const tempDir = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  temps.push(d);
  return d;
};
beforeAll(() => {
  process.env.AWB_HOME = tempDir('awb-cli-');
  delete process.env.AWB_DB;
});
afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

describe('awb CLI', () => {
  it('prints a command\'s own help lines for --help / -h, exit 0', async () => {
    for (const flag of ['--help', '-h']) {
      const r = await awb('eval', flag);
      expect(r.code).toBe(0);
      expect(r.err).toBe('');
      expect(r.out).toMatch(/^Usage:\n {2}awb eval --policy/);
      expect(r.out).toContain('awb eval compare');
      expect(r.out).not.toContain('awb run ');
    }
    const run = await awb('run', '--task', 'X', '--help');
    expect(run.code).toBe(0);
    expect(run.out).toContain('--max-steps N');
  });

  it('lists templates as JSON', async () => {
    const r = await awb('tasks', 'list', '--json');
    expect(r.code).toBe(0);
    const list = JSON.parse(r.out) as Array<{ id: string; difficulty: string }>;
    expect(list.map((t) => t.id)).toEqual(TASKS.map((t) => t.id));
  });

  it('shows an instance', async () => {
    const r = await awb('tasks', 'show', 'SystemRenameDevice', '--seed', '4', '--json');
    expect(JSON.parse(r.out)).toMatchObject({ id: 'SystemRenameDevice', seed: 4, subgoals: expect.arrayContaining(['device renamed']) });
  });

  it('runs an oracle episode and saves a screenshot per step', async () => {
    const dir = tempDir('awb-shots-');
    const r = await awb('run', '--task', 'SystemWifiTurnOff', '--seed', '1', '--policy', 'oracle', '--json', '--screenshots', dir);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.out);
    expect(summary).toMatchObject({ template: 'SystemWifiTurnOff', success: true, terminatedBy: 'status', episode: expect.any(Number) });
    expect(readdirSync(dir)).toHaveLength(summary.steps);
    const shown = JSON.parse((await awb('episodes', 'show', String(summary.episode), '--json')).out);
    expect(shown.steps).toHaveLength(summary.steps);
    expect(shown.steps.at(-1).rewards.outcome.value).toBe(1);
  });

  it('replays a recorded episode, and lets a person drive one from the terminal', async () => {
    const first = JSON.parse((await awb('run', '--task', 'SystemRenameDevice', '--seed', '2', '--json')).out);
    const replay = JSON.parse((await awb('run', '--task', 'SystemRenameDevice', '--seed', '2', '--policy', 'replay', '--from', String(first.episode), '--json')).out);
    expect(replay).toMatchObject({ status: 'success', steps: first.steps, policy: 'replay' });
    const lines = ['{"action_type":"open_app","app_name":"Settings"}', 'nonsense', ''];
    const out: string[] = [];
    const code = await main(['run', '--task', 'SystemWifiTurnOff', '--seed', '1', '--policy', 'human', '--json'], {
      out: (l) => out.push(l), err: () => {}, readLine: async () => lines.shift() ?? null,
    });
    expect(code).toBe(0);
    const human = JSON.parse(out.at(-1)!);
    expect(human).toMatchObject({ policy: 'human', terminatedBy: 'policy_done', steps: 2 });
    expect(human.actions[1].error.name).toBe('ActionParseError');
    expect(out.some((l) => l.includes('[') && l.includes('"Settings"'))).toBe(true);
  });

  it('runs a suite part and summarises by app and difficulty', async () => {
    const r = await awb('suite', 'run', '--split', 'all', '--part', 'test', '--policy', 'oracle', '--limit', '5', '--json');
    expect(r.code).toBe(0);
    const s = JSON.parse(r.out);
    expect(s).toMatchObject({ episodes: 5, successes: 5, successRate: 1, errors: 0 });
    expect(Object.values(s.byApp as Record<string, { episodes: number }>).reduce((n, a) => n + a.episodes, 0)).toBe(5);
    const listed = JSON.parse((await awb('episodes', 'list', '--run', String(s.run), '--json')).out);
    expect(listed).toMatchObject({ total: 5, counts: { success: 5 } });
  });

  it('runs a suite over parallel devices and exports and imports its episodes', async () => {
    const r = JSON.parse((await awb('suite', 'run', '--split', 'unseen-app', '--part', 'test', '--policy', 'random', '--limit', '6', '--parallel', '2', '--screenshots', 'none', '--json')).out);
    expect(r).toMatchObject({ episodes: 6, parallel: 2, errors: 0 });
    const dir = tempDir('awb-export-');
    expect((await awb('episodes', 'export', '--run', String(r.run), '--out', dir)).out).toBe(`Exported 6 episodes to ${dir}`);
    const other = join(tempDir('awb-db-'), 'other.db');
    expect((await awb('episodes', 'import', dir, '--db', other)).out).toMatch(/^Imported 6 episodes as run \d+$/);
    expect((await awb('episodes', 'import', dir, '--db', other)).out).toBe('Imported 0 episodes (6 already there)');
  });

  it('shows and checks the splits', async () => {
    const show = await awb('splits', 'show', '--json');
    expect(JSON.parse(show.out)).toContainEqual(expect.objectContaining({ split: 'unseen-app', part: 'test' }));
    expect(await awb('splits', 'check')).toMatchObject({ code: 0, out: 'core/tasks/splits.json follows the rules.' });
  });

  it.each([
    [['run', '--task', 'NoSuchTask'], 'Unknown task template "NoSuchTask"'],
    [['run', '--task', 'SystemWifiTurnOn', '--seed', 'abc'], '--seed must be a non-negative integer'],
    [['run', '--task', 'SystemWifiTurnOn', '--policy', 'psychic'], '--policy'],
    [['run'], '--task is required'],
    [['suite', 'run', '--split', 'unseen-galaxy'], 'Unknown split "unseen-galaxy"'],
    [['frobnicate'], 'Unknown command "frobnicate"'],
    [['tasks', 'list', '--bogus'], "Unknown option '--bogus'"],
    [['suite', 'run', '--policy', 'psychic'], '--policy'],
    [['suite', 'run', '--parallel', '0'], '--parallel'],
    [['episodes', 'show', '999999'], 'No episode 999999'],
    [['episodes', 'show', 'x'], 'EPISODE_ID'],
    [['episodes', 'export', '--out', '/tmp/x'], 'Nothing selected'],
    [['run', '--task', 'SystemWifiTurnOn', '--policy', 'replay'], '--from'],
  ])('refuses bad input %j with exit code 2', async (argv, message) => {
    const r = await awb(...argv);
    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
  });
});
