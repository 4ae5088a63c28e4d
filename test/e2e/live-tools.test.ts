/// <reference lib="dom" />
import { readFileSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Download, Page } from 'playwright-core';
import { findFirst, flattenUiTree } from '../../core/a11y/ui-tree.js';
import { apiClient, openWorkbench, startServe, type Browser, type ServeProcess } from './harness.js';
import { FRAME_COUNT, LIVE_FRAME } from './pixels.js';

/**
 * The Live view as scrcpy and Android Studio's Running Devices (issue 33), in Chromium at 1280×800 against `awb serve`
 * and its embedded SimDroid: a drag streamed as it moves (the list scrolls while the mouse is still down), typing with
 * no field focused said and not sent, zoom, a full-size screenshot saved as PNG and a clip recorded as WebM, and a
 * header that stays on one line.
 */
describe('the Live view’s tools in Chromium', () => {
  let serve: ServeProcess;
  let browser: Browser;
  let page: Page;
  let api: Awaited<ReturnType<typeof apiClient>>;

  beforeAll(async () => {
    serve = await startServe();
    browser = await openWorkbench(serve, { width: 1280, height: 800 });
    page = browser.page;
    api = await apiClient(serve);
    await page.click('[data-view="live"]');
    await page.locator(`${LIVE_FRAME}[${FRAME_COUNT}]`).waitFor({ timeout: 15_000 });
  }, 60_000);

  afterAll(async () => {
    api?.close();
    await browser?.close();
    await serve?.stop();
    if (serve) rmSync(serve.home, { recursive: true, force: true });
  });

  /** A device point (px) on the page. */
  async function at(x: number, y: number): Promise<{ x: number; y: number }> {
    const box = (await page.getByTestId('live-screen').boundingBox())!;
    return { x: box.x + (x / 1080) * box.width, y: box.y + (y / 2400) * box.height };
  }
  const painted = async () => Number(await page.locator(LIVE_FRAME).getAttribute(FRAME_COUNT));
  async function saved(d: Download): Promise<Buffer> {
    return readFileSync((await d.path())!);
  }

  it('keeps its header on one line at 1280 px, above the screen', async () => {
    const header = (await page.locator('.live-header').boundingBox())!;
    expect(header.height).toBeLessThan(40);
    const screen = (await page.getByTestId('live-screen').boundingBox())!;
    expect(screen.y).toBeGreaterThanOrEqual(header.y + header.height);
    expect(screen.y - header.y).toBeLessThan(60);
  });

  it('streams a drag: the app drawer scrolls while the mouse is still down', async () => {
    // Open the drawer with a drag up from the home screen.
    const from = await at(540, 1900);
    const to = await at(540, 700);
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    for (let i = 1; i <= 6; i++) await page.mouse.move(from.x, from.y + ((to.y - from.y) * i) / 6);
    await page.mouse.up();
    await expect.poll(async () => flattenUiTree((await api.api.screenState({ serial: 'simdroid-1' })).tree).some((e) => e.node.text === 'Calculator'), { timeout: 10_000 }).toBe(true);
    // Now drag the list and hold: frames come while the button is down, and the list has moved under the finger.
    const label = (await api.api.screenState({ serial: 'simdroid-1' })).tree;
    const low = flattenUiTree(label).find((e) => e.node.text && e.node.bounds.top > 1000 && e.node.bounds.top < 1500)!;
    const start = await at(540, 1600);
    await page.mouse.move(start.x, start.y);
    await page.mouse.down();
    const before = await painted();
    for (let i = 1; i <= 8; i++) await page.mouse.move(start.x, start.y - i * 20);
    await expect.poll(painted, { timeout: 10_000 }).toBeGreaterThan(before);
    const moved = findFirst(flattenUiTree((await api.api.screenState({ serial: 'simdroid-1' })).tree), { text: low.node.text });
    expect(moved!.node.bounds.top).toBeLessThan(low.node.bounds.top);
    await page.mouse.up();
    await expect.poll(() => page.getByTestId('live-last-input').innerText(), { timeout: 10_000 }).toMatch(/moves streamed/);
  });

  it('says so when text is typed with no field focused, and sends nothing', async () => {
    await api.api.sendInput({ serial: 'simdroid-1', event: { kind: 'key', key: 'HOME' } });
    await expect.poll(async () => (await api.api.screenState({ serial: 'simdroid-1' })).foreground.package).toBe('com.google.android.apps.nexuslauncher');
    await page.getByTestId('type-text').fill('hello');
    await page.getByTestId('send-text').click();
    await expect.poll(() => page.getByTestId('live-no-focus').innerText()).toMatch(/No text field is focused on the device/);
  });

  it('zooms in and back to fit', async () => {
    const fit = (await page.getByTestId('live-screen').boundingBox())!.height;
    await page.getByTestId('zoom-in').click();
    const zoomed = (await page.getByTestId('live-screen').boundingBox())!.height;
    expect(zoomed).not.toBe(fit);
    expect([0.2, 0.25, 1 / 3, 0.5, 0.75, 1].some((z) => Math.abs(zoomed - 2400 * z) < 2)).toBe(true);
    await page.getByTestId('zoom-fit').click();
    expect((await page.getByTestId('live-screen').boundingBox())!.height).toBe(fit);
    // SimDroid draws portrait only: rotation is off, and says why.
    expect(await page.getByTestId('rotate-right').isDisabled()).toBe(true);
    expect(await page.getByTestId('rotate-right').getAttribute('title')).toMatch(/cannot be rotated/);
  });

  it('inspects as Appium Inspector: a node as an action or a selector, copied; a warning when a dialog covers it', async () => {
    // Settings → About emulated device → Device name: the Rename dialog opens over the list.
    const serial = 'simdroid-1';
    const tapText = async (text: string) => {
      const e = findFirst(flattenUiTree((await api.api.screenState({ serial })).tree), { text });
      if (!e) throw new Error(`no ${JSON.stringify(text)} on screen`);
      const b = e.node.bounds;
      await api.api.sendInput({ serial, event: { kind: 'tap', x: (b.left + b.right) / 2, y: (b.top + b.bottom) / 2 } });
    };
    await api.api.sendInput({ serial, event: { kind: 'key', key: 'HOME' } });
    await api.api.sendInput({ serial, event: { kind: 'swipe', x1: 540, y1: 1900, x2: 540, y2: 700, durationMs: 300 } });
    await tapText('Settings');
    for (let i = 0; i < 4 && !findFirst(flattenUiTree((await api.api.screenState({ serial })).tree), { text: 'About emulated device' }); i++) {
      await api.api.sendInput({ serial, event: { kind: 'swipe', x1: 540, y1: 1800, x2: 540, y2: 600, durationMs: 300 } });
    }
    await tapText('About emulated device');
    await tapText('Device name');
    await page.getByTestId('refresh-tree').click();
    const state = await api.api.screenState({ serial });
    const nodes = flattenUiTree(state.tree);
    const build = nodes.find((e) => e.node.text === 'Build number')!;
    const rename = nodes.find((e) => e.node.text === 'Rename')!;
    await page.getByTestId('tree-filter').fill('Build number');
    await page.getByTestId(`tree-node-${build.ordinal}`).click();
    // The dialog is over it: a tap at its centre would land on the dialog's window.
    expect(await page.getByTestId('node-covered').innerText()).toMatch(/^Covered by another window \(com\.android\.settings FrameLayout/);
    await page.getByTestId('tree-filter').fill('Rename');
    await page.getByTestId(`tree-node-${rename.ordinal}`).click();
    expect(await page.getByTestId('node-covered').count()).toBe(0);
    // As an action, in the workbench's JSON and in AndroidWorld's (json.dumps spacing): the same element index.
    expect(await page.getByTestId('copy-text').innerText()).toBe(`{"action_type":"click","index":${rename.ordinal}}`);
    await page.getByTestId('copy-format').selectOption('androidworld');
    expect(await page.getByTestId('copy-text').innerText()).toBe(`{"action_type": "click", "index": ${rename.ordinal}}`);
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.getByTestId('copy-node').click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(`{"action_type": "click", "index": ${rename.ordinal}}`);
    // As selectors: the UiAutomator one by its unique resource-id, and an XPath that finds exactly this node in the dumped XML.
    expect(rename.node.resourceId).toBe('android:id/button1');
    await page.getByTestId('copy-format').selectOption('uiautomator');
    expect(await page.getByTestId('copy-text').innerText()).toBe('new UiSelector().resourceId("android:id/button1")');
    await page.getByTestId('copy-format').selectOption('resource-id');
    expect(await page.getByTestId('copy-text').innerText()).toBe('android:id/button1');
    // A container with no id, text or description: found by its position from the root.
    const plain = nodes.find((e) => e.depth > 1 && !e.node.resourceId && !e.node.text && !e.node.contentDesc)!;
    for (const e of [rename, build, plain]) {
      await page.getByTestId('tree-filter').fill(e.node.text);
      await page.getByTestId(`tree-node-${e.ordinal}`).click();
      await page.getByTestId('copy-format').selectOption('xpath');
      const xpath = await page.getByTestId('copy-text').innerText();
      const found = await page.evaluate(([xml, xp]) => {
        const doc = new DOMParser().parseFromString(xml!, 'text/xml');
        const r = doc.evaluate(xp!, doc, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
        return Array.from({ length: r.snapshotLength }, (_, i) => (r.snapshotItem(i) as Element).getAttribute('bounds'));
      }, [state.xml, xpath]);
      const b = e.node.bounds;
      expect(found, xpath).toEqual([`[${b.left},${b.top}][${b.right},${b.bottom}]`]);
    }
    await page.getByTestId('tree-filter').fill('');
    await api.api.sendInput({ serial, event: { kind: 'key', key: 'BACK' } });
  });

  it('saves a full-size screenshot as PNG', async () => {
    const [d] = await Promise.all([page.waitForEvent('download'), page.getByTestId('live-screenshot').click()]);
    expect(d.suggestedFilename()).toMatch(/^simdroid-1-\d{8}-\d{6}\.png$/);
    const png = await saved(d);
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1080, 2400]);
  });

  it('records a clip of the session as WebM', async () => {
    await page.getByTestId('live-record').click();
    expect(await page.getByTestId('live-record').getAttribute('aria-pressed')).toBe('true');
    // Something to see: Home, then a drag up (the drawer opening).
    await page.getByTestId('key-home').click();
    const from = await at(540, 1900);
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    for (let i = 1; i <= 5; i++) await page.mouse.move(from.x, from.y - i * 60);
    await page.mouse.up();
    await page.waitForTimeout(1500);
    const [d] = await Promise.all([page.waitForEvent('download'), page.getByTestId('live-record').click()]);
    expect(d.suggestedFilename()).toMatch(/^simdroid-1-\d{8}-\d{6}\.webm$/);
    const webm = await saved(d);
    expect(webm.subarray(0, 4).toString('hex')).toBe('1a45dfa3'); // EBML: a Matroska/WebM file
    expect(webm.includes(Buffer.from('webm'))).toBe(true);
    expect(webm.length).toBeGreaterThan(2000);
  }, 30_000);
});
