import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deserializeCheckpoint } from '../../core/policy/checkpoint.js';
import { requirePython } from '../python-env.js';
import { writeGrpoFixture } from './grpo-fixture.js';

/**
 * The Python trainer's unittest suite (resources/trainer/tests), run with the trainer's venv (.venv, ./scripts/setup). The
 * GRPO parity test inside it compares one update's loss and gradient with core/rl/grpo.ts's batchLoss on the
 * fixture exported here, and trains a builtin-grpo job from the TS checkpoint, whose policy.json is loaded
 * back here with core/policy/checkpoint.ts.
 */
const PYTHON = requirePython();
const ROOT = resolve(__dirname, '../..');
const probe = spawnSync(PYTHON, ['-c', 'import torch'], { encoding: 'utf8' });
const torchMissing = probe.error ? `${PYTHON} not runnable (${probe.error.message})` : probe.status !== 0 ? `torch does not import: ${probe.stderr.trim().split('\n').pop()}` : null;
if (torchMissing) console.log(`skipping the Python trainer tests: ${torchMissing}`);

describe.skipIf(torchMissing !== null)('Python trainer (resources/trainer)', () => {
  let dir: string;
  let result: ReturnType<typeof spawnSync>;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'awb-trainer-py-'));
    const fixture = writeGrpoFixture(join(dir, 'fixture'));
    result = spawnSync(PYTHON, ['-m', 'unittest', 'discover', '-v', '-s', 'resources/trainer/tests', '-t', 'resources/trainer'], {
      // test_ray_submit starts a real Ray head (~20–30 s on 2 busy cores) and runs two tiny jobs on it.
      cwd: ROOT, encoding: 'utf8', timeout: 480_000,
      env: { ...process.env, AWB_TS_FIXTURE: fixture, AWB_TS_OUT: join(dir, 'out'), PYTHONDONTWRITEBYTECODE: '1' },
    });
  }, 500_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the unittest suite passes (server, uploads, events, cancel, artifacts, jobs, torchrun, Ray, VLM skips)', () => {
    const out = `${String(result.stdout)}${String(result.stderr)}`;
    if (result.status !== 0) console.log(out);
    expect(result.status).toBe(0);
    expect(out).toMatch(/\nOK/);
    for (const line of out.split('\n').filter((l) => l.includes('skipped'))) console.log(`python: ${line.trim()}`);
  });

  it('one GRPO update in torch matches batchLoss and the TS backward pass (not skipped)', () => {
    const out = `${String(result.stdout)}${String(result.stderr)}`;
    expect(out).toMatch(/test_one_update_matches_the_typescript_loss_and_gradient \(.*\) \.\.\. ok/);
  });

  it('a policy.json trained by the Python trainer loads with core/policy/checkpoint.ts', () => {
    const text = readFileSync(join(dir, 'out', 'policy.json'), 'utf8');
    const { model, meta } = deserializeCheckpoint(text, 'python policy.json');
    const init = deserializeCheckpoint(readFileSync(join(dir, 'fixture', 'policy.json'), 'utf8'));
    expect(model.net.dims).toEqual(init.model.net.dims);
    expect(model.encoder.config).toEqual(init.model.encoder.config);
    expect(meta.kind).toBe('builtin-grpo');
    const changed = model.net.params.filter((p, i) => p !== init.model.net.params[i]).length;
    expect(changed).toBeGreaterThan(0);
  });
});
