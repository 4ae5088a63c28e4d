import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { evalTemplates } from '../../core/cli/eval.js';
import { SPLIT_DATA } from '../../core/tasks/splits.js';
import { main } from '../../core/cli/main.js';
import { createModel } from '../../core/policy/builtin.js';
import { saveCheckpoint } from '../../core/policy/checkpoint.js';
import { createRun, listEpisodes, listRuns, openStore, openStoreReadonly, type RunId } from '../../core/store/index.js';
import { createRng } from '../../core/util/rng.js';
import { scratch } from '../helpers/scratch.js';

const tmp = scratch('awb-eval-');
afterAll(tmp.cleanup);

const capture = () => {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) } };
};

function checkpoint(dir: string): string {
  const file = join(dir, 'policy.json');
  saveCheckpoint(file, createModel(createRng('eval-test')), { note: 'untrained' });
  return file;
}

describe('evalTemplates', () => {
  it('takes each template once, with every requested regime that holds it', () => {
    const t = evalTemplates(['unseen-instance', 'unseen-template'], 'test');
    const ids = t.map((e) => e.template.id);
    expect(new Set(ids).size).toBe(ids.length);
    const held = t.find((e) => e.template.id === 'ClockAddAlarm')!;
    expect(held.regimes).toEqual(['unseen-instance', 'unseen-template']);
    expect(t.filter((e) => e.regimes.includes('unseen-template')).length).toBe(SPLIT_DATA.unseenTemplate.testTemplates.length);
    expect(evalTemplates(['unseen-instance'], 'test', 3)).toHaveLength(3);
  });
});

describe('awb eval', () => {
  it('records one suite run per seed naming the policy, and reports mean ± std as JSON', async () => {
    const dir = tmp.dir();
    const db = join(dir, 't.db');
    const c = capture();
    expect(await main(['eval', '--policy', 'oracle', '--split', 'unseen-instance', '--limit', '3', '--seeds', '30,7', '--db', db, '--json'], c.io)).toBe(0);
    const r = JSON.parse(c.out.at(-1)!);
    expect(r).toMatchObject({ policy: { policy: 'oracle' }, splits: ['unseen-instance'], part: 'test', seeds: [30, 7], templates: 3 });
    expect(r.overall).toMatchObject({ episodes: 6, successes: 6, mean: 1, std: 0 });
    expect(r.overall.perSeed.map((s: { seed: number }) => s.seed)).toEqual([30, 7]);
    expect(Object.keys(r.byRegime)).toEqual(['unseen-instance']);

    const ro = openStoreReadonly(db);
    try {
      const runs = listRuns(ro);
      expect(runs).toHaveLength(2);
      for (const { seed, run } of r.runs as Array<{ seed: number; run: RunId }>) {
        const meta = runs.find((x) => x.id === run)!;
        expect(meta).toMatchObject({ kind: 'suite', status: 'finished', config: { eval: true, policy: 'oracle', split: 'unseen-instance', part: 'test', seed } });
        const page = listEpisodes(ro, { runId: run, limit: 100 });
        expect(page.counts.success).toBe(3);
        expect(page.rows.every((e) => e.seed === seed)).toBe(true);
      }
    } finally {
      ro.close();
    }
  }, 60_000);

  it('runs a checkpoint in worker threads with the same outcomes as in-process, hashing its contents', async () => {
    const dir = tmp.dir();
    const file = checkpoint(dir);
    const sha = createHash('sha256').update(readFileSync(file)).digest('hex');
    const args = ['eval', '--policy', file, '--split', 'unseen-template', '--limit', '4', '--seeds', '30,7', '--json'];
    const seq = capture();
    expect(await main([...args, '--db', join(dir, 'a.db')], seq.io)).toBe(0);
    const par = capture();
    expect(await main([...args, '--db', join(dir, 'b.db'), '--parallel', '2'], par.io)).toBe(0);
    const a = JSON.parse(seq.out.at(-1)!);
    const b = JSON.parse(par.out.at(-1)!);
    expect(a.policy).toEqual({ policy: 'builtin', checkpoint: { path: file, sha256: sha } });
    expect(a.overall.episodes).toBe(8);
    expect(b.overall.errors).toBe(0);
    expect(b.overall.perSeed).toEqual(a.overall.perSeed);
    const ro = openStoreReadonly(join(dir, 'b.db'));
    try {
      expect(listRuns(ro).map((x) => x.config.checkpoint)).toEqual([{ path: file, sha256: sha }, { path: file, sha256: sha }]);
    } finally {
      ro.close();
    }
  }, 60_000);

  it('prints a table with one row per group and n/a std for a single seed', async () => {
    const dir = tmp.dir();
    const c = capture();
    expect(await main(['eval', '--policy', 'random', '--split', 'unseen-template,unseen-app', '--limit', '3', '--seeds', '1', '--db', join(dir, 't.db')], c.io)).toBe(0);
    const text = c.out.join('\n');
    expect(text).toMatch(/^GROUP +EPISODES +SEED 1 +MEAN ± STD$/m);
    expect(text).toMatch(/^overall +3 +\d+\.\d% +\d+\.\d% ± n\/a$/m);
    expect(text).toMatch(/^regime unseen-template +3 /m);
    expect(text).toMatch(/^difficulty (easy|medium|hard) /m);
    expect(text).toMatch(/one seed, so no std/);
  }, 60_000);

  it('compares stored eval runs: one row per checkpoint hash, the same report as awb eval gave', async () => {
    const dir = tmp.dir();
    const db = join(dir, 't.db');
    const file = checkpoint(dir);
    const reports = [];
    for (const policy of ['oracle', file]) {
      const c = capture();
      expect(await main(['eval', '--policy', policy, '--limit', '3', '--seeds', '30,7', '--db', db, '--json'], c.io)).toBe(0);
      reports.push(JSON.parse(c.out.at(-1)!));
    }
    const c = capture();
    expect(await main(['eval', 'compare', '1', '2', '3', '4', '--db', db, '--json'], c.io)).toBe(0);
    const { policies } = JSON.parse(c.out.at(-1)!);
    expect(policies).toHaveLength(2);
    expect(policies[0]).toMatchObject({ policy: 'oracle', runs: [1, 2], splits: ['unseen-instance'], part: 'test' });
    expect(policies[1].checkpoint).toEqual(reports[1].policy.checkpoint);
    for (let i = 0; i < 2; i++) {
      expect(policies[i].report.overall).toEqual(reports[i].overall);
      expect(policies[i].report.byApp).toEqual(reports[i].byApp);
    }
    const t = capture();
    expect(await main(['eval', 'compare', '1', '2', '3', '4', '--db', db], t.io)).toBe(0);
    expect(t.out.join('\n')).toMatch(/^oracle +unseen-instance\/test +30,7 +6 +100\.0% ± 0\.0/m);
    expect(t.out.join('\n')).toMatch(/^builtin .*policy\.json \([0-9a-f]{12}\) +unseen-instance\/test +30,7 +6 /m);

    const w = openStore(db);
    const other = createRun(w, { kind: 'suite', name: 'plain suite', config: { split: 'all', part: 'test', policy: 'oracle' } }).id;
    w.close();
    const e = capture();
    expect(await main(['eval', 'compare', '1', String(other), '--db', db], e.io)).toBe(2);
    expect(e.err.join('\n')).toMatch(/is not an awb eval run/);
    expect(await main(['eval', 'compare', '--db', db], e.io)).toBe(2);
  }, 60_000);

  it.each([
    [['--policy', 'oracle', '--split', 'unseen-everything'], /Unknown split "unseen-everything"/],
    [['--policy', 'oracle', '--part', 'validation'], /validation/],
    [['--policy', '/no/such/checkpoint.json'], /neither oracle, random nor a readable checkpoint file/],
    [['--policy', 'CORRUPT'], /Bad policy checkpoint .*params/],
    [['--policy', 'oracle', '--seeds', '30,,7'], /--seeds: must be a comma-separated list/],
    [['--policy', 'oracle', '--seeds', '30,7,30'], /--seeds: a seed is listed twice/],
    [['--split', 'all'], /--policy is required/],
  ])('refuses %j with exit code 2', async (args, message) => {
    const dir = tmp.dir();
    const corrupt = join(dir, 'corrupt.json');
    const good = JSON.parse(readFileSync(checkpoint(dir), 'utf8'));
    writeFileSync(corrupt, JSON.stringify({ ...good, params: { ...good.params, count: 3 } }));
    const c = capture();
    const argv = args.map((a) => (a === 'CORRUPT' ? corrupt : a));
    expect(await main(['eval', ...argv, '--db', join(dir, 't.db')], c.io)).toBe(2);
    expect(c.err.join('\n')).toMatch(message);
  });
});
