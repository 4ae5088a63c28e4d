import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { CSP } from '../core/api/ws/server.js';

/**
 * The window's walls: the renderer is served from a privileged `awb://app/` scheme (not file://, so
 * it has an origin of its own and its responses carry the CSP as a header), may not navigate or
 * open windows elsewhere, may not reach the network, and is granted no permission it does not need.
 */
export const APP_SCHEME = 'awb';
export const APP_HOST = 'app';
export const APP_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;

/**
 * `awb serve`'s policy (core/api/ws/server.ts), with one change: the page reaches the API through
 * the preload, never a socket, so it may connect to nothing but its own origin.
 */
export const ELECTRON_CSP = CSP.split('; ')
  .map((d) => (d.startsWith('connect-src ') ? "connect-src 'self'" : d))
  .join('; ');

export function isAppUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === `${APP_SCHEME}:` && u.host === APP_HOST;
  } catch {
    return false;
  }
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.json': 'application/json', '.woff2': 'font/woff2', '.ico': 'image/x-icon',
  '.map': 'application/json',
};

const text = (status: number, body: string) =>
  new Response(body, { status, headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Security-Policy': ELECTRON_CSP } });

/**
 * The `awb://app/…` handler: files of the built renderer, index.html for app routes, and nothing
 * outside the folder.
 */
export function rendererResponder(rendererDir: string): (request: { url: string; method: string }) => Promise<Response> {
  const root = resolve(rendererDir);
  const isFile = async (p: string) => (await stat(p).catch(() => null))?.isFile() ?? false;
  return async (request) => {
    const url = new URL(request.url);
    if (url.host !== APP_HOST) return text(404, 'Not found');
    if (request.method !== 'GET' && request.method !== 'HEAD') return text(405, 'Method not allowed');
    let path: string;
    try {
      path = normalize(decodeURIComponent(url.pathname)).replace(/^([/\\])+/, '');
    } catch {
      return text(400, 'Bad path');
    }
    let file = join(root, path);
    if (!file.startsWith(root + sep) && file !== root) return text(403, 'Outside the app');
    if (!(await isFile(file))) file = join(root, 'index.html'); // the app routes on the client
    if (!(await isFile(file))) return text(500, `The renderer is not built (${root}): run \`npm run build\`.`);
    const body = request.method === 'HEAD' ? null : new Uint8Array(await readFile(file));
    return new Response(body, {
      status: 200,
      headers: {
        'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
        'Content-Security-Policy': ELECTRON_CSP,
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'no-store',
      },
    });
  };
}

/** The parts of a WebContents the navigation guard uses. */
export interface GuardedContents {
  on(event: 'will-frame-navigate' | 'will-redirect', listener: (details: { url: string; preventDefault(): void }) => void): unknown;
  on(event: 'will-attach-webview', listener: (event: { preventDefault(): void }) => void): unknown;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
}

/**
 * The sites a link may open in the system browser (shell.openExternal): documentation and model pages. Any other URL
 * (another scheme, a host not listed, a port, credentials in it) is refused: the OS would hand it to whatever
 * program claims its scheme.
 */
export const EXTERNAL_HOSTS: ReadonlySet<string> = new Set(['github.com', 'huggingface.co', 'docs.vllm.ai', 'docs.sglang.ai', 'pytorch.org']);

export function isAllowedExternal(url: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  return u.protocol === 'https:' && EXTERNAL_HOSTS.has(u.hostname) && u.port === '' && u.username === '' && u.password === '';
}

/**
 * No frame of any window leaves the app, no page opens a window, no <webview>. A link to a page on an allowed site
 * (EXTERNAL_HOSTS) opens in the system browser instead.
 */
export function guardContents(contents: GuardedContents, openExternal: (url: string) => void, log: (m: string) => void = () => {}): void {
  const block = (details: { url: string; preventDefault(): void }) => {
    if (isAppUrl(details.url)) return;
    details.preventDefault();
    log(`blocked navigation to ${details.url}`);
  };
  contents.on('will-frame-navigate', block);
  contents.on('will-redirect', block);
  contents.on('will-attach-webview', (e) => e.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (isAllowedExternal(url)) openExternal(url);
    else log(`blocked window.open(${url.slice(0, 200)})`);
    return { action: 'deny' };
  });
}

/** Permissions the renderer may use: writing the clipboard (copy a node's XML, a trajectory path). */
const ALLOWED_PERMISSIONS = new Set(['clipboard-sanitized-write']);

/** The parts of an Electron Session the hardening uses. */
export interface HardenedSession {
  setPermissionRequestHandler(handler: (contents: unknown, permission: string, callback: (granted: boolean) => void) => void): void;
  setPermissionCheckHandler(handler: (contents: unknown, permission: string) => boolean): void;
  webRequest: {
    onBeforeRequest(filter: { urls: string[] }, listener: (details: { url: string }, callback: (response: { cancel: boolean }) => void) => void): void;
    onHeadersReceived(listener: (
      details: { responseHeaders?: Record<string, string[]> },
      callback: (response: { responseHeaders?: Record<string, string[]> }) => void,
    ) => void): void;
  };
}

export function hardenSession(ses: HardenedSession, log: (m: string) => void = () => {}): void {
  ses.setPermissionRequestHandler((_contents, permission, callback) => callback(ALLOWED_PERMISSIONS.has(permission)));
  ses.setPermissionCheckHandler((_contents, permission) => ALLOWED_PERMISSIONS.has(permission));
  // The page needs no network: everything comes from awb://app and the API.
  ses.webRequest.onBeforeRequest({ urls: ['http://*/*', 'https://*/*', 'ws://*/*', 'wss://*/*'] }, (details, callback) => {
    log(`blocked a network request to ${details.url}`);
    callback({ cancel: true });
  });
  // The awb:// responses carry the CSP already; this covers anything else a window could load.
  ses.webRequest.onHeadersReceived((details, callback) => {
    const headers = { ...details.responseHeaders };
    for (const k of Object.keys(headers)) if (k.toLowerCase() === 'content-security-policy') delete headers[k];
    headers['Content-Security-Policy'] = [ELECTRON_CSP];
    callback({ responseHeaders: headers });
  });
}
