import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PYTHON, requirePython, TRAINER_ROOT } from '../python-env.js';

/**
 * Starts the real trainer service (resources/trainer, `python3 -m awb_trainer serve --port 0`) on
 * loopback for tests and the jobs bench, reading the URL from its "awb-trainer listening on" line.
 */
export { PYTHON, TRAINER_ROOT } from '../python-env.js';

/**
 * Why the service cannot start here (null: it can), and why its builtin jobs cannot run (no torch). The trainer's venv
 * is required: without it this throws PythonEnvMissingError (the tests fail, saying to run ./scripts/setup).
 */
export function realTrainerAvailability(): { service: string | null; torch: string | null } {
  requirePython();
  if (!existsSync(join(TRAINER_ROOT, 'awb_trainer', '__main__.py'))) return { service: `${TRAINER_ROOT} has no awb_trainer`, torch: 'no service' };
  // Whether torch is installed, not an import of it (~3 s of CPU per test file); a broken torch fails the jobs loudly.
  const py = spawnSync(PYTHON, ['-c', 'import importlib.util; print(importlib.util.find_spec("torch") is not None)'], { encoding: 'utf8' });
  if (py.error || py.status !== 0) return { service: `${PYTHON} not runnable (${py.error?.message ?? py.stderr})`, torch: 'no python' };
  return { service: null, torch: py.stdout.trim() === 'True' ? null : 'torch is not installed' };
}

export interface RealTrainer {
  url: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** `env` adds to the service's environment (its jobs inherit it: OMP_NUM_THREADS, say). */
export async function startRealTrainer(workdir: string, token: string, timeoutMs = 30_000, extraArgs: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<RealTrainer> {
  const tokenFile = join(workdir, 'token.txt');
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  const child = spawn(PYTHON, ['-m', 'awb_trainer', 'serve', '--host', '127.0.0.1', '--port', '0', '--workdir', join(workdir, 'service'), '--token-file', tokenFile, '--quiet', ...extraArgs], {
    cwd: TRAINER_ROOT, env: { ...process.env, ...env, PYTHONPATH: TRAINER_ROOT, PYTHONDONTWRITEBYTECODE: '1', PYTHONUNBUFFERED: '1' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => { stderr += c.toString(); });
  const url = await new Promise<string>((resolveUrl, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`awb_trainer serve did not report its URL within ${timeoutMs} ms; stderr: ${stderr}`)), timeoutMs);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /awb-trainer listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolveUrl(m[1]!);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`awb_trainer serve exited with ${code}; stderr: ${stderr}`));
    });
  });
  return {
    url, port: Number(new URL(url).port), process: child,
    stop: () => new Promise<void>((done) => {
      if (child.exitCode !== null) return done();
      child.once('exit', () => done());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    }),
  };
}
