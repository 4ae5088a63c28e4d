import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { decodeMessage, encodeMessage } from '../../core/util/wire-codec.js';
import { createWorkbench, type Workbench } from '../../core/workbench/index.js';
import { serve, TokenError, type RunningServer } from '../../core/api/ws/server.js';

const TOKEN = 'test-token-0123456789abcdef';

function get(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A request written byte for byte (as `curl --path-as-is` or a hostile local process sends it); resolves with the status line, or the error. */
function raw(port: number, head: string): Promise<string> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    let got = '';
    s.on('data', (c: Buffer) => (got += c.toString('latin1')));
    s.on('close', () => resolve(got.split('\r\n')[0] ?? ''));
    s.on('error', (e) => resolve(`error: ${e.message}`));
    s.write(`${head}\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
  });
}

function openSocket(port: number, opts: { token?: string; cookie?: string; origin?: string } = {}): Promise<WebSocket> {
  const headers: Record<string, string> = {};
  if (opts.cookie) headers.Cookie = opts.cookie;
  const ws = new WebSocket(`ws://127.0.0.1:${port}/api${opts.token ? `?token=${opts.token}` : ''}`, { headers, ...(opts.origin ? { origin: opts.origin } : {}) });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

function call(ws: WebSocket, id: number, m: string, a: unknown): Promise<{ t: string; v?: unknown; e?: { name: string; message: string } }> {
  return new Promise((resolve) => {
    const onMessage = (data: Buffer, binary: boolean) => {
      const msg = decodeMessage(binary ? new Uint8Array(data) : data.toString()) as { id: number; t: string };
      if (msg.id !== id) return;
      ws.off('message', onMessage);
      resolve(msg);
    };
    ws.on('message', onMessage);
    ws.send(encodeMessage({ t: 'call', id, m, a }));
  });
}

describe('awb serve: token, loopback only, validated input', () => {
  let dir: string;
  let workbench: Workbench;
  let server: RunningServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'awb-serve-'));
    const staticDir = join(dir, 'renderer');
    rmSync(staticDir, { recursive: true, force: true });
    mkdirSync(staticDir);
    writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>awb</title>');
    workbench = await createWorkbench({ dataDir: join(dir, 'data'), adb: false });
    server = await serve({ api: workbench, port: 0, token: TOKEN, staticDir });
  });

  afterAll(async () => {
    await server.close();
    await workbench.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a page request without the token, or with a wrong one', async () => {
    expect((await get(server.port, '/')).status).toBe(401);
    expect((await get(server.port, '/?token=wrong-token-0123456789')).status).toBe(401);
    expect((await get(server.port, '/', { Cookie: 'awb_token=wrong' })).status).toBe(401);
  });

  it('accepts ?token= once: sets an HttpOnly SameSite=Strict cookie and redirects to a clean URL', async () => {
    const r = await get(server.port, `/?token=${TOKEN}`);
    expect(r.status).toBe(303);
    expect(r.headers.location).toBe('/');
    const cookie = String(r.headers['set-cookie']);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const page = await get(server.port, '/', { Cookie: cookie.split(';')[0]! });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>awb</title>');
    expect(page.headers['content-security-policy']).toMatch(/default-src 'self'/);
  });

  it('refuses a foreign Host header (DNS rebinding) even with the token', async () => {
    expect((await get(server.port, `/?token=${TOKEN}`, { Host: `evil.example:${server.port}` })).status).toBe(403);
  });

  it('does not serve outside the renderer folder', async () => {
    const r = await get(server.port, `/..%2f..%2fdata%2fsettings.json?token=${TOKEN}`);
    expect(r.status).not.toBe(200);
  });

  // Issue 16, D1: each of these ended the process with "URIError: URI malformed" before it was fixed.
  it('answers malformed cookies, paths and request targets with 400 and keeps serving', async () => {
    expect(await raw(server.port, 'GET / HTTP/1.1\r\nCookie: awb_token=%E0%A4%A')).toBe('HTTP/1.1 400 Bad Request');
    expect(await raw(server.port, 'GET / HTTP/1.1\r\nCookie: awb_token=%')).toBe('HTTP/1.1 400 Bad Request');
    expect(await raw(server.port, `GET /%E0%A4%A HTTP/1.1\r\nCookie: awb_token=${TOKEN}`)).toBe('HTTP/1.1 400 Bad Request');
    expect(await raw(server.port, 'GET http://[::1 HTTP/1.1')).toMatch(/^HTTP\/1\.1 400 /);
    expect(await raw(server.port, `GET //evil.example/?token=${TOKEN} HTTP/1.1`)).toBe('HTTP/1.1 400 Bad Request');
    // The WebSocket upgrade's cookie, too.
    const upgrade = 'GET /api HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==';
    expect(await raw(server.port, `${upgrade}\r\nCookie: awb_token=%`)).toBe('HTTP/1.1 400 Bad Request');
    // Still up, still serving the page and the API.
    expect((await get(server.port, '/', { Cookie: `awb_token=${TOKEN}` })).status).toBe(200);
    const ws = await openSocket(server.port, { token: TOKEN });
    expect((await call(ws, 1, 'listPolicies', {})).t).toBe('ret');
    ws.close();
  });

  // Issue 16, found by test/fuzz/serve.test.ts: Node drops a CONNECT request's connection without a word when
  // the server has no 'connect' listener; every other request gets a status.
  it('answers CONNECT with 405 and keeps serving', async () => {
    expect(await raw(server.port, 'CONNECT 127.0.0.1:80 HTTP/1.1')).toBe('HTTP/1.1 405 Method Not Allowed');
    expect(await raw(server.port, `CONNECT /?token=${TOKEN} HTTP/1.1`)).toBe('HTTP/1.1 405 Method Not Allowed');
    expect((await get(server.port, '/', { Cookie: `awb_token=${TOKEN}` })).status).toBe(200);
  });

  it('refuses WebSockets without the token, with a wrong one, or from another origin', async () => {
    await expect(openSocket(server.port)).rejects.toThrow(/401/);
    await expect(openSocket(server.port, { token: 'nope-nope-nope-nope' })).rejects.toThrow(/401/);
    await expect(openSocket(server.port, { token: TOKEN, origin: 'http://evil.example' })).rejects.toThrow(/403/);
  });

  it('serves the API to a socket with the token (query or cookie), PNGs as binary frames', async () => {
    const ws = await openSocket(server.port, { cookie: `awb_token=${TOKEN}`, origin: `http://127.0.0.1:${server.port}` });
    const r = await call(ws, 1, 'listDevices', {});
    expect(r.t).toBe('ret');
    expect((r.v as { devices: Array<{ serial: string }> }).devices[0]!.serial).toBe('simdroid-1');
    const shot = await call(ws, 2, 'screenshot', { serial: 'simdroid-1', scale: 0.5 });
    expect((shot.v as { png: Uint8Array }).png[1]).toBe(0x50);
    ws.close();
  });

  it('refuses malformed API input with a validation error and keeps the connection', async () => {
    const ws = await openSocket(server.port, { token: TOKEN });
    const r = await call(ws, 1, 'sendInput', { serial: 'simdroid-1', event: { kind: 'tap', x: 'left', y: 3 } });
    expect(r.t).toBe('err');
    expect(r.e!.name).toBe('ApiInputError');
    expect(r.e!.message).toMatch(/event\.x/);
    expect((await call(ws, 2, 'listPolicies', undefined)).t).toBe('ret');
    ws.close();
  });

  it('closes only the offending connection on a frame that is not a bridge request', async () => {
    const bad = await openSocket(server.port, { token: TOKEN });
    const good = await openSocket(server.port, { token: TOKEN });
    const closed = new Promise<number>((r) => bad.once('close', (code) => r(code)));
    bad.send('{not json');
    expect(await closed).toBe(1007);
    expect((await call(good, 1, 'listPolicies', {})).t).toBe('ret');
    good.close();
  });

  const external = Object.values(networkInterfaces()).flat().find((i) => i && !i.internal && i.family === 'IPv4')?.address;
  it.skipIf(!external)('is not reachable on a non-loopback address', async () => {
    const outcome = await new Promise<string>((resolve) => {
      const s = connect({ host: external!, port: server.port });
      s.once('connect', () => (s.destroy(), resolve('connected')));
      s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    });
    expect(outcome).toBe('ECONNREFUSED');
  });

  it('refuses a weak --token', async () => {
    await expect(serve({ api: workbench, port: 0, token: 'short', staticDir: dir })).rejects.toThrow(TokenError);
  });
});
