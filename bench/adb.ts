/**
 * ADB benchmarks (issue 4): one agent step (tap + accessibility tree + screenshot) through the
 * real adb server and adbkit against SimDroid's adbd, vs the same step in-process; screencap
 * rates (raw pixels encoded here vs `screencap -p`); SimDroid's pushed mirror frames.
 *   npm run bench -- adb      (needs Debian's `adb` on PATH)
 */
import { execFileSync, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimDroid } from '../emulators/simdroid/simdroid.js';
import { SimDroidFrameSource } from '../emulators/simdroid/frames.js';
import { AdbServer } from '../core/device/adb/server.js';
import type { Device } from '../core/device/device.js';
import { boundsCenter, findFirst } from '../core/a11y/ui-tree.js';
import { observe } from '../core/device/observation.js';
import { FRAME_BUFFER_TUNABLES } from '../core/cli/emulator.js';
import { fmt, stats } from './stats.js';

async function timeAsync(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/**
 * One agent step as the runner takes it: act (tap Display in Settings, or Back from it), then
 * observe (screen info, accessibility tree, foreground app and, if asked, a screenshot, fetched
 * concurrently). The action is chosen from the previous step's observation, as an agent's is.
 */
async function agentSteps(d: Device, n: number, shot: 'none' | 1 | 0.5): Promise<number[]> {
  await d.shell('am start -n com.android.settings/.Settings');
  let obs = await observe(d);
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    samples.push(await timeAsync(async () => {
      const el = findFirst(obs.elements, { text: 'Display' });
      if (el) await d.input({ kind: 'tap', ...boundsCenter(el.node.bounds) });
      else await d.input({ kind: 'key', key: 'BACK' });
      obs = await observe(d, shot === 'none' ? {} : { screenshot: true, scale: shot });
    }));
  }
  return samples;
}

export async function startEmulatorProcess(port: number, home: string): Promise<{ address: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('../bin/awb.js', import.meta.url)), 'emulator', 'start', '--port', String(port), '--json'], {
    env: { ...process.env, AWB_HOME: home, HOME: home }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`awb emulator start exited with ${code}`)));
  });
  const { address } = JSON.parse(first) as { address: string };
  return {
    address,
    stop: () => new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    }),
  };
}

export async function benchAdb(): Promise<Record<string, unknown>> {
  const results: Record<string, unknown> = {};
  const dir = mkdtempSync(join(tmpdir(), 'awb-bench-adb-'));
  // SimDroid serves adb from its own process, as `awb emulator start` runs it for users.
  const host = await startEmulatorProcess(21554, dir);
  const adbPort = 45037;
  execFileSync('adb', ['-P', String(adbPort), 'start-server'], { stdio: 'ignore' });
  const server = new AdbServer({ port: adbPort });
  try {
    const serial = await server.connect(host.address);
    const viaAdb = server.device(serial, { treeReuseMs: 0 });
    const local = new SimDroid();

    for (const [name, d] of [['in-process', local], ['through adb', viaAdb]] as const) {
      await agentSteps(d, 10, 1);
      const full = stats(await agentSteps(d, 100, 1));
      const half = stats(await agentSteps(d, 100, 0.5));
      const noShot = stats(await agentSteps(d, 100, 'none'));
      results[`step_${name}`] = { fullScreenshot: full, halfScreenshot: half, noScreenshot: noShot };
      console.log(`agent step ${name}: act + observe with a full screenshot ${fmt(full)}`);
      console.log(`agent step ${name}: act + observe with a half screenshot ${fmt(half)}`);
      console.log(`agent step ${name}: act + observe without screenshot ${fmt(noShot)}`);
    }
    results.autoScreencap = { full: viaAdb.screencapFormat(1), half: viaAdb.screencapFormat(0.5) };
    console.log(`screencap format 'auto' chose: ${viaAdb.screencapFormat(1)} for full size, ${viaAdb.screencapFormat(0.5)} for half size`);

    for (const mode of ['raw', 'png'] as const) {
      const d = server.device(serial, { screencap: mode });
      for (const scale of [1, 0.5] as const) {
        const samples: number[] = [];
        for (let i = 0; i < 30; i++) {
          await d.shell(`input swipe 540 ${1500 + (i % 2) * 100} 540 1300 100`); // a new frame for each capture
          samples.push(await timeAsync(() => d.screenshot({ scale })));
        }
        const s = stats(samples);
        results[`screencap_${mode}_${scale === 1 ? 'full' : 'half'}`] = { ...s, fps: 1000 / s.median };
        console.log(`screencap ${mode} → ${scale === 1 ? 'full' : 'half'}-size PNG (1080x2400 device, over adb): ${fmt(s)} = ${(1000 / s.median).toFixed(1)} fps`);
      }
    }

    // glibc's treatment of 10 MB frame buffers: fresh mmaps (default) vs the heap (awb emulator start).
    for (const [name, tunables] of [['default malloc', undefined], ['FRAME_BUFFER_TUNABLES', FRAME_BUFFER_TUNABLES]] as const) {
      const env: NodeJS.ProcessEnv = { ...process.env };
      delete env.GLIBC_TUNABLES;
      if (tunables) env.GLIBC_TUNABLES = tunables;
      const out = execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./screenshot-child.ts', import.meta.url))], { env, encoding: 'utf8' });
      const s = JSON.parse(out.trim().split('\n').at(-1)!) as ReturnType<typeof stats>;
      results[`screencapPng_${name}`] = s;
      console.log(`SimDroid screencap -p, full size, in its own process, ${name}: ${fmt(s)}`);
    }

    // Mirroring SimDroid: a frame is pushed on each change; latency = change → frame ready.
    const src = new SimDroidFrameSource(local, { maxFps: 60, scale: 0.5 });
    const latencies: number[] = [];
    let frames = 0;
    src.onFrame((f) => {
      frames++;
      if (f.changedAt) latencies.push(f.at - f.changedAt);
    });
    src.start();
    const t0 = performance.now();
    local.shellBytes('am start -n com.android.settings/.Settings');
    for (let i = 0; i < 120; i++) {
      local.inputSync({ kind: 'swipe', x1: 540, y1: 1500 + (i % 2) * 200, x2: 540, y2: 1300, durationMs: 100 });
      await new Promise((r) => setTimeout(r, 5));
    }
    await new Promise((r) => setTimeout(r, 100));
    src.stop();
    const secs = (performance.now() - t0) / 1000;
    const lat = stats(latencies);
    results.mirrorSimDroid = { frames, fps: frames / secs, latency: lat };
    console.log(`SimDroid mirror (push, half size, 120 changes): ${(frames / secs).toFixed(1)} fps, change → frame ${fmt(lat)}`);
    local.close();
  } finally {
    execFileSync('adb', ['-P', String(adbPort), 'kill-server'], { stdio: 'ignore' });
    await host.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}
