import { fork } from 'node:child_process';
import type { UtilityProcess } from 'electron';
import type { ToHost } from '../core/api/ipc/channel.js';

/**
 * Starts the API host (core/workbench/host.ts) next to the main process, so rollouts, SimDroid rendering
 * and SQLite never run on the main thread.
 *
 * - 'electron' (the default when packaged): Electron's utilityProcess, running Electron's own Node.
 *   Native modules must be built for Electron's ABI, which electron-builder does (npmRebuild).
 * - 'node' (the default from a checkout, `npm start`): a plain `node` from PATH (or $AWB_NODE),
 *   so better-sqlite3 as `npm ci` built it for Node loads as-is, and the `awb` CLI and the tests
 *   keep working on the same node_modules.
 * $AWB_HOST_RUNTIME (electron | node) overrides the choice.
 */
export type HostRuntime = 'electron' | 'node';

export interface HostProcess {
  readonly runtime: HostRuntime;
  postMessage(m: ToHost): void;
  onMessage(listener: (m: unknown) => void): () => void;
  /** Once, when the process is gone (code null: killed by a signal, or it never started). */
  onExit(listener: (code: number | null, error?: string) => void): void;
  kill(): void;
}

export class HostRuntimeError extends Error {
  override name = 'HostRuntimeError';
}

export function hostRuntime(env: NodeJS.ProcessEnv, packaged: boolean): HostRuntime {
  const v = env.AWB_HOST_RUNTIME;
  if (v === undefined || v === '') return packaged ? 'electron' : 'node';
  if (v === 'electron' || v === 'node') return v;
  throw new HostRuntimeError(`AWB_HOST_RUNTIME must be "electron" or "node", got ${JSON.stringify(v)}`);
}

export interface StartHostOptions {
  runtime: HostRuntime;
  /** core/workbench/host-entry.mjs (registers tsx, then runs host.ts). */
  entry: string;
  env: NodeJS.ProcessEnv;
  /** Electron's utilityProcess.fork (injected: this module must load without Electron in tests). */
  utilityFork: (modulePath: string, args: string[], options: { serviceName: string; stdio: 'inherit'; env: NodeJS.ProcessEnv }) => UtilityProcess;
}

export function startHost(opts: StartHostOptions): HostProcess {
  // Running Electron as Node is for tools; the host must never inherit that switch from a dev shell.
  const env = { ...opts.env };
  delete env.ELECTRON_RUN_AS_NODE;
  const exitListeners = new Set<(code: number | null, error?: string) => void>();
  let exited: { code: number | null; error?: string } | null = null;
  const exit = (code: number | null, error?: string) => {
    if (exited) return;
    exited = error === undefined ? { code } : { code, error };
    exitListeners.forEach((l) => l(code, error));
  };
  const onExit = (l: (code: number | null, error?: string) => void) => {
    if (exited) l(exited.code, exited.error);
    else exitListeners.add(l);
  };

  if (opts.runtime === 'electron') {
    const child = opts.utilityFork(opts.entry, [], { serviceName: 'Android Agent Workbench API host', stdio: 'inherit', env });
    child.once('exit', (code) => exit(code));
    return {
      runtime: 'electron',
      postMessage: (m) => {
        if (!exited) child.postMessage(m);
      },
      onMessage: (l) => {
        child.on('message', l);
        return () => child.off('message', l);
      },
      onExit,
      kill: () => void child.kill(),
    };
  }

  const execPath = env.AWB_NODE || 'node';
  // 'advanced': structured clone, so PNG bytes cross as bytes (JSON would inflate them tenfold).
  const child = fork(opts.entry, [], { execPath, serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env });
  child.once('error', (e) => {
    const hint = (e as NodeJS.ErrnoException).code === 'ENOENT' ? ` (${execPath} was not found: install Node 20+ or set AWB_NODE to its path)` : '';
    exit(null, `${e.message}${hint}`);
  });
  child.once('exit', (code) => exit(code));
  return {
    runtime: 'node',
    postMessage: (m) => {
      if (!exited && child.connected) child.send(m, undefined, undefined, () => {});
    },
    onMessage: (l) => {
      child.on('message', l);
      return () => child.off('message', l);
    },
    onExit,
    kill: () => void child.kill(),
  };
}
