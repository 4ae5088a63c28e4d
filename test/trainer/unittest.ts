import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { requirePython, TRAINER_ROOT } from '../python-env.js';

/**
 * The Python trainer's unittest modules (resources/trainer/tests), split so that the two slow groups run beside the rest
 * on the other worker instead of after it: the Hugging Face path on the tiny Qwen2.5-VL (python-hf.test.ts) and the
 * real Ray head's tests (test/jobs/ray-jobs.test.ts runs them on the head it starts). A new test module lands in
 * python.test.ts unless it is named here.
 */
export const SEPARATE_MODULES = { hf: ['tests.test_vlm_hf'], ray: ['tests.test_ray_submit'] } as const;

export function otherModules(): string[] {
  const separate = new Set<string>([...SEPARATE_MODULES.hf, ...SEPARATE_MODULES.ray]);
  return readdirSync(join(TRAINER_ROOT, 'tests'))
    .filter((f) => /^test_.*\.py$/.test(f))
    .map((f) => `tests.${f.slice(0, -3)}`)
    .filter((m) => !separate.has(m))
    .sort();
}

/** `python -m unittest -v MODULES` in the trainer's venv, from resources/trainer; stdout + stderr and the exit status. */
export function runUnittest(modules: readonly string[], env: Record<string, string> = {}, timeoutMs = 400_000): { status: number | null; out: string; result: SpawnSyncReturns<string> } {
  const result = spawnSync(requirePython(), ['-m', 'unittest', '-v', ...modules], {
    cwd: TRAINER_ROOT, encoding: 'utf8', timeout: timeoutMs,
    env: { ...process.env, PYTHONPATH: TRAINER_ROOT, PYTHONDONTWRITEBYTECODE: '1', HF_HUB_OFFLINE: '1', ...env },
  });
  const out = `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? `\n${result.error.message}` : ''}`;
  return { status: result.status, out, result };
}
