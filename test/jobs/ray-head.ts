import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { existsSync } from 'node:fs';
import { PYTHON, PythonEnvMissingError, TRAINER_ROOT } from '../python-env.js';

/**
 * A real Ray head on loopback for the tests and the bench: resources/trainer/tests/ray_head.py (one implementation for
 * the Python and the TypeScript side) started as `python -m tests.ray_head`, which prints the dashboard URL, then
 * stops the head (only its own processes, never `ray stop`) when its stdin closes. `kill()` makes the head vanish.
 */
export interface RayHead {
  dashboard: string;
  /** HOST:PORT of the head's GCS: what `ray.init(address=…)` and `ray start --address` take. */
  address: string;
  startupS: number;
  /** A second node joins the cluster (`ray start --address`) with these CPUs and custom resources; stopped with the head. */
  addNode(cpus: number, resources?: Record<string, number>): Promise<{ pid: number; startupS: number }>;
  /** The head disappears at once (SIGKILL to its processes), as a crashed head node would. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

export async function startRayHead(timeoutMs = 120_000): Promise<RayHead> {
  // The venv must be there (fail, never skip); the jobs themselves prove torch imports, so no 20 s import probe here.
  if (!existsSync(PYTHON)) throw new PythonEnvMissingError(PYTHON, 'no such file');
  const child: ChildProcess = spawn(PYTHON, ['-m', 'tests.ray_head'], {
    cwd: TRAINER_ROOT, env: { ...process.env, PYTHONPATH: TRAINER_ROOT, PYTHONDONTWRITEBYTECODE: '1', OMP_NUM_THREADS: '1' }, stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => { stderr = (stderr + c.toString()).slice(-4000); });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async (what: string): Promise<Record<string, unknown>> => {
    let timer: NodeJS.Timeout | undefined;
    const r = await Promise.race([
      lines.next(),
      new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`Ray head: no ${what} within ${timeoutMs} ms; stderr: ${stderr}`)), timeoutMs); }),
    ]).finally(() => clearTimeout(timer));
    if (r.done) throw new Error(`Ray head helper exited before ${what}; stderr: ${stderr}`);
    return JSON.parse(r.value) as Record<string, unknown>;
  };
  const ready = await next('dashboard');
  if (typeof ready.dashboard !== 'string') {
    child.kill('SIGTERM');
    throw new Error(`Ray head did not start: ${String(ready.error)}; stderr: ${stderr}`);
  }
  const exited = new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', () => resolve())));
  return {
    dashboard: ready.dashboard, address: String(ready.address), startupS: Number(ready.startupS),
    addNode: async (cpus, resources = {}) => {
      child.stdin!.write(`node ${JSON.stringify({ cpus, resources })}\n`);
      const r = await next('node');
      if (!r.node) throw new Error(`Ray node did not join: ${String(r.nodeError)}; stderr: ${stderr}`);
      const node = r.node as { pid: number; startupS: number };
      return { pid: node.pid, startupS: node.startupS };
    },
    kill: async () => {
      child.stdin!.write('kill\n');
      await next('kill confirmation');
    },
    stop: async () => {
      child.stdin!.end();
      const t = setTimeout(() => child.kill('SIGTERM'), 60_000).unref();
      await exited;
      clearTimeout(t);
    },
  };
}
