import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deserializeCheckpoint } from '../../core/policy/checkpoint.js';
import { writeGrpoFixture } from './grpo-fixture.js';
import { otherModules, runUnittest } from './unittest.js';

/**
 * The Python trainer's unittest suite (resources/trainer/tests) in the trainer's venv (.venv, ./scripts/setup), but
 * for the modules python-hf.test.ts and test/jobs/ray-jobs.test.ts (on its Ray head) run. The GRPO parity test inside it compares one update's
 * loss and gradient with core/rl/grpo.ts's batchLoss on the fixture exported here, and trains a builtin-grpo job from
 * the TS checkpoint, whose policy.json is loaded back here with core/policy/checkpoint.ts.
 */
describe('Python trainer (resources/trainer)', () => {
  let dir: string;
  let result: { status: number | null; out: string };
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'awb-trainer-py-'));
    const fixture = writeGrpoFixture(join(dir, 'fixture'));
    result = runUnittest(otherModules(), { AWB_TS_FIXTURE: fixture, AWB_TS_OUT: join(dir, 'out') });
  }, 420_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the unittest suite passes (server, uploads, events, cancel, artifacts, jobs, torchrun, the tiny-LM VLM kinds)', () => {
    const { out } = result;
    if (result.status !== 0) console.log(out);
    expect(result.status).toBe(0);
    expect(out).toMatch(/\nOK/);
    for (const line of out.split('\n').filter((l) => l.includes('skipped'))) console.log(`python: ${line.trim()}`);
  });

  it('awb_trainer.policy\'s own tests ran and passed (forward formula, checkpoints, ONNX export; docs/policy.md)', () => {
    expect(result.status).toBe(0);
    // each test's line, "... ok" perhaps after a warning (the suite's status says none failed)
    expect(result.out.match(/ \(tests\.test_policy\.\w+\.test_\w+\) \.\.\. /g)?.length ?? 0).toBeGreaterThanOrEqual(13);
    expect(result.out).not.toMatch(/\(tests\.test_policy\.[\w.]+\) \.\.\. skipped/);
  });

  it('awb_trainer.transformer\'s own tests ran and passed, none skipped (the network, SFT, GRPO, LoRA, MiniLM loading; docs/policy-transformer.md)', () => {
    expect(result.status).toBe(0);
    expect(result.out.match(/ \(tests\.test_transformer\.\w+\.test_\w+\) \.\.\. /g)?.length ?? 0).toBeGreaterThanOrEqual(8);
    expect(result.out).not.toMatch(/\(tests\.test_transformer\.[\w.]+\) \.\.\. skipped/);
  });

  it('one GRPO update in torch matches batchLoss and the TS backward pass (not skipped)', () => {
    const { out } = result;
    // it ran (the suite's status says it passed) and was not skipped; a warning may stand between "..." and "ok"
    expect(result.status).toBe(0);
    expect(out).toMatch(/test_one_update_matches_the_typescript_loss_and_gradient \(.*\) \.\.\. /);
    expect(out).not.toMatch(/test_one_update_matches_the_typescript_loss_and_gradient \(.*\) \.\.\. skipped/);
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
