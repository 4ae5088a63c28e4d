import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { API_INPUTS } from '../../core/api/inputs.js';
import { CSP } from '../../core/api/ws/server.js';

/**
 * electron/main.ts: its window options read from the source, then the whole main process run
 * against a mocked `electron` module, with a real API host process behind it.
 */
const MAIN = 'electron/main.ts';

function webPreferencesOf(source: string): Map<string, string> {
  const file = ts.createSourceFile(MAIN, source, ts.ScriptTarget.ES2022, true);
  const found: ts.ObjectLiteralExpression[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isNewExpression(node) && node.expression.getText() === 'BrowserWindow') {
      const opts = node.arguments?.[0];
      if (opts && ts.isObjectLiteralExpression(opts)) {
        for (const p of opts.properties) {
          if (ts.isPropertyAssignment(p) && p.name.getText() === 'webPreferences' && ts.isObjectLiteralExpression(p.initializer)) found.push(p.initializer);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  if (found.length !== 1) throw new Error(`expected one \`new BrowserWindow({ webPreferences: {…} })\` in ${MAIN}, found ${found.length}`);
  const prefs = new Map<string, string>();
  for (const p of found[0]!.properties) {
    if (!ts.isPropertyAssignment(p)) throw new Error(`webPreferences must be plain \`key: value\` pairs, found ${p.getText()}`);
    prefs.set(p.name.getText(), p.initializer.getText());
  }
  return prefs;
}

describe('electron/main.ts source', () => {
  const source = readFileSync(MAIN, 'utf8');

  it('creates windows isolated, sandboxed, without Node, with web security', () => {
    const prefs = webPreferencesOf(source);
    expect(prefs.get('contextIsolation')).toBe('true');
    expect(prefs.get('sandbox')).toBe('true');
    expect(prefs.get('nodeIntegration')).toBe('false');
    expect(prefs.get('webSecurity')).toBe('true');
    for (const risky of ['nodeIntegrationInWorker', 'nodeIntegrationInSubFrames', 'allowRunningInsecureContent', 'webviewTag']) {
      expect(prefs.get(risky) ?? 'false').toBe('false');
    }
    expect(prefs.get('preload')).toBe('PRELOAD');
  });

  it('holds no per-method code: no API member is named anywhere in the shell', () => {
    const members = Object.keys(API_INPUTS);
    expect(members.length).toBeGreaterThan(20);
    for (const f of readdirSync('electron').filter((n) => n.endsWith('.ts'))) {
      const text = readFileSync(join('electron', f), 'utf8');
      const named = members.filter((m) => new RegExp(`\\b${m}\\b`).test(text));
      expect(named, `electron/${f}`).toEqual([]);
    }
  });
});

// ---- the main process against a mocked electron ----

const E = vi.hoisted(() => {
  type L = (...args: any[]) => unknown;
  class Emitter {
    readonly listeners = new Map<string, L[]>();
    on(event: string, l: L) {
      this.listeners.set(event, [...(this.listeners.get(event) ?? []), l]);
      return this;
    }
    once(event: string, l: L) {
      const wrapped: L = (...args) => (this.removeListener(event, wrapped), l(...args));
      return this.on(event, wrapped);
    }
    removeListener(event: string, l: L) {
      this.listeners.set(event, (this.listeners.get(event) ?? []).filter((x) => x !== l));
      return this;
    }
    off(event: string, l: L) {
      return this.removeListener(event, l);
    }
    emit(event: string, ...args: unknown[]) {
      for (const l of this.listeners.get(event) ?? []) l(...args);
    }
  }
  let nextId = 1;
  class FakeContents extends Emitter {
    readonly id = nextId++;
    readonly mainFrame = { url: 'awb://app/index.html' };
    readonly sent: Array<[string, unknown]> = [];
    openHandler: ((d: { url: string }) => { action: string }) | null = null;
    send(channel: string, msg: unknown) {
      this.sent.push([channel, msg]);
    }
    isDestroyed() {
      return false;
    }
    setWindowOpenHandler(h: (d: { url: string }) => { action: string }) {
      this.openHandler = h;
    }
  }
  const app = new (class extends Emitter {
    isPackaged = false;
    quits = 0;
    sandboxed = false;
    readyCalled = false;
    private resolveReady!: () => void;
    private readyPromise = new Promise<void>((r) => (this.resolveReady = r));
    enableSandbox() {
      this.sandboxed = true;
    }
    requestSingleInstanceLock() {
      return true;
    }
    whenReady() {
      return this.readyPromise;
    }
    becomeReady() {
      this.readyCalled = true;
      this.resolveReady();
    }
    quit() {
      this.quits++;
    }
  })();
  const windows: any[] = [];
  class BrowserWindow extends Emitter {
    readonly webContents = new FakeContents();
    readonly loaded: string[] = [];
    constructor(readonly options: any) {
      super();
      windows.push(this);
      app.emit('web-contents-created', {}, this.webContents);
    }
    loadURL(url: string) {
      this.loaded.push(url);
      return Promise.resolve();
    }
    show() {}
    static getAllWindows() {
      return windows;
    }
  }
  const state = {
    schemesBeforeReady: null as unknown,
    protocolHandlers: new Map<string, (r: { url: string; method: string }) => Promise<Response>>(),
    session: {
      permission: null as null | ((c: unknown, p: string, cb: (g: boolean) => void) => void),
      beforeRequest: null as unknown,
      headers: null as unknown,
    },
    errors: [] as string[],
    opened: [] as string[],
  };
  return { Emitter, FakeContents, BrowserWindow, app, windows, state, ipcMain: new Emitter() };
});

vi.mock('electron', () => ({
  app: E.app,
  BrowserWindow: E.BrowserWindow,
  ipcMain: E.ipcMain,
  protocol: {
    registerSchemesAsPrivileged: (schemes: unknown) => {
      if (!E.app.readyCalled) E.state.schemesBeforeReady = schemes;
    },
    handle: (scheme: string, h: (r: { url: string; method: string }) => Promise<Response>) => E.state.protocolHandlers.set(scheme, h),
  },
  session: {
    defaultSession: {
      setPermissionRequestHandler: (h: (c: unknown, p: string, cb: (g: boolean) => void) => void) => (E.state.session.permission = h),
      setPermissionCheckHandler: () => {},
      webRequest: {
        onBeforeRequest: (filter: unknown) => (E.state.session.beforeRequest = filter),
        onHeadersReceived: (l: unknown) => (E.state.session.headers = l),
      },
    },
  },
  // No keychain here: the host still starts (it asks main for endpoint keys first); storing a key would be refused.
  safeStorage: { isEncryptionAvailable: () => false, encryptString: () => Buffer.alloc(0), decryptString: () => '' },
  shell: { openExternal: (url: string) => E.state.opened.push(url) },
  dialog: { showErrorBox: (title: string, detail: string) => E.state.errors.push(`${title}: ${detail}`) },
  Menu: { buildFromTemplate: (t: unknown) => ({ template: t }), setApplicationMenu: () => {} },
  utilityProcess: { fork: () => { throw new Error('the dev runtime must not use utilityProcess'); } },
}));

async function until<T>(what: string, get: () => T | undefined, ms = 20_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() - started > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('electron/main.ts under a mocked electron', () => {
  const home = mkdtempSync(join(tmpdir(), 'awb-main-'));
  let win: InstanceType<typeof E.BrowserWindow>;

  beforeAll(async () => {
    vi.stubEnv('AWB_HOME', home);
    vi.stubEnv('AWB_NO_ADB', '1');
    vi.stubEnv('AWB_NODE', process.execPath);
    vi.stubEnv('AWB_HOST_RUNTIME', '');
    await import('../../electron/main.js');
    expect(E.state.schemesBeforeReady).toEqual([{ scheme: 'awb', privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
    expect(E.app.sandboxed).toBe(true);
    E.app.becomeReady();
    win = await until('a window', () => E.windows[0]);
  });

  afterAll(() => {
    vi.unstubAllEnvs();
    rmSync(home, { recursive: true, force: true });
  });

  it('opens a window on the app scheme with the sandboxed preload', () => {
    expect(E.state.errors).toEqual([]);
    expect(win.options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true });
    expect(basename(win.options.webPreferences.preload)).toBe('preload.cjs');
    expect(win.loaded).toEqual(['awb://app/index.html']);
  });

  it('serves the renderer with the CSP, tightened to no sockets', async () => {
    const handler = E.state.protocolHandlers.get('awb')!;
    const res = await handler({ url: 'awb://app/index.html', method: 'GET' });
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('ws:');
    expect(csp.split('; ').filter((d) => !d.startsWith('connect-src'))).toEqual(CSP.split('; ').filter((d) => !d.startsWith('connect-src')));
    expect(await res.text()).toContain('<div id="root">');
    expect(E.state.session.beforeRequest).toEqual({ urls: expect.arrayContaining(['http://*/*', 'https://*/*']) });
  });

  it('keeps every window in the app: navigation elsewhere and window.open are refused', () => {
    const prevented: string[] = [];
    const navigate = (url: string) => win.webContents.emit('will-frame-navigate', { url, preventDefault: () => prevented.push(url) });
    navigate('https://evil.example/');
    navigate('file:///etc/passwd');
    navigate('awb://app/index.html#/live');
    expect(prevented).toEqual(['https://evil.example/', 'file:///etc/passwd']);
    expect(win.webContents.openHandler!({ url: 'https://github.com/awb/docs' })).toEqual({ action: 'deny' });
    expect(win.webContents.openHandler!({ url: 'https://example.com/docs' })).toEqual({ action: 'deny' });
    expect(win.webContents.openHandler!({ url: 'javascript:alert(1)' })).toEqual({ action: 'deny' });
    // Only an allowed site goes to the system browser (issue 32): example.com is not one.
    expect(E.state.opened).toEqual(['https://github.com/awb/docs']);
    let granted: boolean | undefined;
    E.state.session.permission!(null, 'media', (g) => (granted = g));
    expect(granted).toBe(false);
  });

  it('relays a page\'s API call to the host process and the reply back to that window', async () => {
    const contents = win.webContents;
    const frame = contents.mainFrame;
    E.ipcMain.emit('awb:send', { sender: contents, senderFrame: { url: 'awb://app/index.html' } }, 'page', { t: 'call', id: 1, m: 'listPolicies', a: {} });
    E.ipcMain.emit('awb:send', { sender: contents, senderFrame: frame }, 'page', { t: 'call', id: 2, m: 'listPolicies', a: {} });
    const reply = await until('a reply', () => contents.sent.find(([, m]) => (m as { id: number }).id === 2));
    expect(reply[0]).toBe('awb:message');
    expect(reply[1]).toMatchObject({ t: 'ret', id: 2, v: expect.arrayContaining([expect.objectContaining({ name: 'oracle' })]) });
    // id 1 came from a frame that is not the window's main frame: never forwarded.
    await new Promise((r) => setTimeout(r, 200));
    expect(contents.sent.some(([, m]) => (m as { id: number }).id === 1)).toBe(false);
  });

  it('quits only after the host closed the workbench', async () => {
    let prevented = false;
    E.app.emit('before-quit', { preventDefault: () => (prevented = true) });
    expect(prevented).toBe(true);
    expect(E.app.quits).toBe(0);
    await until('app.quit()', () => (E.app.quits > 0 ? true : undefined));
    expect(E.state.errors).toEqual([]);
    // The second before-quit (from that app.quit()) goes through.
    let again = false;
    E.app.emit('before-quit', { preventDefault: () => (again = true) });
    expect(again).toBe(false);
  });
});
