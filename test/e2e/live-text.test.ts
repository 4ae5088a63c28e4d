/// <reference lib="dom" />
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startServe, type Browser, type ServeProcess, openWorkbench } from './harness.js';
import { FRAME_COUNT, LIVE_FRAME } from './pixels.js';

/**
 * Text selection, the clipboard, Simple Calendar's repetition and issue 36's apps in the Live view, in Chromium against
 * `awb serve`, as a person uses them there: rows of the inspector tapped, text sent, and a press held on
 * the mirrored screen (a long press on the device) opening the floating text toolbar.
 */
describe('the Live view: text selection and a repeating event', () => {
  let serve: ServeProcess;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    serve = await startServe();
    browser = await openWorkbench(serve);
    page = browser.page;
    await page.click('[data-view="live"]');
    await page.locator(`${LIVE_FRAME}[${FRAME_COUNT}]`).waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    if (serve) rmSync(serve.home, { recursive: true, force: true });
  });

  /** The inspector's row for a node with this text (or description), after reading the tree again. */
  async function row(label: string) {
    const hit = page.locator('.live-tree-row', { has: page.locator(`.live-node-text:text-is('"${label}"'), .live-desc:text-is("${label}")`) }).first();
    // 20 s: under the whole suite's load the mirror and the tree can lag; a miss names what the tree held instead.
    try {
      await expect.poll(async () => {
        await page.getByTestId('refresh-tree').click();
        return hit.count();
      }, { timeout: 20_000 }).toBeGreaterThan(0);
    } catch (e) {
      const texts = await page.locator('.live-node-text, .live-desc').allInnerTexts();
      throw new Error(`no node "${label}" in the tree; it held: ${JSON.stringify(texts)}`, { cause: e });
    }
    return hit;
  }

  async function tapNode(label: string) {
    await (await row(label)).click();
    await page.getByTestId('tap-node').click();
  }

  /** The page point over a node's place on the mirrored screen, `dx` device pixels in from its left edge. */
  async function over(label: string, dx?: number) {
    await (await row(label)).click();
    const bounds = await page.locator('[data-attr="bounds"] td').innerText();
    const [l, t, r, b] = bounds.match(/-?\d+/g)!.map(Number);
    const box = (await page.locator(LIVE_FRAME).boundingBox())!;
    const scale = box.width / 1080;
    return { x: box.x + (dx !== undefined ? l! + dx : (l! + r!) / 2) * scale, y: box.y + ((t! + b!) / 2) * scale };
  }

  /** A press held for 1.2 s on the mirrored screen: the device gets a long press. */
  async function hold(p: { x: number; y: number }) {
    await page.mouse.move(p.x, p.y);
    await page.mouse.down();
    await page.waitForTimeout(1200);
    await page.mouse.up();
  }

  async function openApp(label: string) {
    await page.getByTestId('key-home').click();
    const box = (await page.locator(LIVE_FRAME).boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height * 0.85);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height * 0.3, { steps: 8 });
    await page.mouse.up();
    await tapNode(label);
  }

  async function typeText(text: string) {
    await page.getByTestId('type-text').fill(text);
    await page.getByTestId('send-text').click();
  }

  it('a held press on a field selects its word and shows Cut/Copy; Copy, then Paste into another field', async () => {
    await openApp('Contacts');
    await tapNode('Create contact');
    await tapNode('First name');
    await typeText('Ada');
    await hold(await over('Ada', 40));
    await tapNode('Copy');
    await hold(await over('Last name'));
    await tapNode('Paste');
    await expect.poll(async () => {
      await page.getByTestId('refresh-tree').click();
      return page.locator('.live-tree-row .live-node-text:text-is(\'"Ada"\')').count();
    }, { timeout: 10_000 }).toBe(2);
  });

  it('issue 36\'s apps open from the drawer and read in the inspector: OpenTracks\' track list, Joplin\'s notes', async () => {
    await openApp('OpenTracks');
    await row('Morning Run');
    await openApp('Joplin');
    await row('Welcome to Joplin');
  });

  it('"No repetition" in the event editor opens the repetition choices; Weekly adds "Repeat on" and "Repeat till"', async () => {
    await openApp('Calendar');
    await tapNode('New event');
    await tapNode('No repetition');
    await tapNode('Weekly');
    await row('Repeat on');
    await row('Forever');
  });
});
