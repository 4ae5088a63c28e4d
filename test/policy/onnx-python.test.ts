import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PYTHON, TRAINER_DIR, torchMissing } from './onnx-fixtures.js';

/** The trainer's own unit tests of awb_trainer.policy (resources/trainer/tests/test_policy.py), run with Debian's python3. */
const reason = torchMissing();
if (reason) console.log(`onnx-python: resources/trainer/tests/test_policy.py skipped: ${reason}`);

describe('awb_trainer.policy unit tests (python3 -m unittest)', () => {
  it.skipIf(reason !== null)('test_policy.py passes', () => {
    const r = spawnSync(PYTHON, ['-m', 'unittest', 'discover', '-s', join(TRAINER_DIR, 'tests'), '-p', 'test_policy.py', '-t', TRAINER_DIR, '-v'], {
      cwd: TRAINER_DIR, encoding: 'utf8', env: { ...process.env, PYTHONPATH: TRAINER_DIR },
    });
    // unittest reports on stderr; show it when something failed.
    if (r.status !== 0) console.log(r.stderr);
    expect(r.stderr).toMatch(/Ran \d+ tests/);
    const ran = Number(/Ran (\d+) tests/.exec(r.stderr)![1]);
    expect(ran).toBeGreaterThanOrEqual(13);
    expect(r.status).toBe(0);
  }, 60_000);
});
