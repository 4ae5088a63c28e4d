import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { WorkbenchError } from '../util/errors.js';

/**
 * The trainer's local training session for the transformer policy (resources/trainer/awb_trainer/transformer/
 * session.py): one Python process held for a whole run, JSON requests on its stdin, answers and progress events on
 * its stdout. The policy's maths lives there (torch); the workbench sends the steps it collected (steps.jsonl, written
 * by core/policy/transformer/records.ts) and reads back the model folder it writes.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The Python with torch: AWB_PYTHON, else the repository's .venv, else python3 on PATH. */
export function trainerPython(env: NodeJS.ProcessEnv = process.env): string {
  if (env.AWB_PYTHON) return env.AWB_PYTHON;
  const venv = join(ROOT, '.venv', 'bin', 'python');
  return existsSync(venv) ? venv : 'python3';
}

export class TransformerTrainerError extends WorkbenchError {
  override name = 'TransformerTrainerError';
  constructor(readonly command: string, readonly type: string, readonly detail: string) {
    super(`The transformer trainer failed on ${command}: ${type}: ${detail}`);
  }
}

interface Pending {
  cmd: string;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  onEvent?: (ev: Record<string, unknown>) => void;
}

export class TransformerSession {
  private next = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly stderr: string[] = [];
  private exited: Error | null = null;

  private constructor(private readonly child: ChildProcess) {
    createInterface({ input: child.stdout! }).on('line', (line) => this.onLine(line));
    createInterface({ input: child.stderr! }).on('line', (line) => {
      this.stderr.push(line);
      if (this.stderr.length > 40) this.stderr.shift();
    });
    child.on('exit', (code, signal) => {
      this.exited = new TransformerTrainerError('(session)', 'exited', `code ${code} signal ${signal}: ${this.stderr.slice(-5).join(' | ')}`);
      for (const p of this.pending.values()) p.reject(this.exited);
      this.pending.clear();
    });
    child.on('error', (e) => {
      this.exited = new TransformerTrainerError('(session)', 'spawn', e.message);
      for (const p of this.pending.values()) p.reject(this.exited);
      this.pending.clear();
    });
  }

  /** Starts the session process; `threads` torch threads (default 1: rollouts share the machine's cores). */
  static start(opts: { python?: string; threads?: number; env?: NodeJS.ProcessEnv } = {}): TransformerSession {
    const env = opts.env ?? process.env;
    const trainer = join(ROOT, 'resources', 'trainer');
    const child = spawn(opts.python ?? trainerPython(env), ['-m', 'awb_trainer.transformer.session'], {
      env: { ...env, PYTHONPATH: env.PYTHONPATH ? `${trainer}:${env.PYTHONPATH}` : trainer, PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1', AWB_TORCH_THREADS: String(opts.threads ?? 1) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    return new TransformerSession(child);
  }

  private onLine(line: string): void {
    let msg: { id?: number; event?: Record<string, unknown>; ok?: boolean; result?: unknown; error?: { type: string; message: string } };
    try {
      msg = JSON.parse(line) as typeof msg;
    } catch {
      this.stderr.push(`(stdout) ${line}`);
      return;
    }
    const p = msg.id !== undefined ? this.pending.get(msg.id) : undefined;
    if (!p) return;
    if (msg.event) {
      p.onEvent?.(msg.event);
      return;
    }
    this.pending.delete(msg.id!);
    if (msg.ok) p.resolve(msg.result);
    else p.reject(new TransformerTrainerError(p.cmd, msg.error?.type ?? 'Error', msg.error?.message ?? 'no message'));
  }

  /** Sends one command and waits for its answer; progress events go to onEvent. */
  request<T = Record<string, unknown>>(cmd: string, args: Record<string, unknown>, onEvent?: (ev: Record<string, unknown>) => void): Promise<T> {
    if (this.exited) return Promise.reject(this.exited);
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { cmd, resolve: resolve as (v: unknown) => void, reject, ...(onEvent ? { onEvent } : {}) });
      this.child.stdin!.write(`${JSON.stringify({ id, cmd, args })}\n`);
    });
  }

  async close(): Promise<void> {
    if (this.exited) return;
    const done = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    try {
      await Promise.race([this.request('quit', {}), done]);
    } catch {
      // exiting anyway
    }
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await done;
    clearTimeout(timer);
  }
}
