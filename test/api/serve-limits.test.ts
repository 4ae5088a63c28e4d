import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { AuthLimit } from '../../core/api/ws/auth-limit.js';
import { MAX_LOG_LINE, serve, type RunningServer } from '../../core/api/ws/server.js';
import { createWorkbench, type Workbench } from '../../core/workbench/index.js';

/** Issue 32: `awb serve` bounds wrong tokens (then 429, said once), redirects only to itself, and logs bounded lines. */
const TOKEN = 'test-token-0123456789abcdef';

function get(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

function upgradeStatus(port: number, token: string): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api?token=${token}`);
    ws.once('open', () => (ws.close(), resolve(101)));
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode!));
    ws.once('error', () => {});
  });
}

let dir: string;
let workbench: Workbench;
let staticDir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'awb-serve-limits-'));
  staticDir = join(dir, 'renderer');
  mkdirSync(staticDir);
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>awb</title>');
  workbench = await createWorkbench({ dataDir: join(dir, 'data'), adb: false, embeddedDevice: false });
});
afterAll(async () => {
  await workbench.close();
  rmSync(dir, { recursive: true, force: true });
});

async function started(): Promise<{ server: RunningServer; logs: string[] }> {
  const logs: string[] = [];
  const server = await serve({ api: workbench, port: 0, token: TOKEN, staticDir, log: (m) => logs.push(m) });
  return { server, logs };
}

describe('awb serve limits', () => {
  it('after 20 wrong tokens in 10 s no token is checked (429, even the right one), said once in the log; a missing token is no guess', async () => {
    const { server, logs } = await started();
    try {
      for (let i = 0; i < 30; i++) expect((await get(server.port, '/')).status).toBe(401); // no token: not counted
      expect((await get(server.port, `/?token=${TOKEN}`)).status).toBe(303);
      for (let i = 0; i < 20; i++) expect((await get(server.port, `/?token=guess-${String(i).padStart(16, '0')}`)).status).toBe(401);
      expect((await get(server.port, '/', { Cookie: 'awb_token=guess-number-twenty-one' })).status).toBe(401); // the 21st starts the lockout
      for (const path of [`/?token=${TOKEN}`, '/?token=guess-0000000000000022']) {
        const r = await get(server.port, path);
        expect(r.status).toBe(429);
        expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
      }
      expect(await upgradeStatus(server.port, TOKEN)).toBe(429);
      expect(logs.filter((l) => /wrong token/.test(l))).toEqual(['21 requests with a wrong token within 10 s: tokens are not checked for 10 s (429 Too Many Requests)']);
    } finally {
      await server.close();
    }
  });

  it('AuthLimit: the lockout ends with its window, and failures older than the window do not count', () => {
    let t = 0;
    const logs: string[] = [];
    const limit = new AuthLimit({ maxFailures: 3, windowMs: 1000, now: () => t, log: (m) => logs.push(m) });
    for (let i = 0; i < 3; i++) limit.failed();
    expect(limit.lockedFor()).toBe(0);
    t = 1500; // the three are out of the window now
    for (let i = 0; i < 3; i++) limit.failed();
    expect(limit.lockedFor()).toBe(0);
    limit.failed();
    expect(limit.lockedFor()).toBe(1);
    t = 2600;
    expect(limit.lockedFor()).toBe(0);
    expect(logs).toHaveLength(1);
  });

  it('redirects a token URL to this server only: a path that normalises to //host is not a way out', async () => {
    const { server } = await started();
    try {
      // Before: "/.//evil.example" normalised to the path "//evil.example", sent back as Location: a protocol-relative URL.
      for (const [path, location] of [['/.//evil.example/x', '/evil.example/x'], ['/a/..//evil.example', '/evil.example'], ['/%2e//evil.example?a=1', '/evil.example?a=1']] as const) {
        const r = await get(server.port, `${path}${path.includes('?') ? '&' : '?'}token=${TOKEN}`);
        expect(r.status, path).toBe(303);
        expect(r.headers.location, path).toBe(location);
      }
    } finally {
      await server.close();
    }
  });

  it('logs an API error with a huge value in one bounded line, without a stack', async () => {
    const { server, logs } = await started();
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/api?token=${TOKEN}`);
    try {
      await new Promise((r, j) => (ws.once('open', r), ws.once('error', j)));
      const reply = await new Promise<{ t: string; e?: { name: string } }>((resolve) => {
        // A bridge call and its error reply are plain JSON text messages (core/util/wire-codec.ts: no binary parts here).
        ws.on('message', (d: Buffer) => resolve(JSON.parse(d.toString()) as { t: string; e?: { name: string } }));
        ws.send(JSON.stringify({ t: 'call', id: 1, m: 'describeTask', a: { templateId: 'x'.repeat(1_000_000), seed: 0 } }));
      });
      expect(reply).toMatchObject({ t: 'err', e: { name: 'UnknownTemplateError' } });
      const line = logs.find((l) => l.startsWith('describeTask: '));
      expect(line).toBeDefined();
      expect(line!.length).toBeLessThan(MAX_LOG_LINE + 40);
      expect(line).toMatch(/^describeTask: UnknownTemplateError: .*… \(\d+ characters\)$/);
      expect(line).not.toMatch(/\n\s+at /);
    } finally {
      ws.close();
      await server.close();
    }
  });
});
