import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { EnvClient } from '../../core/env/client.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { WorkbenchApi } from '../../core/api/api.js';
import { connectApi, RemoteError } from '../../core/api/bridge.js';
import { runHost, type ParentLink } from '../../core/workbench/host.js';
import { hostChannel, parseFromHost, type FromHost } from '../../core/api/ipc/channel.js';
import type { Workbench } from '../../core/workbench/index.js';
import type { FrameView } from '../../core/api/types.js';
import { boundsCenter, flattenUiTree } from '../../core/a11y/ui-tree.js';

/** The API host in its own Node process, driven over real IPC the way Electron's main drives it. */
const HOST = join(process.cwd(), 'core', 'workbench', 'host.ts');
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function startHost(home: string): { child: ChildProcess; ready: Promise<void>; stderr: () => string } {
  const child = fork(HOST, [], {
    execArgv: ['--import', 'tsx'],
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    env: { ...process.env, AWB_HOME: home, AWB_NO_ADB: '1', AWB_DB: '' },
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const ready = new Promise<void>((resolve, reject) => {
    child.on('message', (raw) => {
      const m = parseFromHost(raw);
      if (m && 'ready' in m) resolve();
      if (m && 'fatal' in m) reject(new Error(m.fatal));
    });
    child.once('exit', (code) => reject(new Error(`host exited (${code}) before ready: ${stderr}`)));
  });
  return { child, ready, stderr: () => stderr };
}

function exited(child: ChildProcess, ms: number): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`the host (pid ${child.pid}) was still running after ${ms} ms`)), ms);
    child.once('exit', (code) => (clearTimeout(t), resolve(code)));
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Resolves with the next frame the listener gets that satisfies `pred`. */
function nextFrame(frames: FrameView[], pred: (f: FrameView) => boolean, ms = 10_000): Promise<FrameView> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const poll = () => {
      const f = frames.find(pred);
      if (f) return resolve(f);
      if (Date.now() - started > ms) return reject(new Error(`no such frame within ${ms} ms (got ${frames.length})`));
      setTimeout(poll, 20);
    };
    poll();
  });
}

/** Goes home and taps the first labelled clickable element (an app icon): the screen changes. */
async function changeScreen(api: WorkbenchApi, serial: string): Promise<void> {
  await api.sendInput({ serial, event: { kind: 'key', key: 'HOME' } });
  const { tree } = await api.screenState({ serial });
  const target = flattenUiTree(tree).find((e) => e.node.clickable && (e.node.text || e.node.contentDesc));
  if (!target) throw new Error('nothing clickable on the home screen');
  await api.sendInput({ serial, event: { kind: 'tap', ...boundsCenter(target.node.bounds) } });
}

describe('API host process (core/workbench/host.ts)', () => {
  let home: string;
  let child: ChildProcess;
  let stderr: () => string;
  let a: WorkbenchApi;
  let serial: string;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'awb-host-'));
    const h = startHost(home);
    child = h.child;
    stderr = h.stderr;
    await h.ready;
    a = connectApi<WorkbenchApi>(hostChannel(child, 1));
    serial = (await a.listDevices()).devices[0]?.serial ?? 'none';
  });

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGKILL');
      await exited(child, 5_000).catch(() => {});
    }
    rmSync(home, { recursive: true, force: true });
  });

  it('lists the embedded SimDroid (adb disabled)', async () => {
    const list = await a.listDevices();
    expect(list.devices).toHaveLength(1);
    expect(list.devices[0]).toMatchObject({ kind: 'simdroid', transport: 'embedded', online: true });
    expect(list.adbError).toMatch(/disabled/);
    expect(list.devices[0]!.serial).toBe(serial);
  });

  it('sends screenshots as bytes: a Uint8Array with the PNG signature', async () => {
    const shot = await a.screenshot({ serial, scale: 0.5 });
    expect(shot.png).toBeInstanceOf(Uint8Array);
    expect([...shot.png.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
    expect({ width: shot.width, height: shot.height }).toEqual({ width: 540, height: 1200 });
  });

  it('pushes a new frame to a subscriber after a tap', async () => {
    const frames: FrameView[] = [];
    const off = a.onFrame({ serial, scale: 0.5 }, (f) => frames.push(f));
    try {
      const first = await nextFrame(frames, () => true);
      expect([...first.png.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
      await changeScreen(a, serial);
      const after = await nextFrame(frames, (f) => f.seq > first.seq);
      expect(after.png).toBeInstanceOf(Uint8Array);
      expect(after.serial).toBe(serial);
    } finally {
      off();
    }
  });

  it('refuses malformed input with ApiInputError', async () => {
    const err = await a.sendInput({ serial, event: { kind: 'tap', x: -5, y: 'high' } as never }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RemoteError);
    expect((err as RemoteError).name).toBe('ApiInputError');
    expect((err as RemoteError).issues?.length).toBeGreaterThan(0);
  });

  it('keeps connections apart: the same request ids on two connections, and closing one leaves the other', async () => {
    // Fresh proxies both number their requests from 1, so every id below exists on both connections.
    const c3 = hostChannel(child, 3);
    const c4 = hostChannel(child, 4);
    const x = connectApi<WorkbenchApi>(c3);
    const y = connectApi<WorkbenchApi>(c4);
    const [policies, tasks] = await Promise.all([x.listPolicies(), y.listTasks()]);
    expect(policies.map((p) => p.name)).toContain('oracle');
    expect(tasks[0]).toHaveProperty('template');

    const framesX: FrameView[] = [];
    const framesY: FrameView[] = [];
    x.onFrame({ serial, scale: 0.5 }, (f) => framesX.push(f));
    const offY = y.onFrame({ serial, scale: 0.5 }, (f) => framesY.push(f));
    await nextFrame(framesX, () => true);
    await nextFrame(framesY, () => true);

    // Connection 3's window goes away: the host drops its subscription (same id as 4's), 4 goes on.
    c3.close();
    const toClosed: unknown[] = [];
    const watch = (m: unknown) => {
      const e = parseFromHost(m);
      if (e && 'conn' in e && e.conn === 3) toClosed.push(e);
    };
    await new Promise((r) => setTimeout(r, 200));
    child.on('message', watch);
    const seenX = framesX.length;
    const lastY = framesY.at(-1)!.seq;
    await changeScreen(y, serial);
    await nextFrame(framesY, (f) => f.seq > lastY);
    await new Promise((r) => setTimeout(r, 300));
    child.off('message', watch);
    expect(toClosed).toEqual([]);
    expect(framesX).toHaveLength(seenX);
    offY();
  });

  it('serves the environment endpoint for outside agents, recorded in AWB_HOME/env-server.json (owner only)', async () => {
    const file = join(home, 'env-server.json');
    const record = JSON.parse(readFileSync(file, 'utf8')) as { url: string; pid: number };
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(record).toMatchObject({ url: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+\/env\?token=/), pid: child.pid });
    const c = await EnvClient.connect(record.url);
    const { session } = await c.request('create', { task: { template: 'ClockStopwatchRun' }, agent: 'via the app' });
    // The app's own API lists the agent's session: the person in the desktop app can watch it.
    expect((await a.listSessions()).find((s) => s.id === session)?.agent?.name).toBe('via the app');
    await c.close();
  });

  it('closes the workbench and exits when the parent disconnects (no orphan host)', async () => {
    const pid = child.pid!;
    expect(alive(pid)).toBe(true);
    // Work in progress when the parent leaves: a random agent running a long episode.
    const task = (await a.listTasks())[0]!;
    const session = await a.startSession({ serial, templateId: task.id, seed: 1, policy: 'random', run: true, maxSteps: 500 });
    expect(session.state).toBe('running');
    child.disconnect();
    expect(await exited(child, 15_000)).toBe(0);
    expect(alive(pid)).toBe(false);
    // It left through the shutdown path (sessions stopped, devices stopped, store closed), not by dying.
    expect(stderr()).toContain('the parent went away: closing the workbench');
    // …and took its endpoint record with it.
    expect(existsSync(join(home, 'env-server.json'))).toBe(false);
  });
});

describe('runHost (in process, with a fake parent link)', () => {
  function fakeLink() {
    const posted: FromHost[] = [];
    let onMessage: (raw: unknown) => void = () => {};
    let onDisconnect: () => void = () => {};
    const link: ParentLink = {
      kind: 'node',
      post: (m, sent) => {
        posted.push(m);
        sent?.();
      },
      onMessage: (l) => void (onMessage = l),
      onDisconnect: (l) => void (onDisconnect = l),
    };
    return { link, posted, send: (m: unknown) => onMessage(m), disconnect: () => onDisconnect() };
  }
  const settle = () => new Promise((r) => setTimeout(r, 20));

  it('queues what arrives while the workbench starts, then serves it; shutdown closes it and exits 0', async () => {
    const { link, posted, send } = fakeLink();
    let release!: () => void;
    const closed = vi.fn(async () => {});
    const workbench = { listPolicies: async () => [{ name: 'oracle', description: '' }], close: closed } as unknown as Workbench;
    const exit = vi.fn();
    const host = runHost({ link, start: () => new Promise((r) => (release = () => r(workbench))), log: () => {}, exit });
    send({ conn: 7, msg: { t: 'call', id: 1, m: 'listPolicies', a: {} } });
    send({ conn: 7, msg: { t: 'nonsense' } }); // dropped: not a bridge request
    await settle();
    expect(posted).toEqual([]);
    release();
    await settle();
    expect(posted).toEqual([{ ready: true }, { conn: 7, msg: { t: 'ret', id: 1, v: [{ name: 'oracle', description: '' }] } }]);
    send({ shutdown: true });
    expect(await host.stopped).toBe(0);
    expect(closed).toHaveBeenCalledOnce();
    expect(exit).toHaveBeenCalledWith(0);
  });

  it('reports a workbench that cannot start and exits 1', async () => {
    const { link, posted } = fakeLink();
    const exit = vi.fn();
    const host = runHost({ link, start: async () => { throw Object.assign(new Error('database is locked'), { name: 'StoreError' }); }, log: () => {}, exit });
    expect(await host.stopped).toBe(1);
    expect(posted).toEqual([{ fatal: 'StoreError: database is locked' }]);
    expect(exit).toHaveBeenCalledWith(1);
  });

  it('closes a workbench that finished starting after the parent already left', async () => {
    const { link, disconnect } = fakeLink();
    let release!: () => void;
    const closed = vi.fn(async () => {});
    const exit = vi.fn();
    const host = runHost({ link, start: () => new Promise((r) => (release = () => r({ close: closed } as unknown as Workbench))), log: () => {}, exit });
    disconnect();
    release();
    expect(await host.stopped).toBe(0);
    expect(closed).toHaveBeenCalledOnce();
  });
});
