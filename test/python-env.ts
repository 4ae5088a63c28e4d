import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The trainer's Python environment for tests: the virtual environment `./scripts/setup` makes at .venv (exact pins in
 * resources/trainer/requirements.txt), or AWB_PYTHON. Tests that need Python fail (never skip) without it: CI runs the
 * setup command first, and a developer gets one line saying what to run.
 */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const TRAINER_ROOT = join(REPO_ROOT, 'resources', 'trainer');
export const PYTHON = process.env.AWB_PYTHON ?? join(REPO_ROOT, '.venv', 'bin', 'python');

export class PythonEnvMissingError extends Error {
  constructor(readonly python: string, detail: string) {
    super(`the trainer's Python environment is not usable (${python}: ${detail}); run ./scripts/setup`);
    this.name = 'PythonEnvMissingError';
  }
}

let checked: string | null = null;

// Exits non-zero naming what is missing.
const INSTALLED = 'import importlib.util, sys\nmissing = [m for m in ("torch", "transformers", "peft") if importlib.util.find_spec(m) is None]\n'
  + 'sys.exit(f"ModuleNotFoundError: no module named {\', \'.join(missing)}" if missing else 0)';

/**
 * PYTHON, after checking once per process that it runs and has torch, transformers and peft installed. Installed, not
 * imported: importing the three costs ~10 s of CPU, paid by every isolated test file and each worker, while the tests
 * that need them import them anyway (a broken install fails those tests with its own error).
 */
export function requirePython(): string {
  if (checked) return checked;
  if (!existsSync(PYTHON)) throw new PythonEnvMissingError(PYTHON, 'no such file');
  const r = spawnSync(PYTHON, ['-c', INSTALLED], { encoding: 'utf8' });
  if (r.error) throw new PythonEnvMissingError(PYTHON, r.error.message);
  if (r.status !== 0) throw new PythonEnvMissingError(PYTHON, r.stderr.trim().split('\n').pop() ?? `exit ${r.status}`);
  checked = PYTHON;
  return PYTHON;
}

let tiny: string | null = null;

/**
 * The folder of the tiny random Qwen2.5-VL (resources/trainer/tools/make_tiny_vlm.py): AWB_TINY_VLM when set, else the
 * build cached per recipe under ~/.cache/awb (made on first use, ~10 s).
 */
export function tinyVlm(): string {
  if (process.env.AWB_TINY_VLM) return process.env.AWB_TINY_VLM;
  if (tiny) return tiny;
  const py = requirePython();
  const r = spawnSync(py, [join(TRAINER_ROOT, 'tools', 'make_tiny_vlm.py'), '--cached'], {
    encoding: 'utf8', timeout: 300_000, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
  });
  if (r.status !== 0) throw new Error(`make_tiny_vlm.py --cached failed (${r.error?.message ?? `exit ${r.status}`}): ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  tiny = r.stdout.trim().split('\n').pop()!;
  return tiny;
}
