/// <reference lib="dom" />
/**
 * The Live view mirroring an emulator over gRPC (issue 19), measured in the browser: a SimDroid in
 * its own process (`awb emulator start`, gRPC on), listed by a private real adb server as
 * `emulator-NNNN`, the workbench (`awb serve --adb-port`) finding its gRPC port in its discovery
 * file, Debian's Chromium on the Live view. In one run, for each way to mirror it:
 *   - grpc-png:   streamScreenshot in PNG, the bytes passed on (the default);
 *   - grpc-rgba:  streamScreenshot in RGBA, PNG-encoded in the workbench;
 *   - adb-polling: the emulatorMirror setting says poll (input still over gRPC);
 *   - no gRPC:    a second `awb serve` that finds no discovery file: screencap polling and `input` over adb,
 * and, as a reference under the same load, the workbench's own embedded SimDroid: the Live view's
 * fps while the screen changes continuously (flicks sent straight to the emulator's gRPC, not
 * through the path measured), input → new frame shown (clicks on the page), and the bytes of a
 * frame on the WebSocket. Beside that, in process: the encoders a frame could take to the
 * browser (PNG, JPEG, WebP through @napi-rs/canvas, raw RGBA) on a busy half-size screen.
 *   npm run bench -- live-grpc      (needs `npm run build`, /usr/bin/chromium and /usr/bin/adb)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCanvas, ImageData } from '@napi-rs/canvas';
import type { Page } from 'playwright-core';
import type { EmulatorMirror, FramePath } from '../core/device/frames.js';
import { encodePngAsync } from '../core/util/png-async.js';
import { EmulatorGrpcClient } from '../core/device/adb/emulator-grpc.js';
import { boundsCenter, flattenUiTree, findFirst } from '../core/a11y/ui-tree.js';
import { SimDroid } from '../emulators/simdroid/simdroid.js';
import { encodeScreen, fitImageSize } from '../emulators/simdroid/grpc/image.js';
import { countFrames, FRAME_COUNT, LIVE_FRAME } from '../test/e2e/pixels.js';
import { apiClient, openBrowser, startServe, type ServeProcess } from '../test/e2e/harness.js';
import { openEmulatorRig } from '../test/e2e/grpc-emulator.js';
import { fmt, stats, type Stats } from './stats.js';

const IMG = LIVE_FRAME;

/** Encoders on a half-size frame of the app drawer (icons and labels: a busy screen). */
async function encoders(): Promise<Record<string, { bytes: number; encode: Stats }>> {
  const d = new SimDroid({ serial: 'bench', seed: 0 });
  try {
    await d.input({ kind: 'swipe', x1: 540, y1: 2000, x2: 540, y2: 600, durationMs: 200 });
    const size = fitImageSize(d.screen, 540, 1200);
    const rgba = await encodeScreen(d, 'RGBA8888', size);
    const canvas = createCanvas(size.width, size.height);
    const ctx = canvas.getContext('2d');
    const lossy = (format: 'jpeg' | 'webp') => () => {
      ctx.putImageData(new ImageData(new Uint8ClampedArray(rgba.buffer, rgba.byteOffset, rgba.length), size.width, size.height), 0, 0);
      return canvas.encode(format, 80);
    };
    const ways: Record<string, () => Promise<Buffer>> = {
      'PNG (png-async, 2 bands, level 1)': () => encodePngAsync(rgba, size.width, size.height),
      'JPEG q80 (@napi-rs/canvas)': lossy('jpeg'),
      'WebP q80 (@napi-rs/canvas)': lossy('webp'),
      'raw RGBA': async () => rgba,
    };
    const out: Record<string, { bytes: number; encode: Stats }> = {};
    for (const [name, f] of Object.entries(ways)) {
      await f();
      const times: number[] = [];
      let bytes = 0;
      for (let i = 0; i < 20; i++) {
        const t = performance.now();
        bytes = (await f()).length;
        times.push(performance.now() - t);
      }
      out[name] = { bytes, encode: stats(times) };
      console.log(`encode ${size.width}×${size.height} ${name}: ${bytes} bytes, ${fmt(out[name].encode)}`);
    }
    return out;
  } finally {
    d.close();
  }
}

interface ModeResult { path: FramePath; fps: number; presentedFps: number; frames: number; changes: number; bytesPerFrame: number; wsSizes: number[]; inputToFrame: Stats }

/** One mirror on the Live view: fps while `change` keeps the drawer scrolling, then clicks → new frame. */
async function measure(page: Page, serve: ServeProcess, serial: string, label: string, change: (up: boolean) => Promise<void>): Promise<ModeResult> {
  const driver = await apiClient(serve);
  try {
    await page.goto(serve.url);
    await page.locator('.connection.open').waitFor();
    await page.click('[data-view="live"]');
    await page.locator(`[data-testid="live-device"] option[value="${serial}"]`).waitFor({ state: 'attached' });
    await page.selectOption('[data-testid="live-device"]', serial);
    await page.locator(`${IMG}[${FRAME_COUNT}]`).waitFor();
    await page.waitForTimeout(300);
    const path = (await page.locator('[data-testid="live-frame-path"]').getAttribute('data-path')) as FramePath;
    await driver.api.sendInput({ serial, event: { kind: 'key', key: 'HOME' } });
    await driver.api.sendInput({ serial, event: { kind: 'swipe', x1: 540, y1: 2000, x2: 540, y2: 600, durationMs: 200 } });
    await page.waitForTimeout(500);
    const frames = await countFrames(page);
    // The screen changes continuously: flicks up and down the drawer, back to back, from a change
    // source that is not the path measured (for the emulator, the bench's own gRPC client), so the
    // mirror, not an input round trip, sets the pace.
    const seconds = 5;
    const end = Date.now() + seconds * 1000;
    let n = 0;
    while (Date.now() < end) await change(n++ % 2 === 0);
    const changes = n;
    const { painted: shown, presentedPerSecond: presented } = await frames();
    // Bytes on the wire: the binary WebSocket messages the page receives (frames) while the drawer
    // keeps scrolling for one more second, counted by CDP; not in the fps window (CDP copies every
    // frame to this process, which would cost the CPU being measured).
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    const wsSizes: number[] = [];
    cdp.on('Network.webSocketFrameReceived', (e: { response: { opcode: number; payloadData: string } }) => {
      if (e.response.opcode === 2) wsSizes.push(Math.floor((e.response.payloadData.length * 3) / 4));
    });
    for (const stop = Date.now() + 1000; Date.now() < stop;) await change(n++ % 2 === 0);
    await cdp.detach();
    const span = shown.length > 1 ? (shown.at(-1)! - shown[0]!) / 1000 : seconds;
    const fps = shown.length > 1 ? (shown.length - 1) / span : shown.length / seconds;

    await driver.api.sendInput({ serial, event: { kind: 'key', key: 'HOME' } });
    await page.waitForTimeout(500);
    const state = await driver.api.screenState({ serial });
    const icon = findFirst(flattenUiTree(state.tree), { text: 'Phone' });
    if (!icon) throw new Error('no Phone icon on the home screen');
    const at = boundsCenter(icon.node.bounds);
    const box = (await page.locator('[data-testid="live-screen"]').boundingBox())!;
    const latencies: number[] = [];
    for (let i = 0; i < 20; i++) {
      const wait = page.evaluate(([sel, attr]) => new Promise<number>((resolve) => {
        const t0 = performance.now();
        const o = new MutationObserver(() => (o.disconnect(), resolve(performance.now() - t0)));
        o.observe(document.querySelector(sel)!, { attributes: true, attributeFilter: [attr] });
        (window as unknown as { armed_: boolean }).armed_ = true;
      }), [IMG, FRAME_COUNT] as const);
      await page.waitForFunction(() => (window as unknown as { armed_: boolean }).armed_);
      await page.evaluate(() => ((window as unknown as { armed_: boolean }).armed_ = false));
      if (i % 2 === 0) await page.mouse.click(box.x + (at.x / state.screen.width) * box.width, box.y + (at.y / state.screen.height) * box.height);
      else await page.click('[data-testid="key-back"]');
      latencies.push(await wait);
      await page.waitForTimeout(150);
    }
    const lat = stats(latencies);
    const result = { path, fps, presentedFps: presented, frames: shown.length, changes, bytesPerFrame: wsSizes.length ? stats(wsSizes).median : 0, wsSizes, inputToFrame: lat };
    console.log(`${label} [${path}]: ${fps.toFixed(1)} fps painted over ${span.toFixed(1)} s, ${presented.toFixed(1)} presented (${changes} screen changes, ${(changes / seconds).toFixed(1)} a second), ${result.bytesPerFrame} bytes a frame on the WebSocket (median); input → new frame shown: ${fmt(lat)}`);
    return result;
  } finally {
    driver.close();
  }
}

export async function benchLiveGrpc(): Promise<Record<string, unknown>> {
  // Other users' load moves every figure here: the 1-minute load average before and after is kept.
  const results: Record<string, unknown> = { loadBefore: loadavg()[0], encoders: await encoders() };
  const rig = await openEmulatorRig();
  const serves: ServeProcess[] = [];
  const closers: Array<() => void> = [];
  const none = mkdtempSync(join(tmpdir(), 'awb-no-avd-running-'));
  const browser = await openBrowser();
  // tsx compiles this file keeping function names (an esbuild `__name` helper the page lacks).
  await browser.page.addInitScript('window.__name = (f) => f');
  try {
    const emu = await rig.start();
    // Flicks straight to the emulator: down, one move, up (one finger), as fast as it takes them, in
    // one TouchEvent (its touches are applied in order), so each screen change costs one call; the
    // earlier source, a call per touch, is kept for grpc-png as a second row: at three calls a change
    // the source, not the mirror, capped the frame rate (bench/results/live-grpc.json: frames ≈ changes).
    const grpc = await EmulatorGrpcClient.connect({ host: '127.0.0.1', port: emu.grpcPort });
    const touches = (up: boolean) => {
      const [y1, y2] = up ? [1600, 900] : [900, 1600];
      return [{ x: 540, y: y1, pressure: 1 }, { x: 540, y: y2, pressure: 1 }, { x: 540, y: y2, pressure: 0 }];
    };
    const flick = (up: boolean) => grpc.sendTouch(touches(up));
    const flickByCalls = async (up: boolean) => {
      for (const t of touches(up)) await grpc.sendTouch([t]);
    };
    closers.push(() => grpc.close());
    // With its embedded SimDroid (simdroid-1): the in-process mirror as a reference under the same load.
    const serve = await startServe({ adbPort: rig.adbPort, env: rig.serveEnv });
    serves.push(serve);
    const modes: Record<string, unknown> = {};
    for (const mode of ['grpc-png', 'grpc-rgba', 'adb-polling'] as EmulatorMirror[]) {
      const driver = await apiClient(serve);
      await driver.api.updateSettings({ mirrorFps: 60, mirrorScale: 0.5, emulatorMirror: mode });
      driver.close();
      modes[mode] = await measure(browser.page, serve, emu.serial, mode, flick);
      if (mode === 'grpc-png') modes['grpc-png, a call per touch'] = await measure(browser.page, serve, emu.serial, 'grpc-png, flicks as a call per touch', flickByCalls);
    }
    const embedded = await apiClient(serve);
    closers.push(() => embedded.close());
    modes['embedded SimDroid'] = await measure(browser.page, serve, 'simdroid-1', 'embedded SimDroid (reference)', (up) =>
      embedded.api.sendInput({ serial: 'simdroid-1', event: { kind: 'swipe', x1: 540, y1: up ? 1600 : 900, x2: 540, y2: up ? 900 : 1600, durationMs: 16 } }));
    // The same device seen by a workbench that finds no discovery file: no gRPC at all.
    const plain = await startServe({ adbPort: rig.adbPort, env: { AWB_AVD_RUNNING_DIR: none }, args: ['--no-device'] });
    serves.push(plain);
    const plainDriver = await apiClient(plain);
    await plainDriver.api.updateSettings({ mirrorFps: 60, mirrorScale: 0.5 });
    plainDriver.close();
    modes['no gRPC'] = await measure(browser.page, plain, emu.serial, 'no gRPC (adb only)', flick);
    results.modes = modes;
    results.loadAfter = loadavg()[0];
    console.log(`load average (1 min): ${(results.loadBefore as number).toFixed(1)} before, ${(results.loadAfter as number).toFixed(1)} after`);
  } finally {
    for (const close of closers) close();
    await browser.close();
    for (const s of serves) await s.stop();
    await rig.stop();
    rmSync(none, { recursive: true, force: true });
  }
  return results;
}
