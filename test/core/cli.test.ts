import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../core/cli/main.js';
import { TASKS } from '../../core/tasks/registry.js';

async function awb(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('awb CLI', () => {
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
    const dir = mkdtempSync(join(tmpdir(), 'awb-shots-'));
    const r = await awb('run', '--task', 'SystemWifiTurnOff', '--seed', '1', '--policy', 'oracle', '--json', '--screenshots', dir);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.out);
    expect(summary).toMatchObject({ template: 'SystemWifiTurnOff', success: true, terminatedBy: 'status' });
    expect(readdirSync(dir)).toHaveLength(summary.steps);
  });

  it('runs a suite part and summarises by app and difficulty', async () => {
    const r = await awb('suite', 'run', '--split', 'all', '--part', 'test', '--policy', 'oracle', '--limit', '5', '--json');
    expect(r.code).toBe(0);
    const s = JSON.parse(r.out);
    expect(s).toMatchObject({ episodes: 5, successes: 5, successRate: 1 });
    expect(Object.values(s.byApp as Record<string, { episodes: number }>).reduce((n, a) => n + a.episodes, 0)).toBe(5);
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
  ])('refuses bad input %j with exit code 2', async (argv, message) => {
    const r = await awb(...argv);
    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
  });
});
