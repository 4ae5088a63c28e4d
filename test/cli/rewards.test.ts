import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../core/cli/main.js';
import { createRun, loadTrajectory, openStore, type EpisodeId } from '../../core/store/index.js';
import { imageUrls, replyChat, startFakeChat } from '../helpers/fake-chat.js';
import { recordSynthetic, tempDir } from '../store/helpers.js';

const capture = () => {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) } };
};

let tmp: ReturnType<typeof tempDir>;
let dbPath: string;
let short: EpisodeId;
let long: EpisodeId;
let other: EpisodeId;
beforeEach(() => {
  tmp = tempDir('awb-rewards-cli-');
  dbPath = join(tmp.dir, 'store.db');
  const db = openStore(dbPath);
  const run = createRun(db, { kind: 'suite', name: 'rewards' }).id;
  // Two successes of one instance (a GRPO group), and a failure of another seed.
  short = recordSynthetic(db, run, { templateId: 'ContactsAddContact', seed: 1, steps: 2, startedAt: 1 });
  long = recordSynthetic(db, run, { templateId: 'ContactsAddContact', seed: 1, steps: 4, startedAt: 2 });
  other = recordSynthetic(db, run, { templateId: 'ContactsAddContact', seed: 2, steps: 8, startedAt: 3, status: 'failure' });
  db.close();
});
afterEach(() => tmp.cleanup());

describe('awb rewards compute', () => {
  it('prints each step with every component and the total, grouping episodes by instance', async () => {
    const c = capture();
    expect(await main(['rewards', 'compute', '--episode', `${short},${long}`, '--episode', String(other), '--components', 'outcome,shortest-path', '--db', dbPath], c.io)).toBe(0);
    const text = c.out.join('\n');
    const lines = text.split('\n');
    expect(text).toContain(`Episode ${long} — ContactsAddContact seed 1; weights outcome=1 shortest-path=1`);
    expect(lines[1]).toMatch(/^STEP\s+ACTION\s+OUTCOME\s+SHORTEST-PATH\s+TOTAL$/);
    // The longer success: 1 − (4 − 2)/(2·4) = 0.75 on its last step.
    const longLast = lines.find((l) => /^4\s+Go back/.test(l) && l.includes('success in 4 steps'));
    expect(longLast).toMatch(/1 checker: success\s+-0\.25 success in 4 steps, shortest success 2 of 2 judged.*\s0\.75$/);
    // The failure of another instance is its own group.
    expect(text).toMatch(/8\s+Go back\s+0 checker: failure\s+0 failure: no adjustment\s+0$/m);
  });

  it('--write stores each kind, --json gives the breakdown', async () => {
    const c = capture();
    expect(await main(['rewards', 'compute', '--episode', String(long), '--components', 'format,outcome', '--write', '--json', '--db', dbPath], c.io)).toBe(0);
    const r = JSON.parse(c.out[0]!) as { written: boolean; episodes: Array<{ episodeId: number; breakdown: { steps: Array<{ total: number | null }> } }> };
    expect(r.written).toBe(true);
    expect(r.episodes[0]!.episodeId).toBe(long);
    expect(r.episodes[0]!.breakdown.steps.map((s) => s.total)).toEqual([0, 0, 0, 1]);
    const db = openStore(dbPath);
    const steps = loadTrajectory(db, long).steps;
    db.close();
    expect(steps.map((s) => s.rewards.format)).toEqual(Array(4).fill({ value: 0, explanation: 'valid action' }));
    expect(steps[3]!.rewards.outcome).toEqual({ value: 1, explanation: 'checker: success' });
  });

  it('takes weights and options from a config file', async () => {
    const file = join(tmp.dir, 'rewards.json');
    writeFileSync(file, JSON.stringify({ components: [{ kind: 'outcome', weight: 2, options: { success: 5 } }, { kind: 'format', weight: 0.5 }] }));
    const c = capture();
    expect(await main(['rewards', 'compute', '--episode', String(short), '--config', file, '--json', '--db', dbPath], c.io)).toBe(0);
    const r = JSON.parse(c.out[0]!) as { episodes: Array<{ breakdown: { steps: Array<{ total: number | null; totalExplanation: string }> } }> };
    expect(r.episodes[0]!.breakdown.steps.at(-1)).toEqual({ step: 1, description: 'Go back', values: expect.anything(), total: 10, totalExplanation: '2·outcome(5) + 0.5·format(0)' });
  });

  it('lists every config problem and exits 2', async () => {
    const file = join(tmp.dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ components: [{ kind: 'outcome', weight: 1, options: { succes: 1 } }, { kind: 'format', weight: 1, options: { penalty: -1 } }] }));
    const c = capture();
    expect(await main(['rewards', 'compute', '--episode', String(short), '--config', file, '--db', dbPath], c.io)).toBe(2);
    expect(c.err[0]).toMatch(/^awb: Invalid reward config:/);
    expect(c.err[0]).toMatch(/components\.0\.options.*succes.*\(outcome\)/);
    expect(c.err[0]).toMatch(/components\.1\.options\.penalty: .*\(format\)/);
  });

  it('refuses an unknown kind, both --components and --config, a bad id and a missing episode', async () => {
    const run = async (...args: string[]) => {
      const c = capture();
      const code = await main(['rewards', 'compute', ...args, '--db', dbPath], c.io);
      return { code, err: c.err.join('\n') };
    };
    expect(await run('--episode', String(short), '--components', 'outcome,milestones')).toMatchObject({ code: 2, err: expect.stringMatching(/components\.1\.kind/) });
    expect(await run('--episode', String(short), '--components', 'outcome', '--config', 'x.json')).toMatchObject({ code: 2, err: expect.stringMatching(/not both/) });
    expect(await run('--episode', 'seven', '--components', 'outcome')).toMatchObject({ code: 2, err: expect.stringMatching(/not an episode id: "seven"/) });
    expect(await run('--episode', '999', '--components', 'outcome')).toMatchObject({ code: 2, err: expect.stringMatching(/No episode 999/) });
    expect(await run('--components', 'outcome')).toMatchObject({ code: 2, err: expect.stringMatching(/--episode/) });
  });

  it('hands the VLM judge each step\'s stored screenshot', async () => {
    const fake = await startFakeChat((_req, res) => replyChat(res, '{"result": 1, "reason": "fine"}'));
    try {
      const baseUrl = fake.url;
      const config = join(tmp.dir, 'vlm.json');
      writeFileSync(config, JSON.stringify({ components: [{ kind: 'shepherd', weight: 1, options: { judge: { kind: 'vlm', baseUrl, model: 'm', retries: 0, logprobs: false } } }] }));
      const c = capture();
      expect(await main(['rewards', 'compute', '--episode', String(short), '--config', config, '--db', dbPath, '--json'], c.io)).toBe(0);
      const images = fake.requests.flatMap(imageUrls);
      expect(images).toHaveLength(2);
      for (const url of images) expect(url).toMatch(/^data:image\/png;base64,iVBOR/);
      expect(c.out.join('\n')).not.toMatch(/no screenshot/);
    } finally {
      await fake.close();
    }
  });

  it('is in the help', async () => {
    const c = capture();
    expect(await main(['rewards', '--help'], c.io)).toBe(0);
    expect(c.out.join('\n')).toMatch(/awb rewards compute --episode ID/);
  });
});
