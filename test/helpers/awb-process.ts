import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const AWB = fileURLToPath(new URL('../../bin/awb.js', import.meta.url));

/** `node bin/awb.js …` as its own process (what a signal test needs: a real process to signal), its output collected. */
export interface AwbProcess {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  /** Exit code, or 128 + n when a signal ended it without a handler. */
  exited: Promise<number>;
  /** Resolves when stdout has a line matching `re` (rejects if the process exits first). */
  waitForOut(re: RegExp, timeoutMs?: number): Promise<void>;
}

export function spawnAwb(args: string[], env: NodeJS.ProcessEnv = {}): AwbProcess {
  const child = spawn(process.execPath, [AWB, ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const waiters: Array<{ re: RegExp; resolve: () => void }> = [];
  child.stdout!.on('data', (b: Buffer) => {
    out += b.toString();
    for (const w of waiters.splice(0)) {
      if (w.re.test(out)) w.resolve();
      else waiters.push(w);
    }
  });
  child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  const exited = new Promise<number>((resolve) => child.once('exit', (code, signal) => resolve(code ?? 128 + (signal === 'SIGKILL' ? 9 : signal === 'SIGTERM' ? 15 : 2))));
  return {
    child, exited, out: () => out, err: () => err,
    waitForOut: (re, timeoutMs = 30_000) => new Promise<void>((resolve, reject) => {
      if (re.test(out)) return resolve();
      const timer = setTimeout(() => reject(new Error(`no output matching ${re} within ${timeoutMs} ms; stdout: ${out.slice(-500)}; stderr: ${err.slice(-500)}`)), timeoutMs);
      waiters.push({ re, resolve: () => (clearTimeout(timer), resolve()) });
      void exited.then((code) => {
        clearTimeout(timer);
        if (!re.test(out)) reject(new Error(`exited (${code}) before output matching ${re}; stderr: ${err.slice(-500)}`));
      });
    }),
  };
}

/** Resolves with the exit code, or rejects after `ms` (the process is then killed). */
export function exitWithin(p: AwbProcess, ms: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      p.child.kill('SIGKILL');
      reject(new Error(`still running ${ms} ms after the signal; stderr: ${p.err().slice(-500)}`));
    }, ms);
    void p.exited.then((code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}
