import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { startEmulatorHost } from '../../emulators/simdroid/host.js';
import { defaultGrpcPort } from '../../emulators/simdroid/grpc/server.js';
import { runningInstancesDir } from '../../emulators/simdroid/grpc/discovery.js';
import { intArg, parseFlags, UsageError } from './args.js';
import { table } from './format.js';
import type { Io } from './main.js';
import { dataDir } from '../util/data-dir.js';

/**
 * `awb emulator start|stop|list`: SimDroid instances serving ADB and the emulator console, each in
 * its own process like a real emulator (so N of them use N cores). `start` supervises them: it
 * prints each serial once the instance serves, and returns when all have stopped (Ctrl-C, `awb
 * emulator stop`, or the console's `kill`). `serve` is the instance process itself.
 *
 * Each instance also serves the emulator's gRPC API on 127.0.0.1 (`--grpc PORT`; default the
 * emulator's, console port + 3000: 8554 for 5554), with a bearer token under `--grpc-use-token`,
 * and advertises itself as the emulator does, in pid_<pid>.ini in the running-instances folder
 * (emulators/simdroid/grpc/discovery.ts; $AWB_AVD_RUNNING_DIR overrides it).
 */
const USAGE = 'awb emulator start [--count N] [--port EVEN_PORT] [--grpc PORT] [--grpc-use-token] [--seed S] [--json] | awb emulator stop [--port P] | awb emulator list';

/**
 * glibc hands out each 10 MB frame buffer (a 1080×2400 RGBA readback) as a fresh mmap, and on VMs
 * faulting its pages in costs ~6 ms per frame. Serving from the heap instead (mmap threshold 64 MB)
 * reuses warm pages: a full-size screencap drops from ~25 to ~17 ms (BENCHMARKS.md, ADB).
 * A GLIBC_TUNABLES the user set is left alone.
 */
export const FRAME_BUFFER_TUNABLES = 'glibc.malloc.mmap_threshold=67108864:glibc.malloc.trim_threshold=268435456';

const stateDir = () => join(dataDir(), 'emulators');

interface Running {
  pid: number;
  port: number;
  serial: string;
  address: string;
  grpcPort: number;
  /** The instance's pid_<pid>.ini, where gRPC clients find its port and token. */
  discoveryFile: string;
}

/** What an instance process tells its supervisor. */
type InstanceMessage =
  | { kind: 'ready'; serial: string; address: string; consolePort: number; grpcPort: number; discoveryFile: string }
  | { kind: 'error'; message: string };

function running(): Array<Running & { file: string }> {
  let files: string[] = [];
  try {
    files = readdirSync(stateDir()).filter((f) => f.endsWith('.json'));
  } catch {
    return [];
  }
  return files.map((f) => ({ ...(JSON.parse(readFileSync(join(stateDir(), f), 'utf8')) as Running), file: join(stateDir(), f) }));
}

/** Whether a process exists (signal 0 checks without signalling). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const AWB_BIN = fileURLToPath(new URL('../../bin/awb.js', import.meta.url));

/** Starts one instance process and waits until it serves (or fails to). */
function startInstance(port: number, grpcPort: number, useToken: boolean, seed: number): Promise<{ child: ChildProcess; info: Running }> {
  const args = ['emulator', 'serve', '--port', String(port), '--grpc', String(grpcPort), '--seed', String(seed), ...(useToken ? ['--grpc-use-token'] : [])];
  const child = fork(AWB_BIN, args, {
    env: { ...process.env, GLIBC_TUNABLES: process.env.GLIBC_TUNABLES ?? FRAME_BUFFER_TUNABLES },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (m: InstanceMessage) => {
      if (m.kind === 'ready') {
        resolve({ child, info: { pid: child.pid!, port: m.consolePort, serial: m.serial, address: m.address, grpcPort: m.grpcPort, discoveryFile: m.discoveryFile } });
      }
      else reject(new UsageError(m.message));
    });
    child.once('exit', (code) => reject(new UsageError(`SimDroid on port ${port} exited (${code}) before serving`)));
  });
}

async function start(rest: string[], io: Io): Promise<number> {
  const { values } = parseFlags(rest, {
    count: { type: 'string' }, port: { type: 'string' }, grpc: { type: 'string' }, 'grpc-use-token': { type: 'boolean' }, seed: { type: 'string' }, json: { type: 'boolean' },
  }, z.object({
    count: intArg('--count').pipe(z.number().min(1).max(16)).default(1),
    port: intArg('--port').pipe(z.number().min(1024).max(65533)).default(5554),
    grpc: intArg('--grpc').pipe(z.number().min(1024).max(65535)).optional(),
    'grpc-use-token': z.boolean().optional(),
    seed: intArg('--seed').default(0),
    json: z.boolean().optional(),
  }));
  if (values.port % 2 !== 0) throw new UsageError(`--port must be even (the console port; adb is the next one): ${values.port}`);
  // Instance i serves gRPC on the first port + 2i, as consecutive emulators do (8554, 8556, …).
  const grpcBase = values.grpc ?? defaultGrpcPort(values.port);
  if (grpcBase + 2 * (values.count - 1) > 65535) throw new UsageError(`--grpc ${grpcBase} leaves no port for instance ${values.count}`);
  const started = await Promise.allSettled(Array.from({ length: values.count }, (_, i) =>
    startInstance(values.port + 2 * i, grpcBase + 2 * i, values['grpc-use-token'] ?? false, values.seed + i)));
  const instances = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    for (const { child } of instances) child.kill('SIGTERM');
    throw failed.reason;
  }
  mkdirSync(stateDir(), { recursive: true });
  const stateFile = (info: Running) => join(stateDir(), `${info.port}.json`);
  for (const { info } of instances) {
    writeFileSync(stateFile(info), JSON.stringify(info));
    io.out(values.json ? JSON.stringify(info) : `${info.serial}\tadb ${info.address}\tconsole 127.0.0.1:${info.port}\tgrpc 127.0.0.1:${info.grpcPort}`);
  }
  if (!values.json) {
    io.out('SimDroid is serving; `adb connect <address>` to reach it (emulator-NNNN serials are found by a local adb server). Stop with Ctrl-C or `awb emulator stop`.');
    io.out(`gRPC clients find each instance (port${values['grpc-use-token'] ? ', token' : ''}) in ${runningInstancesDir()}/pid_<pid>.ini.`);
  }
  // Serve until every instance has stopped; each one's state file goes with it.
  const stopAll = () => instances.forEach(({ child }) => child.kill('SIGTERM'));
  process.once('SIGINT', stopAll);
  process.once('SIGTERM', stopAll);
  await Promise.all(instances.map(({ child, info }) => new Promise<void>((resolve) => {
    const done = () => {
      rmSync(stateFile(info), { force: true });
      resolve();
    };
    if (child.exitCode !== null || child.signalCode !== null) done();
    else child.once('exit', done);
  })));
  process.off('SIGINT', stopAll);
  process.off('SIGTERM', stopAll);
  return 0;
}

/** One instance in this process, until SIGTERM, the console's `kill`, or its supervisor going away. */
async function serve(rest: string[]): Promise<number> {
  const { values } = parseFlags(rest, { port: { type: 'string' }, grpc: { type: 'string' }, 'grpc-use-token': { type: 'boolean' }, seed: { type: 'string' } }, z.object({
    port: intArg('--port').default(5554),
    grpc: intArg('--grpc').optional(),
    'grpc-use-token': z.boolean().optional(),
    seed: intArg('--seed').default(0),
  }));
  const report = (m: InstanceMessage) => process.send?.(m);
  let host: Awaited<ReturnType<typeof startEmulatorHost>>;
  try {
    host = await startEmulatorHost({
      port: values.port,
      seed: values.seed,
      grpcPort: values.grpc ?? defaultGrpcPort(values.port),
      // Like -grpc-use-token: a fresh secret per run, readable only from the discovery file.
      grpcToken: values['grpc-use-token'] ? randomBytes(32).toString('base64url') : undefined,
      discoveryDir: runningInstancesDir(),
      cmdline: [process.execPath, ...process.argv.slice(1)],
    });
  } catch (e) {
    report({ kind: 'error', message: (e as Error).message });
    return 1;
  }
  report({ kind: 'ready', serial: host.serial, address: host.address, consolePort: host.consolePort, grpcPort: host.grpcPort!, discoveryFile: host.discoveryFile! });
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
    // A supervisor killed with -9 cannot pass a signal on: its IPC channel closing is the signal.
    process.once('disconnect', resolve);
    void host.stopped.then(resolve);
  });
  await host.stop();
  if (process.connected) process.disconnect();
  return 0;
}

async function stop(rest: string[], io: Io): Promise<number> {
  const { values } = parseFlags(rest, { port: { type: 'string' } }, z.object({ port: intArg('--port').optional() }));
  const list = running().filter((r) => values.port === undefined || r.port === values.port);
  if (list.length === 0) {
    io.out('No SimDroid emulators are running.');
    return 0;
  }
  for (const r of list) if (alive(r.pid)) process.kill(r.pid, 'SIGTERM');
  for (let i = 0; i < 100 && list.some((r) => alive(r.pid)); i++) await new Promise((r) => setTimeout(r, 50));
  for (const r of list) {
    rmSync(r.file, { force: true });
    io.out(`stopped ${r.serial}`);
  }
  return 0;
}

export async function emulatorCommand(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'start':
      return start(rest, io);
    case 'serve':
      return serve(rest);
    case 'stop':
      return stop(rest, io);
    case 'list': {
      // State files of instances that died without cleaning up (kill -9) are pruned here.
      const all = running();
      for (const r of all) {
        if (alive(r.pid)) continue;
        rmSync(r.file, { force: true });
        // An instance killed with -9 leaves its discovery file too, as an emulator does.
        if (r.discoveryFile) rmSync(r.discoveryFile, { force: true });
      }
      const list = all.filter((r) => alive(r.pid));
      io.out(list.length ? table([['SERIAL', 'ADB', 'CONSOLE', 'GRPC', 'PID'], ...list.map((r) => [r.serial, r.address, `127.0.0.1:${r.port}`, r.grpcPort ? `127.0.0.1:${r.grpcPort}` : '-', String(r.pid)])]) : 'No SimDroid emulators are running.');
      return 0;
    }
    default:
      throw new UsageError(USAGE);
  }
}
