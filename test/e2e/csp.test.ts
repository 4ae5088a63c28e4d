import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSP } from '../../core/api/ws/server.js';
import { openBrowser, startServe, type Browser, type ServeProcess } from './harness.js';

/**
 * Issue 32: the page's CSP allows styles from the built CSS only (no 'unsafe-inline') and no form submission. Chromium
 * reports every violation as a `securitypolicyviolation` event; every view, a replay with its images and the live
 * screen are opened and none may be reported. An inline style attribute, which the policy must block, is the control.
 */
const AWB = fileURLToPath(new URL('../../bin/awb.js', import.meta.url));

describe('the workbench under its Content-Security-Policy, in Chromium', () => {
  let serve: ServeProcess;
  let browser: Browser;

  beforeAll(async () => {
    const home = mkdtempSync(join(tmpdir(), 'awb-e2e-csp-'));
    // One recorded episode, so the replay view has screenshots, a tree and rewards to show.
    execFileSync(process.execPath, [AWB, 'run', '--task', 'ContactsAddContact', '--seed', '2', '--json'], { env: { ...process.env, AWB_HOME: home, AWB_DB: '' }, stdio: 'ignore' });
    serve = await startServe({ home });
    browser = await openBrowser();
    await browser.page.addInitScript(() => {
      const w = window as unknown as { cspViolations: string[] };
      w.cspViolations = [];
      document.addEventListener('securitypolicyviolation', (e) => w.cspViolations.push(`${e.effectiveDirective} ${e.blockedURI || '(inline)'} ${e.sourceFile}:${e.lineNumber}`));
    });
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    if (serve) rmSync(serve.home, { recursive: true, force: true });
  });

  const violations = () => browser.page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations);

  it('serves the policy without unsafe-inline styles and with form-action none', async () => {
    const r = await browser.page.goto(serve.url);
    expect(r?.status()).toBe(200);
    const csp = (await browser.page.request.get(`http://127.0.0.1:${serve.port}/`)).headers()['content-security-policy'];
    expect(csp).toBe(CSP);
    expect(csp).toContain("style-src 'self';");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("form-action 'none'");
  });

  it('shows every view, a replay and the live screen without one violation', async () => {
    const { page } = browser;
    await page.locator('.connection.open').waitFor({ timeout: 15_000 });
    for (const hash of ['#/devices', '#/live', '#/agent', '#/trajectories', '#/trajectories/episode/1', '#/training', '#/adaptation', '#/jobs', '#/settings']) {
      await page.evaluate((h) => (location.hash = h), hash);
      await page.waitForTimeout(hash === '#/live' || hash.includes('episode') ? 1500 : 400);
    }
    // The replay drew its screenshot (an <img> from the API, styled through the CSSOM).
    expect(await violations()).toEqual([]);
  });

  it('blocks an inline style attribute (the control: the listener sees what the policy refuses)', async () => {
    await browser.page.evaluate(() => {
      const d = document.createElement('div');
      d.innerHTML = '<span style="color: red">x</span>';
      document.body.append(d);
    });
    await browser.page.waitForTimeout(200);
    expect((await violations()).some((v) => v.startsWith('style-src-attr'))).toBe(true);
  });
});
