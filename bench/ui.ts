/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * UI benchmarks, measured in the browser (issue 5): Debian Chromium via playwright-core against
 * `awb serve` in its own process.
 *   - SimDroid mirror fps in the Live view while the screen keeps changing;
 *   - input-to-new-frame: a click on the mirrored screen until the new frame is shown;
 *   - the trajectory table over 10,000 episodes: first render, and scrolling without loading all rows.
 *   npm run bench -- ui      (needs `npm run build` and /usr/bin/chromium)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRun, openStore } from '../core/store/index.js';
import { TASKS } from '../core/tasks/registry.js';
import { boundsCenter, flattenUiTree, findFirst } from '../core/a11y/ui-tree.js';
import { countFrames, FRAME_COUNT, LIVE_FRAME } from '../test/e2e/pixels.js';
import { apiClient, openBrowser, startServe } from '../test/e2e/harness.js';
import { captureEpisodes, replay } from './store.js';
import { fmt, stats } from './stats.js';

async function fillEpisodes(home: string, n: number): Promise<void> {
  const pool = (await captureEpisodes(10)).map((e) => ({ ...e, steps: e.steps.slice(0, 3) }));
  const db = openStore(join(home, 'trajectories.db'));
  const runs = [createRun(db, { kind: 'suite', name: 'bench A' }), createRun(db, { kind: 'training', name: 'bench B' })];
  for (let i = 0; i < n; i++) {
    const ep = pool[i % pool.length]!;
    const ended = i % 2 === 0 ? { ...ep, result: { ...ep.result, success: true, status: 'success' as const } } : ep;
    replay(db, runs[i % 2]!.id, ended, 1_700_000_000_000 + i * 60_000, TASKS[i % TASKS.length]!.id, Math.floor(i / TASKS.length));
  }
  db.close();
}

export async function benchUi(): Promise<Record<string, unknown>> {
  const results: Record<string, unknown> = {};
  const home = mkdtempSync(join(tmpdir(), 'awb-bench-ui-'));
  await fillEpisodes(home, 10_000);
  const serve = await startServe({ home });
  const browser = await openBrowser();
  const driver = await apiClient(serve);
  try {
    const { page } = browser;
    await driver.api.updateSettings({ mirrorFps: 60, mirrorScale: 0.5 });
    // tsx compiles this file keeping function names (an esbuild `__name` helper the page lacks).
    await page.addInitScript('window.__name = (f) => f');
    await page.goto(serve.url);
    await page.locator('.connection.open').waitFor();

    // Mirror fps: the page counts new frames shown while Node keeps scrolling the app drawer.
    await page.click('[data-view="live"]');
    const img = LIVE_FRAME;
    await page.locator(`${img}[${FRAME_COUNT}]`).waitFor();
    await driver.api.sendInput({ serial: 'simdroid-1', event: { kind: 'swipe', x1: 540, y1: 2000, x2: 540, y2: 600, durationMs: 200 } });
    const frames = await countFrames(page);
    // Two inputs in flight at all times, so a change is always pending and the mirror, not the
    // input round trip, sets the pace.
    const seconds = 5;
    const end = Date.now() + seconds * 1000;
    let n = 0;
    const drive = async () => {
      while (Date.now() < end) {
        const down = n++ % 2 === 0;
        await driver.api.sendInput({ serial: 'simdroid-1', event: { kind: 'swipe', x1: 540, y1: down ? 1600 : 900, x2: 540, y2: down ? 900 : 1600, durationMs: 100 } });
      }
    };
    await Promise.all([drive(), drive()]);
    const { painted: shown, presentedPerSecond: presented } = await frames();
    const span = (shown.at(-1)! - shown[0]!) / 1000;
    const fps = (shown.length - 1) / span;
    results.mirrorFps = { frames: shown.length, seconds: span, fps, presentedFps: presented };
    console.log(`mirror (Live view, half size, drawer scrolled continuously): ${fps.toFixed(1)} fps painted over ${span.toFixed(1)} s, ${presented.toFixed(1)} presented`);

    // Input to new frame: click an app icon on the mirrored screen (Phone, on the home screen), then
    // Back; time from the click to the next frame shown.
    await driver.api.sendInput({ serial: 'simdroid-1', event: { kind: 'key', key: 'HOME' } });
    await page.waitForTimeout(300);
    const state = await driver.api.screenState({ serial: 'simdroid-1' });
    const icon = findFirst(flattenUiTree(state.tree), { text: 'Phone' });
    if (!icon) throw new Error('no Phone icon on the home screen');
    const at = boundsCenter(icon.node.bounds);
    const box = (await page.locator('[data-testid="live-screen"]').boundingBox())!;
    const latencies: number[] = [];
    for (let i = 0; i < 30; i++) {
      const wait = page.evaluate(([sel, attr]) => new Promise<number>((resolve) => {
        const t0 = performance.now();
        const o = new MutationObserver(() => (o.disconnect(), resolve(performance.now() - t0)));
        o.observe(document.querySelector(sel)!, { attributes: true, attributeFilter: [attr] });
        (window as unknown as { armed_: boolean }).armed_ = true;
      }), [img, FRAME_COUNT] as const);
      await page.waitForFunction(() => (window as unknown as { armed_: boolean }).armed_);
      await page.evaluate(() => ((window as unknown as { armed_: boolean }).armed_ = false));
      if (i % 2 === 0) await page.mouse.click(box.x + (at.x / 1080) * box.width, box.y + (at.y / 2400) * box.height);
      else await page.click('[data-testid="key-back"]');
      latencies.push(await wait);
      await page.waitForTimeout(100);
    }
    const lat = stats(latencies);
    results.inputToFrame = lat;
    console.log(`input → new frame shown (click on the screen / Back button): ${fmt(lat)}`);

    // The trajectory table: first render over 10,000 episodes, then scrolling.
    let listCalls = 0;
    let rowsFetched = 0;
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    cdp.on('Network.webSocketFrameSent', (e: { response: { payloadData: string } }) => {
      const m = /"m":"listEpisodes","a":\{[^}]*"limit":(\d+)/.exec(e.response.payloadData);
      if (e.response.payloadData.includes('"listEpisodes"')) listCalls++;
      if (m) rowsFetched += Number(m[1]);
    });
    const firstRender = await page.evaluate(() => new Promise<number>((resolve) => {
      const t0 = performance.now();
      const o = new MutationObserver(() => {
        if (document.querySelector('[data-testid^="episode-row-"]')) {
          o.disconnect();
          resolve(performance.now() - t0);
        }
      });
      o.observe(document.body, { childList: true, subtree: true });
      (document.querySelector('[data-view="trajectories"]') as HTMLElement).click();
    }));
    const total = await page.locator('[data-testid="episode-total"]').innerText();
    console.log(`trajectory table, 10,000 episodes: first rows shown ${firstRender.toFixed(0)} ms after the click (${total})`);
    const scrollTimes: number[] = [];
    for (const fraction of [0.1, 0.35, 0.5, 0.8, 1]) {
      scrollTimes.push(await page.evaluate((f) => new Promise<number>((resolve) => {
        const el = document.querySelector('[data-testid="episode-table"]') as HTMLElement;
        const t0 = performance.now();
        el.scrollTop = f * (el.scrollHeight - el.clientHeight);
        const check = () => {
          const rows = [...el.querySelectorAll('[data-testid^="episode-row-"]')] as HTMLElement[];
          const r = el.getBoundingClientRect();
          const visible = rows.some((row) => {
            const b = row.getBoundingClientRect();
            return b.top >= r.top && b.bottom <= r.bottom && row.innerText.trim().length > 0;
          });
          if (visible) resolve(performance.now() - t0);
          else requestAnimationFrame(check);
        };
        requestAnimationFrame(check);
      }), fraction));
    }
    const scroll = stats(scrollTimes);
    const domRows = await page.locator('[data-testid^="episode-row-"]').count();
    results.table = { episodes: 10_000, total, firstRenderMs: firstRender, scrollToRowsMs: scroll, listEpisodesCalls: listCalls, rowsFetched, domRows };
    console.log(`scrolling to 5 positions: rows shown ${fmt(scroll)}; ${listCalls} listEpisodes calls fetched ${rowsFetched} rows in all; ${domRows} rows in the DOM`);
  } finally {
    driver.close();
    await browser.close();
    await serve.stop();
    rmSync(home, { recursive: true, force: true });
  }
  return results;
}
