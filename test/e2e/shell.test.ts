import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBrowser, startServe, type Browser, type ServeProcess } from './harness.js';

describe('the workbench in a real browser: shell and connection', () => {
  let serve: ServeProcess;
  let browser: Browser;

  beforeAll(async () => {
    serve = await startServe();
    browser = await openBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    rmSync(serve.home, { recursive: true, force: true });
  });

  it('refuses the page without the token', async () => {
    const r = await browser.page.goto(`http://127.0.0.1:${serve.port}/`);
    expect(r?.status()).toBe(401);
  });

  it('opens with the printed URL, drops the token from the address bar and connects over the WebSocket', async () => {
    const { page } = browser;
    await page.goto(serve.url);
    // The token is gone; the hash is the deep link of the view shown (docs/ui.md, Deep links).
    expect(page.url()).toBe(`http://127.0.0.1:${serve.port}/#/devices`);
    await page.locator('.connection.open').waitFor({ timeout: 10_000 });
    for (const v of ['devices', 'live', 'agent', 'trajectories', 'settings']) expect(await page.locator(`[data-view="${v}"]`).count()).toBe(1);
    // A reload keeps working: the cookie holds the token.
    await page.reload();
    await page.locator('.connection.open').waitFor({ timeout: 10_000 });
  });
});
