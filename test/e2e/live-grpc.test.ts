/// <reference lib="dom" />
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { boundsCenter, findFirst, flattenUiTree } from '../../core/a11y/ui-tree.js';
import { apiClient, openBrowser, startServe, type Browser, type ServeProcess } from './harness.js';
import { openEmulatorRig, type EmulatorRig, type GrpcEmulator } from './grpc-emulator.js';
import { FRAME_COUNT, LIVE_FRAME } from './pixels.js';

/**
 * The Live view mirroring an emulator over its gRPC API, in Chromium: a SimDroid in its own process
 * (`awb emulator start --grpc-use-token`) is listed by a private real adb server as emulator-NNNN, and `awb
 * serve` finds its gRPC port and token in its discovery file. The mirror must come from the stream (the badge
 * says "gRPC stream"; adb polling fails the test), and a click on the mirrored screen must reach the
 * device and show its new screen.
 */
describe('Live view of an emulator over gRPC (SimDroid process, real adb server, Chromium)', () => {
  let rig: EmulatorRig;
  let emu: GrpcEmulator;
  let serve: ServeProcess;
  let browser: Browser;
  let page: Page;
  const img = LIVE_FRAME;

  beforeAll(async () => {
    rig = await openEmulatorRig();
    // All three at once: the workbench lists adb devices when asked, so it need not wait for the emulator.
    [emu, serve, browser] = await Promise.all([
      rig.start({ useToken: true }), startServe({ adbPort: rig.adbPort, env: rig.serveEnv, args: ['--no-device'] }), openBrowser(),
    ]);
    page = browser.page;
    page.on('pageerror', (e) => {
      throw e;
    });
    await page.goto(serve.url);
    await page.locator('.connection.open').waitFor({ timeout: 15_000 });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    await rig?.stop();
  });

  it('mirrors emulator-NNNN from its gRPC stream, and a click on the screen opens an app', async () => {
    await page.click('[data-view="live"]');
    await expect.poll(() => page.locator('[data-testid="live-device"]').inputValue(), { timeout: 15_000 }).toBe(emu.serial);
    await page.locator(`${img}[${FRAME_COUNT}]`).waitFor({ timeout: 15_000 });
    const badge = page.locator('[data-testid="live-frame-path"]');
    expect(await badge.getAttribute('data-path')).toBe('grpc-stream');
    expect(await badge.innerText()).toBe('gRPC stream');

    // Where the Phone icon is, from the device's own tree (through the workbench's API, as the page reads it).
    const driver = await apiClient(serve);
    let state;
    try {
      state = await driver.api.screenState({ serial: emu.serial });
    } finally {
      driver.close();
    }
    const icon = findFirst(flattenUiTree(state.tree), { text: 'Phone' });
    expect(icon, 'a Phone icon on the home screen').toBeTruthy();
    const at = boundsCenter(icon!.node.bounds);
    const before = await page.locator(img).getAttribute(FRAME_COUNT);
    const box = (await page.locator('[data-testid="live-screen"]').boundingBox())!;
    await page.mouse.click(box.x + (at.x / state.screen.width) * box.width, box.y + (at.y / state.screen.height) * box.height);

    // The device opened the app (read back over adb), and the mirror shows a new frame, still from the stream.
    await expect.poll(() => page.locator('[data-testid="live-foreground"]').innerText(), { timeout: 10_000 }).toBe('com.google.android.dialer');
    await expect.poll(() => page.locator(img).getAttribute(FRAME_COUNT), { timeout: 10_000 }).not.toBe(before);
    expect(await badge.getAttribute('data-path')).toBe('grpc-stream');
  });
});
