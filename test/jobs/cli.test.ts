import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli as run } from '../helpers/cli.js';
import { loadCheckpoint } from '../../core/policy/checkpoint.js';
import { startFakeTrainer, type FakeTrainer } from '../helpers/fake-trainer.js';
import { TOKEN } from './fixture.js';

const home = mkdtempSync(join(tmpdir(), 'awb-jobs-cli-'));
const db = join(home, 'store.db');
const saved = process.env.AWB_HOME;
let fake: FakeTrainer;

beforeAll(async () => {
  process.env.AWB_HOME = home; // profiles, bundles, artifacts and policies go to the test's own data folder
  fake = await startFakeTrainer({ token: TOKEN, epochDelayMs: 2 });
});
afterAll(async () => {
  await fake.close();
  if (saved === undefined) delete process.env.AWB_HOME;
  else process.env.AWB_HOME = saved;
  rmSync(home, { recursive: true, force: true });
});

describe('awb jobs', () => {
  it('trainers add|list|remove keep the token in secrets.json (not trainers.json) and never print it', async () => {
    const tokenFile = join(home, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`);
    expect((await run('jobs', 'trainers', 'add', 'box', '--url', fake.url, '--token-file', tokenFile)).code).toBe(0);
    // Nothing listens on port 1: refused in one line naming the URL, nothing saved; --save-anyway keeps it (the UI's Save anyway).
    const refused = await run('jobs', 'trainers', 'add', 'gone', '--url', 'http://127.0.0.1:1', '--token', 'x');
    expect(refused).toMatchObject({ code: 2, out: '' });
    expect(refused.err.trim()).toBe('awb: Trainer "gone" at http://127.0.0.1:1 did not answer GET /v1/health: connection refused (nothing listens at that port). '
      + 'start it (python3 -m awb_trainer serve) or correct the URL; or pass --save-anyway to keep a trainer that is off now');
    expect(JSON.parse((await run('jobs', 'trainers', 'list', '--json')).out)).toEqual([{ name: 'box', baseUrl: fake.url, hasToken: true }]);
    expect((await run('jobs', 'trainers', 'add', 'gone', '--url', 'http://127.0.0.1:1', '--token', 'x', '--save-anyway'))).toMatchObject({ code: 0 });
    const list = await run('jobs', 'trainers', 'list', '--json');
    expect(JSON.parse(list.out)).toEqual([{ name: 'box', baseUrl: fake.url, hasToken: true }, { name: 'gone', baseUrl: 'http://127.0.0.1:1', hasToken: true }]);
    expect(list.out).not.toContain(TOKEN);
    expect((await run('jobs', 'trainers', 'remove', 'gone')).code).toBe(0);
    expect(JSON.parse(readFileSync(join(home, 'trainers.json'), 'utf8')).trainers).toEqual([{ name: 'box', baseUrl: fake.url }]);
    expect(JSON.parse(readFileSync(join(home, 'secrets.json'), 'utf8'))).toEqual({ 'trainer:box': TOKEN });
    expect(await run('jobs', 'trainers', 'add', 'bad name', '--url', fake.url, '--token', 'x')).toMatchObject({ code: 2 });
  });

  it('submit --follow builds the SFT bundle, trains, then download + register give a policy awb eval runs', async () => {
    const config = join(home, 'sft.json');
    writeFileSync(config, JSON.stringify({ epochs: 3, learningRate: 0.02 }));
    const sub = await run('jobs', 'submit', '--trainer', 'box', '--kind', 'builtin-sft', '--config', config, '--from-split', 'unseen-instance:train', '--limit', '2', '--follow', '--db', db);
    expect(sub.err).toMatch(/bundle [0-9a-f]{12}: \d+ bytes, \d+ steps from 2 instances/);
    expect(sub.code, `${sub.err}\n${sub.out}`).toBe(0);
    expect(sub.out).toMatch(/step 3: loss\/policy=/);
    expect(sub.out.trim().split('\n').at(-1)).toMatch(/status succeeded$/);
    const list = JSON.parse((await run('jobs', 'list', '--json', '--db', db)).out) as Array<{ id: number; remoteId: string; status: string; config: unknown }>;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ status: 'succeeded', config: { epochs: 3, learningRate: 0.02, batchSize: 32, seed: 0 } });
    const ref = String(list[0]!.id);
    const logs = await run('jobs', 'logs', list[0]!.remoteId, '--db', db);
    expect(logs.out.split('\n').filter((l) => l.includes('status'))).toHaveLength(3);
    const status = await run('jobs', 'status', ref, '--json', '--db', db);
    expect(JSON.parse(status.out).remote.artifacts.map((a: { name: string }) => a.name)).toEqual(['policy.json', 'metrics.jsonl']);
    expect((await run('jobs', 'register', ref, '--db', db))).toMatchObject({ code: 2 });
    const dl = await run('jobs', 'download', ref, '--artifact', 'policy.json', '--db', db);
    expect(dl.out).toMatch(/policy.json → .*policy.json \(\d+ bytes, sha256 verified\)/);
    const reg = JSON.parse((await run('jobs', 'register', ref, '--json', '--db', db)).out) as { policy: string };
    expect(reg.policy).toBe(join(home, 'policies', `box-${list[0]!.remoteId}.json`));
    expect(loadCheckpoint(reg.policy).meta).toMatchObject({ trainer: 'fake', epochs: 3 });
    const ev = await run('eval', '--policy', reg.policy, '--split', 'unseen-instance', '--limit', '1', '--seeds', '30', '--db', db, '--json');
    expect(ev.code, ev.err).toBe(0);
    expect(JSON.parse(ev.out).policy).toMatchObject({ policy: 'builtin', checkpoint: { path: reg.policy } });
  });

  it('refuses bad input with exit 2 before any work: unknown trainer, bad kind, bad config, both data sources', async () => {
    expect(await run('jobs', 'submit', '--trainer', 'nope', '--kind', 'builtin-sft', '--db', db)).toMatchObject({ code: 2, err: expect.stringMatching(/Trainer profile "nope": not found/) });
    expect(await run('jobs', 'submit', '--trainer', 'box', '--kind', 'magic', '--db', db)).toMatchObject({ code: 2, err: expect.stringMatching(/--kind must be one of/) });
    const bad = join(home, 'bad.json');
    writeFileSync(bad, JSON.stringify({ epochs: 0 }));
    expect(await run('jobs', 'submit', '--trainer', 'box', '--kind', 'builtin-sft', '--config', bad, '--db', db)).toMatchObject({ code: 2, err: expect.stringMatching(/Invalid builtin-sft job config: epochs/) });
    expect(await run('jobs', 'submit', '--trainer', 'box', '--kind', 'builtin-sft', '--from-split', 'unseen-app', '--episodes', '1', '--db', db)).toMatchObject({ code: 2 });
    expect(await run('jobs', 'status', '77', '--db', db)).toMatchObject({ code: 2, err: expect.stringMatching(/No remote job "77"/) });
    expect(await run('jobs', 'bogus')).toMatchObject({ code: 2 });
  });
});
