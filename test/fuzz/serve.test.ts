import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { decodeMessage, encodeMessage } from '../../core/util/wire-codec.js';
import { createWorkbench, type Workbench } from '../../core/workbench/index.js';
import { serve, type RunningServer } from '../../core/api/ws/server.js';
import { argumentFor, declaredErrorNames, guarded, memberName, noteResult, NOT_RUN_ERROR, params, Tally, TIMEOUT_MS, wireValue } from './fuzz.js';

/**
 * Fuzzing `awb serve`'s front (issue 16, place 1): request targets, methods and headers written
 * byte for byte on raw TCP sockets (Node's http client refuses most of them), WebSocket frames
 * through an authenticated socket, and raw bytes after a WebSocket handshake. The server runs a
 * real workbench. A secret planted beside the static folder must never come back.
 */
const tally = new Tally('awb serve (HTTP + WebSocket)');
const TOKEN = 'fuzz-token-0123456789abcdef';
const SECRET = `awb-fuzz-secret-${randomBytes(8).toString('hex')}`;
const INDEX = '<!doctype html><title>awb fuzz</title>';
const APP_JS = 'console.log("awb fuzz asset");';
const ALLOWED_ERRORS = declaredErrorNames().add(NOT_RUN_ERROR);
/** What the server may answer a request: never a 500 for input, nothing else. */
const ALLOWED_STATUS = new Set([200, 303, 400, 401, 403, 404, 405]);

let dir: string;
let workbench: Workbench;
let server: RunningServer;
let port: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'awb-fuzz-serve-'));
  const staticDir = join(dir, 'renderer');
  mkdirSync(join(staticDir, 'assets'), { recursive: true });
  writeFileSync(join(staticDir, 'index.html'), INDEX);
  writeFileSync(join(staticDir, 'assets', 'app.js'), APP_JS);
  // The secret beside the static folder, in a sibling whose name starts with the static folder's, and in the data folder.
  writeFileSync(join(dir, 'secret.txt'), SECRET);
  mkdirSync(join(dir, 'renderer-sibling'));
  writeFileSync(join(dir, 'renderer-sibling', 'index.html'), SECRET);
  mkdirSync(join(dir, 'data'));
  writeFileSync(join(dir, 'data', 'secret.txt'), SECRET);
  workbench = await createWorkbench({ dataDir: join(dir, 'data'), adb: false });
  // The fuzzer sends wrong tokens by the thousand: the bound on them (tested in test/api/serve-limits.test.ts) is lifted.
  server = await serve({ api: guarded(workbench), port: 0, token: TOKEN, staticDir, maxTokenFailures: Number.POSITIVE_INFINITY });
  port = server.port;
});

afterAll(async () => {
  await server?.close();
  await workbench?.close();
  rmSync(dir, { recursive: true, force: true });
  console.log(tally.report());
});

/** Writes `request` on a new TCP connection; resolves with every byte the server sent until it closed (or, after a 101, the head). */
function exchange(request: Buffer, after?: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    let upgraded = false;
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error(`no complete answer in 15 s to ${JSON.stringify(request.toString('latin1').slice(0, 400))}: got ${JSON.stringify(Buffer.concat(chunks).toString('latin1').slice(0, 200))}`));
    }, 15_000);
    s.on('data', (c: Buffer) => {
      chunks.push(c);
      const got = Buffer.concat(chunks).toString('latin1');
      if (!upgraded && got.startsWith('HTTP/1.1 101 ') && got.includes('\r\n\r\n')) {
        upgraded = true;
        // Raw bytes after the handshake (frames or garbage), then our end: the server must close.
        if (after) s.end(after);
        else s.destroy();
      }
    });
    s.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    s.on('error', () => {}); // a reset after the answer: 'close' follows
    s.write(request);
  });
}

/** The final status of an HTTP answer (after any 100 Continue), or an explanation of why it is not one. */
function statusOf(answer: Buffer): { status: number; body: string } | { bad: string } {
  let text = answer.toString('latin1');
  while (/^HTTP\/1\.1 100 [^\r\n]*\r\n\r\n/.test(text)) text = text.slice(text.indexOf('\r\n\r\n') + 4);
  const m = /^HTTP\/1\.1 (\d{3}) [\x20-\x7e]*\r\n/.exec(text);
  if (!m) return { bad: `not an HTTP status line: ${JSON.stringify(text.slice(0, 200))}` };
  const headEnd = text.indexOf('\r\n\r\n');
  if (headEnd < 0) return { status: Number(m[1]), body: '' };
  const body = text.slice(headEnd + 4);
  return { status: Number(m[1]), body: /\r\ntransfer-encoding: *chunked\r\n/i.test(text.slice(0, headEnd + 2)) ? unchunk(body) : body };
}

/** A chunked body's bytes (a file streamed to the page). */
function unchunk(body: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const eol = body.indexOf('\r\n', at);
    const size = parseInt(body.slice(at, eol), 16);
    if (eol < 0 || !(size > 0)) return out;
    out += body.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
}

const SEGMENTS = [
  '..', '.', '...', '%2e%2e', '%2E%2E', '.%2e', '%2e.', '..%2f', '..%5c', '%2f', '%5C', '\\', '..\\', '%2e%2e%2f', '%252e%252e',
  'secret.txt', 'renderer-sibling', 'renderer', 'data', 'index.html', 'assets', 'app.js', 'api', '%00', '%', '%zz', '%E0%A4%A',
  '%c0%af', '%c0%ae%c0%ae', '%ef%bc%8f', '%ff', 'é', '日本', '~', ';', '%3f', '%23', '+', '%20', 'CON', 'nul', '....', 'token=x',
];
const SEPARATORS = ['/', '/', '/', '//', '\\', '%2f', '%5c', '/./', '/../'];

interface Built {
  bytes: Buffer;
  /** The token is somewhere a valid client puts it (query or cookie): only then may the answer be 200, 303 or 101. */
  credentialed: boolean;
  /** The Host header names this server. */
  hostOk: boolean;
  originOk: boolean;
  method: string;
  upgrade: boolean;
  describe: string;
}

/** A path segment: a known troublemaker, a plain word, or (percent-encoded, or raw when wild) arbitrary text. */
const segmentArb = (wild: boolean) => fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...SEGMENTS) },
  { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z0-9._~-]{0,8}$/) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 4 }).map((x) => (wild ? x : encodeURIComponent(x))) },
  { weight: wild ? 2 : 0, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
);

const pathArb = (wild: boolean) => fc.array(fc.tuple(fc.constantFrom(...SEPARATORS), segmentArb(wild)), { maxLength: 6 })
  .map((parts) => parts.map(([sep, seg]) => sep + seg).join('') || '/');

const queryArb = fc.oneof(
  fc.constant({ q: '', token: false }),
  fc.constant({ q: `?token=${TOKEN}`, token: true }),
  fc.constant({ q: `?a=1&token=${TOKEN}&b=%`, token: true }),
  fc.constant({ q: `?token=${[...TOKEN].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')}`, token: true }),
  fc.constant({ q: '?token=wrong-token-0123456789', token: false }),
  fc.constant({ q: `?token=${TOKEN}x`, token: false }),
  fc.constant({ q: `?token=${TOKEN.slice(0, -1)}`, token: false }),
  fc.stringMatching(/^[A-Za-z0-9=&%._~+-]{0,20}$/).map((x) => ({ q: `?${x}`, token: false })),
);

const targetArb = (wild: boolean) => fc.oneof(
  { weight: 6, arbitrary: fc.tuple(pathArb(wild), queryArb).map(([p, q]) => ({ target: `${p.startsWith('/') ? '' : '/'}${p}${q.q}`, token: q.token })) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('http://127.0.0.1:PORT', 'http://evil.example', 'https://localhost:PORT', '//evil.example', '*', '', 'evil.example:80', '127.0.0.1:PORT', '/\\evil.example'), pathArb(wild), queryArb)
    .map(([a, p, q]) => ({ target: `${a}${p}${q.q}`, token: q.token })) },
  { weight: wild ? 2 : 0, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }).map((x) => ({ target: x, token: false })) },
);

const hostArb = (wild: boolean) => fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom({ h: '127.0.0.1:PORT', ok: true }, { h: 'localhost:PORT', ok: true }) },
  { weight: 2, arbitrary: fc.constantFrom(
    { h: null, ok: false }, { h: '127.0.0.1', ok: false }, { h: 'evil.example:PORT', ok: false }, { h: 'LOCALHOST:PORT', ok: false },
    { h: '127.0.0.1:PORT.evil.example', ok: false }, { h: '[::1]:PORT', ok: false }, { h: '', ok: false }, { h: '127.0.0.1:PORT, evil.example', ok: false },
  ) },
  { weight: wild ? 2 : 0, arbitrary: fc.string({ maxLength: 20 }).map((h) => ({ h, ok: false })) },
);

const tokenCookie = fc.constantFrom(`awb_token=${TOKEN}`, `awb_token=${encodeURIComponent(TOKEN)}`, ` awb_token=${TOKEN} `, `x=1; awb_token=${TOKEN}`, `awb_token=${TOKEN}; awb_token=wrong`);
const latin1Bytes = fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString('latin1'));
/** Header-value bytes a parser accepts: visible ASCII, space, tab and obs-text (0x80–0xff). */
const fieldBytes = fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b.map((x) => (x < 0x20 && x !== 9) || x === 0x7f ? 0x20 + (x % 0x5f) : x)).toString('latin1'));
const cookieArb = (wild: boolean) => fc.oneof(
  { weight: 2, arbitrary: fc.constant({ c: null as string | null, token: false }) },
  { weight: 3, arbitrary: tokenCookie.map((c) => ({ c, token: true })) },
  { weight: 1, arbitrary: fc.constantFrom('awb_token=wrong', 'awb_token=%', 'awb_token=%E0%A4%A', 'awb_token', '=', ';;;', `awb_token=${TOKEN.slice(1)}`).map((c) => ({ c, token: false })) },
  { weight: 2, arbitrary: (wild ? latin1Bytes : fieldBytes).map((x) => ({ c: `awb_token=${x}`, token: false })) },
  { weight: 1, arbitrary: (wild ? latin1Bytes : fieldBytes).map((c) => ({ c, token: false })) },
);

const originArb = (wild: boolean) => fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom({ o: null, ok: true }, { o: 'http://127.0.0.1:PORT', ok: true }, { o: 'http://localhost:PORT', ok: true }) },
  { weight: 1, arbitrary: fc.constantFrom({ o: 'http://evil.example', ok: false }, { o: 'null', ok: false }, { o: 'http://127.0.0.1:PORT.evil', ok: false }, { o: 'https://127.0.0.1:PORT', ok: false }) },
  { weight: 1, arbitrary: (wild ? fc.string({ maxLength: 20 }) : fieldBytes).map((o) => ({ o, ok: false })) },
);

const methodArb = (wild: boolean) => fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('GET', 'GET', 'GET', 'HEAD') },
  { weight: 2, arbitrary: fc.constantFrom('POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE', 'PROPFIND', 'SEARCH') },
  { weight: wild ? 2 : 0, arbitrary: fc.oneof(fc.constantFrom('get', 'CONNECT', 'PRI'), fc.stringMatching(/^[A-Z]{1,10}$/), fc.string({ maxLength: 8 })) },
);

const extraHeaderArb = (wild: boolean) => fc.oneof(
  fc.constantFrom('Content-Length: 0', 'Content-Length: 5\r\n\r\nhello', 'Transfer-Encoding: chunked\r\n\r\n0', 'Expect: 100-continue', 'Range: bytes=0-5',
    'Accept-Encoding: gzip', 'X-Forwarded-For: 10.0.0.1', 'If-None-Match: *', 'Content-Length: 1\r\nContent-Length: 2', 'Referer: http://evil.example/'),
  fc.tuple(fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,15}$/), wild ? latin1Bytes : fieldBytes).map(([k, v]) => `${k}: ${v}`),
);

const UPGRADE = 'Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==';

/**
 * A request. Most are "sane" (bytes any parser accepts, so they reach the server's own code with
 * hostile paths, tokens, hosts and origins); some are "wild" (raw control bytes, unicode, bad
 * methods and versions anywhere), which mostly exercise Node's parser and its 400.
 */
const requestOf = (wild: boolean): fc.Arbitrary<Built> => fc.record({
  method: methodArb(wild), target: targetArb(wild),
  version: fc.oneof({ weight: 8, arbitrary: fc.constant('HTTP/1.1') }, { weight: 1, arbitrary: fc.constant('HTTP/1.0') }, { weight: wild ? 1 : 0, arbitrary: fc.constantFrom('HTTP/1.1 ', 'HTTP/2.0', 'HTTP/1.1x') }),
  host: hostArb(wild), cookie: cookieArb(wild), origin: originArb(wild), extra: fc.array(extraHeaderArb(wild), { maxLength: 2 }),
  upgrade: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  utf8: wild ? fc.boolean() : fc.constant(false),
}).map((r) => {
  const p = (s: string) => s.replaceAll('PORT', String(port));
  const upgradeTo = r.upgrade ? (r.target.token ? `/api?token=${TOKEN}` : r.target.target) : r.target.target;
  const lines = [`${r.method} ${p(upgradeTo)} ${r.version}`];
  if (r.host.h !== null) lines.push(`Host: ${p(r.host.h)}`);
  if (r.cookie.c !== null) lines.push(`Cookie: ${r.cookie.c}`);
  if (r.origin.o !== null) lines.push(`Origin: ${p(r.origin.o)}`);
  lines.push(r.upgrade ? UPGRADE : 'Connection: close');
  // Last: an extra header may carry a body after it.
  lines.push(...r.extra);
  const text = `${lines.join('\r\n')}\r\n\r\n`;
  return {
    bytes: Buffer.from(text, r.utf8 ? 'utf8' : 'latin1'),
    credentialed: r.target.token || r.cookie.token,
    hostOk: r.host.ok, originOk: r.origin.ok, method: r.method, upgrade: r.upgrade,
    describe: JSON.stringify(text),
  };
});

/** An authorized page request whose path is the fuzzed part: what reaches the static files' code (the secret's guard). */
const pageRequest: fc.Arbitrary<Built> = fc.record({
  method: fc.constantFrom('GET', 'HEAD'), path: fc.oneof(pathArb(false), pathArb(true)), host: fc.constantFrom('127.0.0.1', 'localhost'),
  query: fc.oneof(fc.constant(''), fc.stringMatching(/^[A-Za-z0-9=&%._~+-]{0,20}$/).filter((q) => !q.includes('token')).map((q) => `?${q}`)),
}).map(({ method, path, host, query }) => {
  const text = `${method} ${path.startsWith('/') ? '' : '/'}${path}${query} HTTP/1.1\r\nHost: ${host}:${port}\r\nCookie: awb_token=${TOKEN}\r\nConnection: close\r\n\r\n`;
  return { bytes: Buffer.from(text, 'latin1'), credentialed: true, hostOk: true, originOk: true, method, upgrade: false, describe: JSON.stringify(text) };
});

const requestArb = fc.oneof({ weight: 3, arbitrary: requestOf(false) }, { weight: 1, arbitrary: requestOf(true) }, { weight: 2, arbitrary: pageRequest });

/** A valid client: the page with the cookie, and one API call on a new socket. */
async function stillServing(): Promise<void> {
  const page = statusOf(await exchange(Buffer.from(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nCookie: awb_token=${TOKEN}\r\nConnection: close\r\n\r\n`)));
  expect(page).toEqual({ status: 200, body: INDEX });
  const ws = await openSocket();
  try {
    expect((await callOn(ws, 1, 'listPolicies', {})).t).toBe('ret');
  } finally {
    ws.close();
  }
}

function openSocket(): Promise<WebSocket> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/api?token=${TOKEN}`);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

type Reply = { t: string; id: number; v?: unknown; e?: { name: string; message: string } };

function callOn(ws: WebSocket, id: number, m: string, a: unknown): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no reply to ${m} in 20 s`)), 20_000);
    const onMessage = (data: Buffer, binary: boolean) => {
      const msg = decodeMessage(binary ? new Uint8Array(data) : data.toString()) as Reply;
      if (msg.id !== id || msg.t === 'ev') return;
      clearTimeout(timer);
      ws.off('message', onMessage);
      resolve(msg);
    };
    ws.on('message', onMessage);
    ws.send(encodeMessage({ t: 'call', id, m, a }));
  });
}

describe('fuzz: awb serve over HTTP', () => {
  it('answers every request with an allowed status, never 200 without the token, never the secret; keeps serving', async () => {
    await fc.assert(fc.asyncProperty(fc.array(requestArb, { minLength: 1, maxLength: 4 }), async (batch) => {
      const answers = await Promise.all(batch.map((r) => exchange(r.bytes)));
      tally.add('HTTP requests', batch.length);
      batch.forEach((r, i) => {
        const answer = answers[i]!;
        expect(answer.toString('latin1'), r.describe).not.toContain(SECRET);
        const s = statusOf(answer);
        if ('bad' in s) throw new Error(`${s.bad} for ${r.describe}`);
        tally.saw(`HTTP ${s.status}`);
        const allowed = r.upgrade ? new Set([...ALLOWED_STATUS, 101]) : ALLOWED_STATUS;
        expect(allowed.has(s.status), `${s.status} for ${r.describe}`).toBe(true);
        if (!r.credentialed || !r.hostOk) expect([101, 200, 303], `${s.status} for ${r.describe}`).not.toContain(s.status);
        if (s.status === 101) expect(r.originOk, r.describe).toBe(true);
        // A page answer is one of the static files, whole, and nothing else.
        if (s.status === 200 && r.method === 'GET') expect([INDEX, APP_JS], r.describe).toContain(s.body);
      });
      await stillServing();
    }), params(100, 0.25));
  }, TIMEOUT_MS);
});

/** What wsChannel accepts as a request (core/api/ws/channel.ts): anything else closes the socket with 1007. */
function isRequest(v: unknown): boolean {
  if (!v || typeof v !== 'object') return false;
  const o = v as Record<string, unknown>;
  if (typeof o.id !== 'number' || !Number.isSafeInteger(o.id)) return false;
  return o.t === 'unsub' || ((o.t === 'call' || o.t === 'sub') && typeof o.m === 'string' && o.m.length < 100);
}

type Frame = { data: string | Uint8Array; call?: { id: number; m: string }; request: boolean };

const frameArb: fc.Arbitrary<(id: number) => Frame> = fc.oneof(
  { weight: 6, arbitrary: argumentFor(memberName).map(({ m, a }) => (id: number) => ({ data: encodeMessage({ t: 'call', id, m, a }), call: { id, m }, request: true })) },
  { weight: 1, arbitrary: argumentFor(memberName).map(({ m, a }) => (id: number) => ({ data: encodeMessage({ t: 'sub', id, m, a }), request: true })) },
  { weight: 1, arbitrary: fc.integer().map((n) => (id: number) => ({ data: encodeMessage({ t: 'unsub', id: n === 0 ? id - 1 : n }), request: true })) },
  { weight: 1, arbitrary: fc.oneof(fc.string({ unit: 'binary', maxLength: 60 }), fc.json(), fc.jsonValue().map((v) => JSON.stringify(v) ?? 'null')).map((s) => () => ({ data: s, request: isDecodedRequest(s) })) },
  { weight: 1, arbitrary: fc.oneof(fc.uint8Array({ maxLength: 60 }), wireValue.map((v) => { const w = encodeMessage(v); return typeof w === 'string' ? new TextEncoder().encode(w) : w; }))
    .map((b) => () => ({ data: b, request: isDecodedRequest(b) })) },
  { weight: 1, arbitrary: fc.record({ t: fc.constantFrom('call', 'sub', 'ret', 'err', 'ev', 'x'), id: fc.oneof(fc.integer(), fc.double(), fc.string()), m: fc.oneof(fc.string({ minLength: 95, maxLength: 120 }), fc.integer()), a: wireValue })
    .map((msg) => () => { const data = encodeMessage(msg); return { data, request: isDecodedRequest(data) }; }) },
);

function isDecodedRequest(data: string | Uint8Array): boolean {
  try {
    return isRequest(decodeMessage(data));
  } catch {
    return false;
  }
}

describe('fuzz: awb serve over WebSocket', () => {
  it('answers each request with ret or a named err, closes with 1007 on anything else, and keeps serving', async () => {
    await fc.assert(fc.asyncProperty(fc.array(frameArb, { minLength: 1, maxLength: 6 }), async (makers) => {
      const ws = await openSocket();
      const frames = makers.map((make, i) => make(i + 1));
      const garbage = frames.some((f) => !f.request);
      const replies = new Map<number, Reply>();
      const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
      const calls = frames.flatMap((f) => (f.call ? [f.call] : []));
      const allAnswered = new Promise<void>((resolve) => {
        const check = () => calls.every((c) => replies.has(c.id)) && resolve();
        ws.on('message', (data: Buffer, binary: boolean) => {
          const msg = decodeMessage(binary ? new Uint8Array(data) : data.toString()) as Reply;
          if (msg.t === 'ev') return;
          expect(['ret', 'err'], JSON.stringify(msg).slice(0, 300)).toContain(msg.t);
          const call = calls.find((c) => c.id === msg.id);
          tally.saw(msg.t === 'err' ? `err ${msg.e!.name}` : `ret ${call?.m ?? 'listPolicies (still serving)'}`);
          if (msg.t === 'ret' && call) noteResult(call.m, msg.v);
          if (msg.t === 'err') expect(ALLOWED_ERRORS, `${msg.e!.name}: ${msg.e!.message}`).toContain(msg.e!.name);
          expect(replies.has(msg.id), `a second reply to ${msg.id}`).toBe(false);
          replies.set(msg.id, msg);
          check();
        });
        check();
      });
      for (const f of frames) ws.send(f.data);
      tally.add('WebSocket frames', frames.length);
      if (garbage) {
        const code = await Promise.race([closed, new Promise<string>((r) => setTimeout(() => r('still open after 15 s'), 15_000))]);
        tally.saw(`closed ${code}`);
        expect(code, frames.map((f) => (typeof f.data === 'string' ? f.data : `bytes ${Buffer.from(f.data).toString('hex')}`)).join(' | ').slice(0, 2000)).toBe(1007);
      } else {
        await Promise.race([allAnswered, new Promise((_r, reject) => setTimeout(() => reject(new Error(`unanswered calls: ${JSON.stringify(calls.filter((c) => !replies.has(c.id)))}`)), 20_000))]);
        // The same connection still works.
        expect((await callOn(ws, 1_000_000, 'listPolicies', {})).t).toBe('ret');
        ws.close();
      }
      await stillServing();
    }), params(100, 0.25));
  }, TIMEOUT_MS);

  it('survives raw bytes after the handshake (bad opcodes, lengths, unmasked frames)', async () => {
    const frameHead = fc.record({ b0: fc.integer({ min: 0, max: 255 }), b1: fc.integer({ min: 0, max: 255 }), rest: fc.uint8Array({ maxLength: 40 }) })
      .map(({ b0, b1, rest }) => Buffer.from([b0, b1, ...rest]));
    const bytesArb = fc.oneof(frameHead, fc.uint8Array({ minLength: 1, maxLength: 80 }).map((b) => Buffer.from(b)));
    await fc.assert(fc.asyncProperty(bytesArb, async (bytes) => {
      const head = Buffer.from(`GET /api?token=${TOKEN} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${UPGRADE}\r\n\r\n`);
      const answer = await exchange(head, bytes);
      tally.add('raw WebSocket bytes');
      expect(answer.toString('latin1')).toMatch(/^HTTP\/1\.1 101 /);
      await stillServing();
    }), params(40, 0.1));
  }, TIMEOUT_MS);
});

// The planted secret is real (a failing guard would make the secret check vacuous).
it('the secret is where the fuzzers look for it', () => {
  expect(readFileSync(join(dir, 'secret.txt'), 'utf8')).toBe(SECRET);
});
