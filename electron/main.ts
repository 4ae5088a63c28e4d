import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  app, BrowserWindow, dialog, ipcMain, Menu, protocol, safeStorage, session, shell, utilityProcess,
  type IpcMainEvent, type MenuItemConstructorOptions,
} from 'electron';
import { parseFromHost } from '../core/api/ipc/channel.js';
import { hostRuntime, startHost, type HostProcess } from './host-process.js';
import { createRelay } from './relay.js';
import { appDataDir, SafeStorageSecretStore, serveSecrets } from './secret-store.js';
import { APP_SCHEME, APP_URL, guardContents, hardenSession, isAppUrl, rendererResponder } from './security.js';

/**
 * The Electron main process, kept thin: it opens windows on the built renderer, starts the API host
 * process (core/workbench/host.ts) and relays bridge messages between them (relay.ts). It runs no API
 * method itself. Compiled by electron/build.mjs to dist/electron/electron/main.js.
 */
const HERE = dirname(fileURLToPath(import.meta.url));

/** The app folder (the repository, or the packaged app): the first parent with a package.json. */
function appRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return from;
  }
}

const ROOT = appRoot(HERE);
const RENDERER_DIR = join(ROOT, 'dist', 'renderer');
const PRELOAD = join(HERE, 'preload.cjs');
const HOST_ENTRY = join(ROOT, 'core', 'workbench', 'host-entry.mjs');
const log = (m: string) => process.stderr.write(`awb main: ${m}\n`);

// Before `ready`: the app's scheme is a standard, secure origin (CSP 'self', module scripts, fetch).
protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
app.enableSandbox();

let host: HostProcess | null = null;
let quitting = false;

function createWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1440,
    height: 920,
    minWidth: 900,
    minHeight: 600,
    title: 'Android Agent Workbench',
    show: false,
    webPreferences: {
      preload: PRELOAD,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
    },
  });
  win.once('ready-to-show', () => win.show());
  win.loadURL(APP_URL).catch((e: Error) => log(`loading ${APP_URL}: ${e.message}`));
  return win;
}

function applicationMenu(): Menu {
  const mac = process.platform === 'darwin';
  const template: MenuItemConstructorOptions[] = [
    ...(mac ? [{ role: 'appMenu' } as const] : []),
    {
      label: 'File',
      submenu: [
        { label: 'New Window', accelerator: 'CmdOrCtrl+Shift+N', click: () => void createWindow() },
        { type: 'separator' },
        mac ? { role: 'close' } : { role: 'quit' },
      ],
    },
    { role: 'editMenu' },
    { role: 'viewMenu' },
    { role: 'windowMenu' },
  ];
  return Menu.buildFromTemplate(template);
}

function fail(title: string, detail: string): void {
  log(`${title}: ${detail}`);
  dialog.showErrorBox(title, detail);
  quitting = true;
  app.quit();
}

function start(): void {
  if (!existsSync(join(RENDERER_DIR, 'index.html'))) {
    return fail('The workbench UI is not built', `${RENDERER_DIR} has no index.html: run \`npm run build\` (\`npm start\` does).`);
  }
  hardenSession(session.defaultSession, log);
  protocol.handle(APP_SCHEME, rendererResponder(RENDERER_DIR));

  const h = host = startHost({
    runtime: hostRuntime(process.env, app.isPackaged),
    entry: HOST_ENTRY,
    // AWB_SECRETS=parent: the host asks this process for endpoint keys (safeStorage exists only here).
    env: { ...process.env, AWB_SECRETS: 'parent' },
    utilityFork: (modulePath, args, options) => utilityProcess.fork(modulePath, args, options),
  });
  serveSecrets(SafeStorageSecretStore.inDataDir(appDataDir(), safeStorage), h, log);
  h.onMessage((raw) => {
    const m = parseFromHost(raw);
    if (m && 'fatal' in m) fail('The workbench could not start', m.fatal);
  });
  h.onExit((code, error) => {
    if (!quitting) fail('The workbench process stopped', error ?? `The API host exited (code ${code ?? 'signal'}); see the terminal for its log.`);
  });
  createRelay<IpcMainEvent>({
    ipc: ipcMain,
    host: h,
    // The app's top-level page only: not a subframe, not a page that got elsewhere.
    isTrustedSender: (e) => e.senderFrame !== null && e.senderFrame === e.sender.mainFrame && isAppUrl(e.senderFrame.url),
    log,
  });

  Menu.setApplicationMenu(applicationMenu());
  createWindow();
}

if (!app.requestSingleInstanceLock()) {
  // One workbench per data folder: its SQLite store and its SimDroids belong to one host.
  app.quit();
} else {
  app.on('web-contents-created', (_e, contents) => guardContents(contents, (url) => void shell.openExternal(url), log));
  app.on('second-instance', () => {
    const win = BrowserWindow.getAllWindows()[0];
    if (!win) return void createWindow();
    if (win.isMinimized()) win.restore();
    win.focus();
  });
  app.on('activate', () => {
    if (host && BrowserWindow.getAllWindows().length === 0) createWindow();
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  // Quit only after the host closed the workbench (stopped its devices, closed the store).
  app.on('before-quit', (e) => {
    const h = host;
    if (!h || quitting) return;
    e.preventDefault();
    quitting = true;
    const timer = setTimeout(() => h.kill(), 10_000);
    h.onExit(() => {
      clearTimeout(timer);
      app.quit();
    });
    h.postMessage({ shutdown: true });
  });
  app.whenReady().then(start).catch((e: Error) => fail('The workbench could not start', e.stack ?? e.message));
}
