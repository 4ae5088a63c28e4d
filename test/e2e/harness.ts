import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import WebSocket from 'ws';
import type { WorkbenchApi } from '../../core/api/api.js';
import { connectApi, type BridgeMessage, type Channel } from '../../core/api/bridge.js';
import { decodeMessage, encodeMessage } from '../../core/util/wire-codec.js';

/**
 * End-to-end rig: `awb serve` as users start it (its own process, a fresh data folder, no adb)
 * and Debian's Chromium driven by playwright-core with a fresh profile.
 */
export const CHROMIUM = process.env.AWB_CHROMIUM ?? '/usr/bin/chromium';
const AWB = fileURLToPath(new URL('../../bin/awb.js', import.meta.url));

export interface ServeProcess {
  url: string;
  port: number;
  /** The environment endpoint outside agents connect to (docs/env-protocol.md), token included. */
  envUrl: string;
  home: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** `adbPort`: talk to that adb server (a private one; default: no adb). `env`: added to the process's environment. */
export async function startServe(opts: { home?: string; args?: string[]; adbPort?: number; env?: NodeJS.ProcessEnv } = {}): Promise<ServeProcess> {
  const home = opts.home ?? mkdtempSync(join(tmpdir(), 'awb-e2e-'));
  const adb = opts.adbPort !== undefined ? ['--adb-port', String(opts.adbPort)] : ['--no-adb'];
  const child = spawn(process.execPath, [AWB, 'serve', ...adb, '--port', '0', '--json', ...(opts.args ?? [])], {
    env: { ...process.env, ...opts.env, AWB_HOME: home, HOME: home, AWB_DB: '' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`awb serve exited with ${code}: ${stderr}`)));
  });
  const { url, port, env } = JSON.parse(first) as { url: string; port: number; env: string };
  return {
    url, port, envUrl: env, home, child,
    stop: () => new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    }),
  };
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

export async function openBrowser(viewport = { width: 1440, height: 960 }): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'awb-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, viewport,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context, page,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** A browser on the served workbench, connected: a page error fails the test that caused it. */
export async function openWorkbench(serve: ServeProcess, viewport?: { width: number; height: number }): Promise<Browser> {
  const browser = await openBrowser(viewport);
  browser.page.on('pageerror', (e) => {
    throw e;
  });
  // So does anything the Content-Security-Policy refused (issue 32: styles from the built CSS only).
  browser.page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) throw new Error(`CSP violation: ${m.text()}`);
  });
  await browser.page.goto(serve.url);
  await browser.page.locator('.connection.open').waitFor({ timeout: 15_000 });
  return browser;
}

/** A second API connection from Node, as the page's (what drives the device or settings while the page watches). */
export async function apiClient(serve: ServeProcess): Promise<{ api: WorkbenchApi; close(): void }> {
  const token = new URL(serve.url).searchParams.get('token')!;
  const ws = new WebSocket(`ws://127.0.0.1:${serve.port}/api?token=${token}`);
  await new Promise((r, j) => (ws.once('open', r), ws.once('error', j)));
  const channel: Channel = {
    send: (m) => ws.send(encodeMessage(m)),
    onMessage: (l) => {
      const h = (d: Buffer, bin: boolean) => l(decodeMessage(bin ? new Uint8Array(d) : d.toString()) as BridgeMessage);
      ws.on('message', h);
      return () => ws.off('message', h);
    },
    onClose: (l) => (ws.on('close', l), () => ws.off('close', l)),
  };
  return { api: connectApi<WorkbenchApi>(channel), close: () => ws.close() };
}
