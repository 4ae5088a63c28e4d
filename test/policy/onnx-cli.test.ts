import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../core/cli/main.js';
import { runEpisode } from '../../core/episode/runner.js';
import { BuiltinPolicy } from '../../core/policy/builtin.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { SimDroid } from '../../emulators/simdroid/simdroid.js';
import { saveCheckpoint } from '../../core/policy/checkpoint.js';
import { exportPolicyOnnx } from '../../core/policy/onnx/index.js';
import { listEpisodes, listRuns, loadTrajectory, openStoreReadonly, type RunId } from '../../core/store/index.js';
import { trainedIshModel } from './onnx-fixtures.js';

const capture = () => {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) } };
};

let dir: string;
let ckpt: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'awb-onnx-cli-'));
  ckpt = join(dir, 'policy.json');
  saveCheckpoint(ckpt, trainedIshModel('onnx-cli'), { step: 5 });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('awb policy export-onnx | info', () => {
  it('exports a checkpoint, checks it in ONNX Runtime, and info reads the metadata back', async () => {
    const out = join(dir, 'm.onnx');
    const c = capture();
    expect(await main(['policy', 'export-onnx', '--policy', ckpt, '--out', out, '--json'], c.io)).toBe(0);
    const s = JSON.parse(c.out.at(-1)!);
    expect(s).toMatchObject({ out, network: { input: 264, hidden: 24 }, encoder: { kind: 'hashed-ngram', dim: 32, charN: 3 } });
    expect(s.bytes).toBe(readFileSync(out).length);
    expect(s.check.maxAbsDiff).toBeLessThanOrEqual(1e-4);
    expect(s.check.maxAbsDiff).toBeGreaterThanOrEqual(0);

    const i = capture();
    expect(await main(['policy', 'info', out, '--json'], i.io)).toBe(0);
    expect(JSON.parse(i.out[0]!)).toMatchObject({ kind: 'onnx', irVersion: 8, opset: 13, producer: 'awb', network: { input: 264, hidden: 24 }, meta: { step: 5 } });
    const k = capture();
    expect(await main(['policy', 'info', ckpt], k.io)).toBe(0);
    expect(k.out.join('\n')).toMatch(/builtin-policy checkpoint.*\n {2}network 264 features × 24 hidden \(6648 parameters\)/);
  });

  it('a bad checkpoint or model file is a usage error naming it', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"format":"awb-builtin-policy","version":9}');
    const c = capture();
    expect(await main(['policy', 'export-onnx', '--policy', bad, '--out', join(dir, 'x.onnx')], c.io)).toBe(2);
    expect(c.err.join('\n')).toContain(`Bad policy checkpoint ${bad}`);
    const junk = join(dir, 'junk.onnx');
    writeFileSync(junk, 'not a model at all');
    const i = capture();
    expect(await main(['policy', 'info', junk], i.io)).toBe(2);
    expect(i.err.join('\n')).toContain(`Bad ONNX policy ${junk}`);
    const u = capture();
    expect(await main(['policy', 'export-onnx', '--out', 'x.onnx'], u.io)).toBe(2);
    expect(u.err.join('\n')).toMatch(/--policy/);
  }, 120_000);
});

describe('awb eval --policy MODEL.onnx', () => {
  it('plays the same episodes as the checkpoint it was exported from, and records the model by hash', async () => {
    const model = join(dir, 'eval.onnx');
    exportPolicyOnnx(model, trainedIshModel('onnx-cli'));
    const db = join(dir, 'eval.db');
    const args = ['--split', 'unseen-instance', '--limit', '3', '--seeds', '7', '--db', db, '--json'];
    const a = capture();
    expect(await main(['eval', '--policy', ckpt, ...args], a.io)).toBe(0);
    const b = capture();
    expect(await main(['eval', '--policy', `onnx:${model}`, ...args], b.io)).toBe(0);
    const ra = JSON.parse(a.out.at(-1)!);
    const rb = JSON.parse(b.out.at(-1)!);
    expect(rb.policy).toMatchObject({ policy: 'onnx', checkpoint: { path: model }, model: { network: { input: 264, hidden: 24 } } });
    expect(rb.policy.checkpoint.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(rb.overall.episodes).toBe(3);
    const ro = openStoreReadonly(db);
    try {
      expect(listRuns(ro).find((r) => r.id === rb.runs[0].run)?.config).toMatchObject({ policy: 'onnx' });
      const actionsOf = (run: RunId) => listEpisodes(ro, { runId: run, limit: 10 }).rows
        .sort((x, y) => x.templateId.localeCompare(y.templateId))
        .map((e) => loadTrajectory(ro, e.id).steps.map((s) => s.raw));
      const ts = actionsOf(ra.runs[0].run);
      expect(ts.flat().length).toBeGreaterThan(0);
      expect(actionsOf(rb.runs[0].run)).toEqual(ts);
    } finally {
      ro.close();
    }
    const cmp = capture();
    expect(await main(['eval', 'compare', String(ra.runs[0].run), String(rb.runs[0].run), '--db', db, '--json'], cmp.io)).toBe(0);
    const labels = (JSON.parse(cmp.out.at(-1)!) as { policies: Array<{ label: string }> }).policies.map((p) => p.label);
    expect(labels).toEqual([expect.stringMatching(/^builtin .*policy\.json/), expect.stringMatching(/^onnx .*eval\.onnx/)]);
  }, 120_000);

  it('runs an ONNX model in worker threads with --parallel, with the same outcomes as in process; refuses a file that is not a policy export', async () => {
    const model = join(dir, 'parallel.onnx');
    exportPolicyOnnx(model, trainedIshModel('onnx-cli'));
    const args = ['--policy', model, '--split', 'unseen-instance', '--limit', '4', '--seeds', '7', '--json'];
    const one = capture();
    expect(await main(['eval', ...args, '--db', join(dir, 'p1.db')], one.io)).toBe(0);
    const two = capture();
    expect(await main(['eval', ...args, '--parallel', '2', '--db', join(dir, 'p2.db')], two.io)).toBe(0);
    const [r1, r2] = [JSON.parse(one.out.at(-1)!), JSON.parse(two.out.at(-1)!)];
    expect(r2.overall).toMatchObject({ episodes: 4, errors: 0 });
    expect(r2.overall).toEqual(r1.overall);
    const stepsOf = (db: string) => {
      const ro = openStoreReadonly(db);
      try {
        return listEpisodes(ro, { limit: 10 }).rows.map((e) => [e.templateId, loadTrajectory(ro, e.id).steps.map((s) => s.raw)] as const)
          .sort((a, b) => a[0].localeCompare(b[0]));
      } finally {
        ro.close();
      }
    };
    expect(stepsOf(join(dir, 'p2.db'))).toEqual(stepsOf(join(dir, 'p1.db')));
    const junk = join(dir, 'junk2.onnx');
    writeFileSync(junk, Uint8Array.of(8, 8));
    const j = capture();
    expect(await main(['eval', '--policy', junk, '--limit', '1', '--parallel', '2', '--db', join(dir, 'p.db')], j.io)).toBe(2);
    expect(j.err.join('\n')).toContain(`Bad ONNX policy ${junk}`);
  }, 120_000);
});

describe('awb run --policy onnx:FILE', () => {
  it('plays one greedy episode with the model, recorded with its path and hash; a bad model is a usage error', async () => {
    const model = join(dir, 'run.onnx');
    exportPolicyOnnx(model, trainedIshModel('onnx-cli'));
    const db = join(dir, 'run.db');
    const a = capture();
    expect(await main(['run', '--task', 'ContactsAddContact', '--seed', '3', '--policy', `onnx:${model}`, '--max-steps', '6', '--db', db, '--json'], a.io)).toBe(0);
    const r = JSON.parse(a.out.at(-1)!);
    const ro = openStoreReadonly(db);
    try {
      const run = listRuns(ro)[0]!;
      expect(run.config).toMatchObject({ policy: `onnx:${model}`, onnx: { path: model } });
      expect((run.config as { onnx: { sha256: string } }).onnx.sha256).toMatch(/^[0-9a-f]{64}$/);
      const steps = loadTrajectory(ro, r.episode).steps;
      expect(steps.length).toBeGreaterThan(0);
      // The same actions as the TypeScript builtin policy with the same parameters.
      const d = new SimDroid();
      try {
        const ts = await runEpisode({ device: d, instance: instantiate(getTemplate('ContactsAddContact'), 3), policy: new BuiltinPolicy(trainedIshModel('onnx-cli')), maxSteps: 6 });
        expect(steps.map((s) => s.raw)).toEqual(ts.steps.map((s) => s.raw));
      } finally {
        d.close();
      }
    } finally {
      ro.close();
    }
    const bad = capture();
    expect(await main(['run', '--task', 'ContactsAddContact', '--policy', `onnx:${join(dir, 'nope.onnx')}`, '--no-record'], bad.io)).toBe(2);
    expect(bad.err.join('\n')).toMatch(/Bad ONNX policy .*nope\.onnx: cannot read/);
    const empty = capture();
    expect(await main(['run', '--task', 'ContactsAddContact', '--policy', 'onnx:', '--no-record'], empty.io)).toBe(2);
    expect(empty.err.join('\n')).toMatch(/--policy: expected oracle, random, vlm, human, replay, vlm-replay or onnx:FILE/);
  }, 60_000);
});
