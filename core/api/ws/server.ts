import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { extname, join, normalize, resolve, sep } from 'node:path';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { serveApi } from '../serve-api.js';
import { AuthLimit } from './auth-limit.js';
import { wsChannel } from './channel.js';
import { serveEnvConnection } from '../../env/connection.js';
import type { EnvService } from '../../env/service.js';
import type { RolloutHost } from '../../rollout/remote/serve.js';
import { MAX_ROLLOUT_FRAME } from '../../rollout/remote/wire.js';

/**
 * `awb serve`: the built renderer over HTTP and the workbench API over a WebSocket (/api), on
 * 127.0.0.1 only. Every request needs the session token: given once as `?token=` (the server then
 * sets an HttpOnly, SameSite=Strict cookie and redirects to the same URL without it), then from the
 * cookie. The Host header must name the loopback address (no DNS rebinding) and a WebSocket's Origin
 * must be this server (no cross-site sockets).
 */
export interface ServeOptions {
  api: object;
  /** 0 picks a free port. */
  port: number;
  /** Default: 32 random bytes, hex. */
  token?: string;
  /** The built renderer (index.html + assets). */
  staticDir: string;
  log?: (m: string) => void;
  /** The environment server for outside agents, at /env (docs/env-protocol.md); absent: /env is 404. */
  env?: EnvService;
  /** Remote rollout workers at /rollout, behind the same token (docs/ray.md); absent: /rollout is 404. */
  rollout?: RolloutHost;
  /**
   * The address to listen on (default 127.0.0.1). Another one (a Ray node serving its cluster) exposes /env to the
   * network behind the token; the UI still answers only requests addressed to the loopback name.
   */
  host?: string;
  /** Wrong tokens accepted per 10 s before token checks stop for 10 s (auth-limit.ts); default 20. */
  maxTokenFailures?: number;
}

export interface RunningServer {
  port: number;
  token: string;
  /** The URL to open, token included. */
  url: string;
  /** The environment endpoint's URL, token included (with `env`). */
  envUrl: string;
  /** The rollout endpoint's URL, token included (with `rollout`). */
  rolloutUrl: string;
  close(): Promise<void>;
}

export const COOKIE = 'awb_token';
const HOST = '127.0.0.1';
/** The largest request a page may send (API inputs are small; this bounds a hostile one). */
const MAX_PAYLOAD = 1024 * 1024;
/** The largest request an outside agent may send: a step may carry its model's whole request (images as data URLs). */
const MAX_ENV_PAYLOAD = 64 * 1024 * 1024;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.json': 'application/json', '.woff2': 'font/woff2', '.ico': 'image/x-icon',
};

/**
 * The page's Content-Security-Policy. Styles come from the built CSS only: React and uPlot set inline styles through
 * the CSSOM (element.style), which style-src does not govern, so 'unsafe-inline' is not needed (the end-to-end tests
 * fail on any CSP violation). No form may submit anywhere.
 */
export const CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' blob: data:",
  "connect-src 'self' ws://127.0.0.1:* ws://localhost:*", "object-src 'none'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
].join('; ');

export class TokenError extends Error {
  override name = 'TokenError';
  constructor(readonly token: string) {
    super('--token must be 16 to 256 characters of letters, digits, - or _');
  }
}

/** Input a request can carry that no valid client sends (a malformed percent-escape, an unparsable target): answered 400. */
class MalformedRequestError extends Error {
  override name = 'MalformedRequestError';
  constructor(readonly what: string, readonly value: string) {
    super(`malformed ${what}: ${JSON.stringify(value.slice(0, 200))}`);
  }
}

function decode(what: string, value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new MalformedRequestError(what, value);
  }
}

function requestUrl(req: IncomingMessage, port: number): URL {
  const target = req.url ?? '/';
  // Only origin-form targets ("/path?query"): an absolute or authority form would put another host in the URL.
  if (!target.startsWith('/') || target.startsWith('//')) throw new MalformedRequestError('request target', target);
  try {
    return new URL(target, `http://${HOST}:${port}`);
  } catch {
    throw new MalformedRequestError('request target', target);
  }
}

function cookieToken(req: IncomingMessage): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === COOKIE) return decode('cookie', v.join('='));
  }
  return null;
}

/** The longest line the server logs: a request or an error that carries a huge value is cut, with its length said. */
export const MAX_LOG_LINE = 2000;

function clip(m: string): string {
  return m.length > MAX_LOG_LINE ? `${m.slice(0, MAX_LOG_LINE)}… (${m.length} characters)` : m;
}

/**
 * An API call's error for the log: a named error (the caller's bad input, a missing episode) in one line, name and
 * message; anything else (a bug) with its stack. Both clipped by the log.
 */
function apiErrorLine(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const builtin = e.constructor === Error || e instanceof TypeError || e instanceof RangeError || e instanceof ReferenceError || e instanceof SyntaxError;
  return builtin ? e.stack ?? `${e.name}: ${e.message}` : `${e.name}: ${e.message.replace(/\s*\n\s*/g, ' ')}`;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export async function serve(opts: ServeOptions): Promise<RunningServer> {
  const token = opts.token ?? randomBytes(32).toString('hex');
  if (!/^[A-Za-z0-9_-]{16,256}$/.test(token)) throw new TokenError(token);
  // No request can make the log grow by more than a line of bounded size (a 1 MB id is not written whole).
  const log = (m: string) => (opts.log ?? (() => {}))(clip(m));
  const limit = new AuthLimit({ log, ...(opts.maxTokenFailures !== undefined ? { maxFailures: opts.maxTokenFailures } : {}) });
  const root = resolve(opts.staticDir);
  let port = opts.port;

  const hostOk = (req: IncomingMessage) => {
    const h = req.headers.host ?? '';
    return h === `${HOST}:${port}` || h === `localhost:${port}`;
  };
  /** 'limited' while wrong tokens are over their bound (auth-limit.ts): then no token is checked at all. */
  const authorized = (req: IncomingMessage, url: URL): 'yes' | 'no' | 'limited' => {
    if (limit.lockedFor() > 0) return 'limited';
    const t = url.searchParams.get('token') ?? cookieToken(req);
    if (t !== null && same(t, token)) return 'yes';
    if (t !== null) limit.failed();
    return 'no';
  };
  /** A script may also send the token as a bearer header (docs/env-protocol.md); a wrong one counts as a guess too. */
  const bearer = (req: IncomingMessage): 'yes' | 'no' => {
    const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    if (m !== null && same(m[1]!, token)) return 'yes';
    if (m !== null) limit.failed();
    return 'no';
  };

  // No request may end the server (and with it every session and training job): bad input is a 400,
  // anything else unexpected a 500, and the server goes on.
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    try {
      answer(req, res);
    } catch (e) {
      const malformed = e instanceof MalformedRequestError;
      if (!malformed) log(`request ${JSON.stringify(req.url)}: ${(e as Error).stack ?? String(e)}`);
      if (res.headersSent) return void res.destroy();
      res.writeHead(malformed ? 400 : 500, { 'Content-Type': 'text/plain' }).end(malformed ? 'Bad Request\n' : 'Internal Server Error\n');
    }
  });

  const answer = (req: IncomingMessage, res: ServerResponse) => {
    const url = requestUrl(req, port);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    if (!hostOk(req)) return void res.writeHead(403, { 'Content-Type': 'text/plain' }).end('Forbidden host\n');
    const auth = authorized(req, url);
    if (auth === 'limited') return void res.writeHead(429, { 'Content-Type': 'text/plain', 'Retry-After': String(limit.lockedFor()) }).end('Too many wrong tokens; try again later.\n');
    if (auth === 'no') {
      return void res.writeHead(401, { 'Content-Type': 'text/plain' }).end('Unauthorized: open the URL `awb serve` printed (it carries ?token=).\n');
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405, { Allow: 'GET, HEAD' }).end();
    if (url.searchParams.has('token')) {
      // Keep the token in a cookie and take it out of the address bar (and of history).
      url.searchParams.delete('token');
      res.setHeader('Set-Cookie', `${COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`);
      // One leading slash: "//host/…" (or "/.//host" once normalised) would send the browser to another host.
      return void res.writeHead(303, { Location: `/${url.pathname.replace(/^[/\\]+/, '')}${url.search}` }).end();
    }
    let path = normalize(decode('path', url.pathname)).replace(/^([/\\])+/, '');
    let file = join(root, path);
    if (!file.startsWith(root + sep) && file !== root) return void res.writeHead(400).end();
    if (!existsSync(file) || statSync(file).isDirectory()) {
      path = 'index.html'; // the app routes on the client
      file = join(root, path);
    }
    if (!existsSync(file)) {
      return void res.writeHead(500, { 'Content-Type': 'text/plain' }).end(`The renderer is not built (${root}): run \`npm run build\`.\n`);
    }
    const type = TYPES[extname(file)] ?? 'application/octet-stream';
    const headers: Record<string, string> = { 'Content-Type': type, 'Cache-Control': path === 'index.html' ? 'no-store' : 'max-age=3600' };
    if (type.startsWith('text/html')) headers['Content-Security-Policy'] = CSP;
    res.writeHead(200, headers);
    if (req.method === 'HEAD') return void res.end();
    createReadStream(file).on('error', () => res.destroy()).pipe(res);
  };

  // CONNECT (a proxy tunnel) is never served; without a listener Node drops the connection unanswered.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    socket.end('HTTP/1.1 405 Method Not Allowed\r\nAllow: GET, HEAD\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_PAYLOAD });
  const envWss = new WebSocketServer({ noServer: true, maxPayload: MAX_ENV_PAYLOAD });
  const rolloutWss = new WebSocketServer({ noServer: true, maxPayload: MAX_ROLLOUT_FRAME, perMessageDeflate: false });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const refuse = (code: number, text: string) => {
      socket.end(`HTTP/1.1 ${code} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    let url: URL;
    let ok: 'yes' | 'no' | 'limited';
    try {
      url = requestUrl(req, port);
      const script = url.pathname === '/env' || url.pathname === '/rollout';
      ok = url.pathname === '/api' || script ? authorized(req, url) : 'no';
      if (ok === 'no' && script) ok = bearer(req);
    } catch (e) {
      if (e instanceof MalformedRequestError) return refuse(400, 'Bad Request');
      throw e;
    }
    const origin = req.headers.origin;
    const originOk = origin === undefined || origin === `http://${HOST}:${port}` || origin === `http://localhost:${port}`;
    if (url.pathname === '/env' && opts.env) {
      // Scripts, not pages: the token guards it, and a page (which always sends its Origin) may not open it. No Host
      // check, so a cluster's nodes can reach a server started with --host.
      if (!originOk) return refuse(403, 'Forbidden');
      if (ok === 'limited') return refuse(429, 'Too Many Requests');
      if (ok === 'no') return refuse(401, 'Unauthorized');
      const env = opts.env;
      return void envWss.handleUpgrade(req, socket, head, (ws) => serveEnvConnection(ws, env, log));
    }
    if (url.pathname === '/rollout' && opts.rollout) {
      // As /env: a driver's rollout workers, from this machine or a cluster's other nodes.
      if (!originOk) return refuse(403, 'Forbidden');
      if (ok === 'limited') return refuse(429, 'Too Many Requests');
      if (ok === 'no') return refuse(401, 'Unauthorized');
      const rollout = opts.rollout;
      return void rolloutWss.handleUpgrade(req, socket, head, (ws) => rollout.accept(ws));
    }
    if (url.pathname !== '/api') return refuse(404, 'Not Found');
    if (!hostOk(req) || !originOk) return refuse(403, 'Forbidden');
    if (ok === 'limited') return refuse(429, 'Too Many Requests');
    if (ok === 'no') return refuse(401, 'Unauthorized');
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on('error', (e) => log(`websocket: ${e.message}`));
      serveApi(opts.api, wsChannel(ws, log), { onError: (member, e) => log(`${member}: ${apiErrorLine(e)}`) });
    });
  });

  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? HOST, () => {
      server.off('error', reject);
      resolvePromise();
    });
  });
  port = (server.address() as { port: number }).port;
  return {
    port, token, url: `http://${HOST}:${port}/?token=${token}`, envUrl: `ws://${HOST}:${port}/env?token=${token}`,
    rolloutUrl: `ws://${HOST}:${port}/rollout?token=${token}`,
    close: () => new Promise<void>((r) => {
      for (const c of [...wss.clients, ...envWss.clients, ...rolloutWss.clients]) c.terminate();
      wss.close();
      envWss.close();
      rolloutWss.close();
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}
