/**
 * The emulator's gRPC API on SimDroid (issue 19), with SimDroid in its own process as `awb emulator
 * start` runs it: getScreenshot (RGBA8888, PNG) and streamScreenshot fps against `adb exec-out
 * screencap -p` (Debian's adb CLI, a process per call, as android_world's adb calls are) in the same
 * run, and an AndroidWorld-style step: gRPC touch (down, up) + gRPC RGBA screenshot + `adb shell
 * uiautomator dump`, from this Node client and through AndroidWorld's own stack (android_env on
 * grpcio + the adb CLI, grpc_step_client.py), each with its parts timed one by one; android_env's
 * screenshot is attributed call by call (grpc-server-timing.mjs in the emulator process, the stub call
 * and the numpy conversion in the client).
 *   npm run bench -- grpc      (needs Debian's `adb` on PATH and the venv)
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { credentials, loadPackageDefinition, type Client } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { fmt, stats, type Stats } from './stats.js';
import { requirePython } from '../test/python-env.js';
import { notifyAdb } from '../emulators/simdroid/host.js';

const run = promisify(execFile);
const PROTOS = fileURLToPath(new URL('../emulators/simdroid/grpc/proto/', import.meta.url));

type Unary = (req: object, cb: (e: Error | null, v: { image?: Buffer; seq?: number } & Record<string, unknown>) => void) => void;
export type Emu = Client & Record<'getScreenshot' | 'sendTouch' | 'sendKey', Unary> & { streamScreenshot(req: object): NodeJS.ReadableStream & { cancel(): void } };

function client(port: number): Emu {
  const defs = loadSync('emulator_controller.proto', { includeDirs: [PROTOS], keepCase: true, enums: String, longs: Number, defaults: true });
  const Ctor = (loadPackageDefinition(defs) as unknown as { android: { emulation: { control: { EmulatorController: new (a: string, c: unknown, o: object) => Client } } } })
    .android.emulation.control.EmulatorController;
  return new Ctor(`127.0.0.1:${port}`, credentials.createInsecure(), { 'grpc.max_receive_message_length': -1 }) as Emu;
}

const call = (emu: Emu, method: 'getScreenshot' | 'sendTouch' | 'sendKey', req: object) =>
  new Promise<{ image?: Buffer; seq?: number }>((resolve, reject) => emu[method](req, (e, v) => (e ? reject(e) : resolve(v))));

async function samples(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out;
}

const timingFile = (home: string) => join(home, 'grpc-timing.jsonl');

interface ServerTiming { arrivedAt: number; bytes: number; handed: number; framed: number; sent: number; closed: number; queuedAtSent: number | null; afterPreviousCall: number }
interface ClientSplit { start: number; stub: number; convert: number }

/**
 * Lines up android_env's split screenshots (client wall clock) with the server's own timings of the
 * same calls (the getScreenshot that arrived during the stub call): where the screenshot's time goes.
 */
export function screenshotAttribution(client: ClientSplit[], server: ServerTiming[]): Record<string, Stats> {
  const parts: Record<string, number[]> = {
    'server: idle from the touch call ending to the request (what an eager render could hide)': [], 'client → server: request in': [], 'server: render + readback (request in → reply handed to grpc-js)': [],
    'server: grpc-js frames the message (pixels copied into its buffer)': [], 'server: HTTP/2 send (framed → last byte in the kernel)': [],
    'client: grpcio receive + protobuf parse after the last byte is sent': [], 'client: android_env conversion (bytes field → numpy)': [],
  };
  const [idle, req, render, frame, send, recv, convert] = Object.values(parts) as [number[], number[], number[], number[], number[], number[], number[]];
  for (const c of client) {
    const s = server.find((t) => t.arrivedAt >= c.start && t.arrivedAt <= c.start + c.stub);
    if (!s) continue;
    idle.push(s.afterPreviousCall);
    req.push(s.arrivedAt - c.start);
    render.push(s.handed);
    frame.push(s.framed - s.handed);
    send.push(s.sent - s.framed);
    recv.push(c.start + c.stub - (s.arrivedAt + s.sent));
    convert.push(c.convert);
  }
  return Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, stats(v)]));
}

async function startEmulator(port: number, grpc: number, home: string): Promise<{ stop(): Promise<void> }> {
  // The emulator process times each getScreenshot it serves (grpc-server-timing.mjs, preloaded).
  const preload = `--import ${JSON.stringify(fileURLToPath(new URL('./grpc-server-timing.mjs', import.meta.url)))}`;
  const child = spawn(process.execPath, [fileURLToPath(new URL('../bin/awb.js', import.meta.url)), 'emulator', 'start', '--port', String(port), '--grpc', String(grpc), '--json'], {
    env: {
      ...process.env, AWB_HOME: home, HOME: home, AWB_AVD_RUNNING_DIR: join(home, 'running'),
      NODE_OPTIONS: [process.env.NODE_OPTIONS, preload].filter(Boolean).join(' '), AWB_BENCH_GRPC_TIMING: timingFile(home),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`awb emulator start exited with ${code}`)));
  });
  return { stop: () => new Promise<void>((resolve) => (child.once('exit', () => resolve()), child.kill('SIGTERM'))) };
}

/** Frames a stream delivers while each frame's arrival triggers the next screen change (home ⇄ recents). */
async function streamRate(emu: Emu, format: object, frames: number): Promise<{ fps: number; changeToFrame: ReturnType<typeof stats> }> {
  const stream = emu.streamScreenshot(format);
  const latencies: number[] = [];
  let changedAt = 0;
  let got = 0;
  const t0 = performance.now();
  await new Promise<void>((resolve, reject) => {
    stream.on('error', (e: { code?: number }) => (e.code === 1 ? resolve() : reject(e as Error)));
    stream.on('data', () => {
      if (changedAt) latencies.push(performance.now() - changedAt);
      if (++got >= frames) {
        stream.cancel();
        return;
      }
      changedAt = performance.now();
      void call(emu, 'sendKey', { key: got % 2 ? 'AppSwitch' : 'GoHome' });
    });
  });
  return { fps: (got - 1) / ((performance.now() - t0) / 1000), changeToFrame: stats(latencies) };
}

type Adb = (...args: string[]) => Promise<{ stdout: Buffer }>;

/**
 * AndroidWorld's step: a touch (down, up) through gRPC, an RGBA screenshot through gRPC, the UI
 * tree through the adb CLI; then the same parts timed one by one in one loop (each after a fresh
 * Home, so nothing cached is reused), with `adb shell true` as the CLI's own floor.
 */
export async function benchStep(emu: Emu, adb: Adb, n: number): Promise<Record<string, unknown>> {
  const results: Record<string, unknown> = {};
  await call(emu, 'sendKey', { key: 'GoHome' });
  const tree = (await adb('shell', 'uiautomator', 'dump', '/dev/tty')).stdout.toString();
  const m = /text="Simple SMS Messenger"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"/.exec(tree)!;
  const [x, y] = [(Number(m[1]) + Number(m[3])) >> 1, (Number(m[2]) + Number(m[4])) >> 1];
  const touch = async () => {
    await call(emu, 'sendTouch', { touches: [{ x, y, identifier: 0, pressure: 1 }] });
    await call(emu, 'sendTouch', { touches: [{ x, y, identifier: 0, pressure: 0 }] });
  };
  const shot = () => call(emu, 'getScreenshot', { format: 'RGBA8888' });
  const dump = () => adb('shell', 'uiautomator', 'dump', '/dev/tty');
  const steps: number[] = [];
  for (let i = 0; i < n; i++) {
    await call(emu, 'sendKey', { key: 'GoHome' }); // untimed: every step starts on the launcher
    steps.push(...(await samples(1, async () => {
      await touch();
      await shot();
      await dump();
    })));
  }
  const name = 'AndroidWorld-style step (gRPC touch + gRPC RGBA screenshot + adb uiautomator dump)';
  results[name] = stats(steps);
  console.log(`AndroidWorld-style step: ${fmt(stats(steps))} (target ≤ 30 ms median)`);
  const parts: Record<string, number[]> = { 'gRPC touch (down, up)': [], 'gRPC getScreenshot RGBA8888 1080x2400 after the touch': [], '`adb shell uiautomator dump /dev/tty` (adb CLI)': [], '`adb shell true` (adb CLI process + adb server + shell service)': [] };
  const timed = async (part: string, fn: () => Promise<unknown>) => parts[part]!.push(...(await samples(1, fn)));
  for (let i = 0; i < n; i++) {
    await call(emu, 'sendKey', { key: 'GoHome' });
    const [a, b, c, d] = Object.keys(parts) as [string, string, string, string];
    await timed(a, touch);
    await timed(b, shot);
    await timed(c, dump);
    await timed(d, () => adb('shell', 'true'));
  }
  for (const [part, s] of Object.entries(parts)) {
    results[`step part: ${part}`] = stats(s);
    console.log(`  step part: ${part}: ${fmt(stats(s))}`);
  }
  return results;
}

/**
 * The same step through AndroidWorld's own stack (grpc_step_client.py: android_env's
 * EmulatorSimulator on grpcio, its AdbController's adb CLI), which is what the ≤ 30 ms target is about.
 */
export async function benchStepAndroidWorldStack(consolePort: number, grpcPort: number, adbServer: number, home: string, n: number): Promise<Record<string, unknown>> {
  const script = fileURLToPath(new URL('./grpc_step_client.py', import.meta.url));
  const { stdout } = await run(requirePython(), [script, String(consolePort + 1), String(consolePort), String(grpcPort), String(adbServer), String(n)], {
    env: { ...process.env, HOME: home }, maxBuffer: 1 << 20,
  });
  const r = JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, unknown>;
  const results: Record<string, unknown> = {};
  const names: Record<string, string> = {
    step: 'AndroidWorld-style step, AndroidWorld stack (android_env EmulatorSimulator on grpcio + adb CLI)',
    touch: 'android_env step part: send_touch down, up', screenshot: 'android_env step part: get_screenshot (RGBA8888 1080x2400 → numpy RGB)',
    dump: 'android_env step part: adb shell uiautomator dump /dev/tty', adb_shell_true: 'android_env step part: adb shell true (the CLI floor)',
  };
  for (const [k, name] of Object.entries(names)) {
    results[name] = stats(r[k] as number[]);
    console.log(`${k === 'step' ? '' : '  '}${name}: ${fmt(stats(r[k] as number[]))}`);
  }
  const split = r.screenshot_split as unknown as ClientSplit[];
  const server = readFileSync(timingFile(home), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as ServerTiming);
  const attribution = screenshotAttribution(split, server);
  results['android_env get_screenshot split (raw stub call; its conversion)'] = { stub: stats(split.map((c) => c.stub)), convert: stats(split.map((c) => c.convert)) };
  results['android_env get_screenshot attribution (client and SimDroid server timings of the same calls)'] = attribution;
  console.log(`  get_screenshot split: stub call ${fmt(stats(split.map((c) => c.stub)))}; conversion ${fmt(stats(split.map((c) => c.convert)))}`);
  for (const [part, st] of Object.entries(attribution)) console.log(`    ${part}: ${fmt(st)}`);
  return results;
}

export async function benchGrpc(): Promise<Record<string, unknown>> {
  const results: Record<string, unknown> = { loadavgAtStart: loadavg()[0] };
  const home = mkdtempSync(join(tmpdir(), 'awb-bench-grpc-'));
  const [consolePort, grpcPort, adbServer] = [21654, 21754, 45137];
  const { emu, adb, close } = await grpcBenchSetup(consolePort, grpcPort, adbServer, home);
  try {
    const n = 40;
    // Each screenshot follows a change (home ⇄ recents, untimed), so no cached PNG is reused.
    let flip = 0;
    const change = () => call(emu, 'sendKey', { key: flip++ % 2 ? 'AppSwitch' : 'GoHome' });
    const measure = async (name: string, shot: () => Promise<unknown>) => {
      const s: number[] = [];
      for (let i = 0; i < n; i++) {
        await change();
        s.push(...(await samples(1, shot)));
      }
      const st = stats(s);
      results[name] = { ...st, fps: 1000 / st.median };
      console.log(`${name}: ${fmt(st)} = ${(1000 / st.median).toFixed(0)} fps`);
    };
    await measure('grpc getScreenshot RGBA8888 1080x2400', () => call(emu, 'getScreenshot', { format: 'RGBA8888' }));
    await measure('grpc getScreenshot PNG 1080x2400', () => call(emu, 'getScreenshot', { format: 'PNG' }));
    await measure('grpc getScreenshot RGBA8888 540x1200', () => call(emu, 'getScreenshot', { format: 'RGBA8888', width: 540 }));
    await measure('adb exec-out screencap -p (adb CLI)', () => adb('exec-out', 'screencap', '-p'));

    for (const [name, format] of [['RGBA8888 1080x2400', { format: 'RGBA8888' }], ['RGBA8888 540x1200', { format: 'RGBA8888', width: 540 }], ['PNG 540x1200', { format: 'PNG', width: 540 }]] as const) {
      const r = await streamRate(emu, format, 61);
      results[`grpc streamScreenshot ${name}`] = r;
      console.log(`streamScreenshot ${name}: ${r.fps.toFixed(1)} fps; change → frame ${fmt(r.changeToFrame)}`);
    }

    Object.assign(results, await benchStep(emu, adb, n));
    Object.assign(results, await benchStepAndroidWorldStack(consolePort, grpcPort, adbServer, home, n));
    results.loadavgAtEnd = loadavg()[0];
  } finally {
    await close();
    rmSync(home, { recursive: true, force: true });
  }
  return results;
}

/** SimDroid in its own process with a gRPC port, a private adb server connected to it, and a gRPC client. */
export async function grpcBenchSetup(consolePort: number, grpcPort: number, adbServer: number, home: string): Promise<{ emu: Emu; adb: Adb; close(): Promise<void> }> {
  const emulator = await startEmulator(consolePort, grpcPort, home);
  // As an emulator is known to adb: emulator-<console port> (android_env derives that serial).
  const serial = `emulator-${consolePort}`;
  const adb: Adb = (...args) => run('adb', ['-P', String(adbServer), '-s', serial, ...args], { encoding: 'buffer', maxBuffer: 64 << 20 });
  const emu = client(grpcPort);
  execFileSync('adb', ['-P', String(adbServer), 'start-server'], { stdio: 'ignore' });
  await notifyAdb(adbServer, consolePort + 1, () => {});
  execFileSync('adb', ['-P', String(adbServer), '-s', serial, 'wait-for-device'], { stdio: 'ignore', timeout: 30_000 });
  return {
    emu,
    adb,
    close: async () => {
      emu.close();
      execFileSync('adb', ['-P', String(adbServer), 'kill-server'], { stdio: 'ignore' });
      await emulator.stop();
    },
  };
}
