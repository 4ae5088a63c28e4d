import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ELECTRON_CSP, hardenSession, isAppUrl, rendererResponder, type HardenedSession } from '../../electron/security.js';

/** The window's walls (electron/security.ts), without Electron. */
describe('awb://app responder', () => {
  const dir = mkdtempSync(join(tmpdir(), 'awb-renderer-'));
  mkdirSync(join(dir, 'dist', 'assets'), { recursive: true });
  writeFileSync(join(dir, 'dist', 'index.html'), '<!doctype html><div id="root"></div>');
  writeFileSync(join(dir, 'dist', 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(dir, 'secret.txt'), 'outside the renderer');
  const serve = rendererResponder(join(dir, 'dist'));
  const get = (url: string, method = 'GET') => serve({ url, method });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serves the build with its content type and the CSP on every response', async () => {
    const js = await get('awb://app/assets/app.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(js.headers.get('content-security-policy')).toBe(ELECTRON_CSP);
    expect(await js.text()).toBe('console.log(1)');
    const head = await get('awb://app/assets/app.js', 'HEAD');
    expect(await head.text()).toBe('');
  });

  it('answers app routes with index.html', async () => {
    const r = await get('awb://app/trajectories/42');
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await r.text()).toContain('id="root"');
  });

  it('never serves a file outside the build', async () => {
    for (const url of ['awb://app/%2e%2e/secret.txt', 'awb://app/..%2fsecret.txt', 'awb://app/assets/..%2f..%2fsecret.txt']) {
      const r = await get(url);
      expect(await r.text(), url).not.toContain('outside the renderer');
    }
    expect((await get('awb://app/%E0%A4%A')).status).toBe(400);
    expect((await get('awb://other/index.html')).status).toBe(404);
    expect((await get('awb://app/index.html', 'POST')).status).toBe(405);
  });

  it('says how to build the renderer when it is missing', async () => {
    const r = await rendererResponder(join(dir, 'nothing-here'))({ url: 'awb://app/index.html', method: 'GET' });
    expect(r.status).toBe(500);
    expect(await r.text()).toContain('npm run build');
  });

  it('recognizes the app origin only', () => {
    expect(isAppUrl('awb://app/index.html#/live')).toBe(true);
    expect(isAppUrl('awb://evil/index.html')).toBe(false);
    expect(isAppUrl('https://app/index.html')).toBe(false);
    expect(isAppUrl('not a url')).toBe(false);
  });
});

describe('session hardening', () => {
  function fakeSession() {
    const s = {
      request: null as null | ((c: unknown, p: string, cb: (g: boolean) => void) => void),
      check: null as null | ((c: unknown, p: string) => boolean),
      filter: null as null | { urls: string[] },
      before: null as null | ((d: { url: string }, cb: (r: { cancel: boolean }) => void) => void),
      headers: null as null | ((d: { responseHeaders?: Record<string, string[]> }, cb: (r: { responseHeaders?: Record<string, string[]> }) => void) => void),
    };
    const session: HardenedSession = {
      setPermissionRequestHandler: (h) => void (s.request = h),
      setPermissionCheckHandler: (h) => void (s.check = h),
      webRequest: {
        onBeforeRequest: (f, l) => void ((s.filter = f), (s.before = l)),
        onHeadersReceived: (l) => void (s.headers = l),
      },
    };
    hardenSession(session);
    return s;
  }

  it('grants clipboard writes and nothing else', () => {
    const s = fakeSession();
    const ask = (p: string) => new Promise<boolean>((r) => s.request!(null, p, r));
    return Promise.all([ask('clipboard-sanitized-write'), ask('media'), ask('geolocation'), ask('notifications')]).then((granted) => {
      expect(granted).toEqual([true, false, false, false]);
      expect(s.check!(null, 'openExternal')).toBe(false);
    });
  });

  it('cancels network requests and replaces any CSP a response brings', () => {
    const s = fakeSession();
    expect(s.filter!.urls).toEqual(expect.arrayContaining(['http://*/*', 'https://*/*', 'ws://*/*', 'wss://*/*']));
    let cancel: boolean | undefined;
    s.before!({ url: 'https://tracker.example/x' }, (r) => (cancel = r.cancel));
    expect(cancel).toBe(true);
    let headers: Record<string, string[]> | undefined;
    s.headers!({ responseHeaders: { 'content-security-policy': ["default-src *"], 'X-Other': ['1'] } }, (r) => (headers = r.responseHeaders));
    expect(headers).toEqual({ 'Content-Security-Policy': [ELECTRON_CSP], 'X-Other': ['1'] });
  });
});
