import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkbenchApi } from '../../core/api/api.js';
import { channelPair, connectApi, RemoteError, type Channel } from '../../core/api/bridge.js';
import { serveApi } from '../../core/api/serve-api.js';
import { createWorkbench, type Workbench } from '../../core/workbench/index.js';
import type { FrameView } from '../../core/api/types.js';

describe('the generic bridge over the real workbench', () => {
  let dir: string;
  let workbench: Workbench;
  let api: WorkbenchApi;
  let ends: [Channel & { close?(): void }, Channel & { close?(): void }];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'awb-bridge-'));
    workbench = await createWorkbench({ dataDir: dir, adb: false });
    ends = channelPair() as typeof ends;
    serveApi(workbench, ends[1]);
    api = connectApi<WorkbenchApi>(ends[0]);
  });

  afterAll(async () => {
    await workbench.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('calls methods by name and returns plain data, PNG bytes included', async () => {
    const list = await api.listDevices();
    expect(list.devices.map((d) => d.serial)).toEqual(['simdroid-1']);
    expect(list.adbError).toMatch(/disabled/);
    const shot = await api.screenshot({ serial: 'simdroid-1', scale: 0.5 });
    expect([...shot.png.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    expect([shot.width, shot.height]).toEqual([540, 1200]);
  });

  it('refuses malformed input with a validation error naming the field, before the implementation runs', async () => {
    const err = await api.sendInput({ serial: 'simdroid-1', event: { kind: 'tap', x: -5 } as never }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RemoteError);
    expect((err as RemoteError).name).toBe('ApiInputError');
    expect((err as RemoteError).issues?.map((i) => i.path)).toEqual(expect.arrayContaining(['event.x', 'event.y']));
    await expect(api.describeTask({ templateId: 'ContactsAddContact', seed: 1.5 })).rejects.toMatchObject({ name: 'ApiInputError' });
    await expect(api.startSession({ serial: 'simdroid-1', templateId: 'SystemWifiTurnOff', seed: 0, instruction: 'both', policy: 'random' }))
      .rejects.toMatchObject({ name: 'ApiInputError', message: expect.stringMatching(/either templateId/) });
    await expect(api.startSession({ serial: 'simdroid-1', instruction: 'Open the clock', policy: 'oracle' }))
      .rejects.toMatchObject({ name: 'ApiInputError', message: expect.stringMatching(/no oracle/) });
    await expect(api.getSession({ sessionId: 'x', extra: 1 } as never)).rejects.toMatchObject({ name: 'ApiInputError', message: expect.stringMatching(/extra/) });
  });

  it("keeps the implementation's error names (the UI shows them)", async () => {
    await expect(api.describeTask({ templateId: 'NoSuchTemplate', seed: 0 })).rejects.toMatchObject({ name: 'UnknownTemplateError' });
    await expect(api.getSession({ sessionId: 'nope' })).rejects.toMatchObject({ name: 'SessionNotFoundError' });
    await expect((api as unknown as { nosuch(): Promise<void> }).nosuch()).rejects.toMatchObject({ name: 'ApiMethodError' });
  });

  // Issue 16: these answered "TypeError: schema.safeParse is not a function" (looked up on Object's prototype).
  it("answers names of Object's prototype as unknown API members", async () => {
    const [a, b] = channelPair();
    serveApi(workbench, b);
    const replies = new Map<number, { t: string; e?: { name: string; message: string } }>();
    a.onMessage((m) => void (m.t !== 'ev' && replies.set((m as { id: number }).id, m as never)));
    const names = ['constructor', 'toString', 'hasOwnProperty', '__proto__', 'valueOf', 'onconstructor'];
    names.forEach((m, id) => a.send({ t: 'call', id, m, a: {} }));
    names.forEach((m, id) => a.send({ t: 'sub', id: 100 + id, m: m.startsWith('on') ? m : `on${m}`, a: {} }));
    await until(() => replies.size === names.length * 2);
    for (const [id, r] of replies) {
      expect(r.t, String(id)).toBe('err');
      expect(r.e!.name, `${id}: ${r.e!.message}`).toBe('ApiMethodError');
    }
  });

  it('delivers events to subscribers and stops after unsubscribe', async () => {
    const frames: FrameView[] = [];
    const off = api.onFrame({ serial: 'simdroid-1', scale: 0.5 }, (f) => frames.push(f));
    await until(() => frames.length >= 1);
    await api.sendInput({ serial: 'simdroid-1', event: { kind: 'swipe', x1: 540, y1: 1800, x2: 540, y2: 600, durationMs: 200 } });
    await until(() => frames.length >= 2);
    expect(frames[1]!.seq).toBeGreaterThan(frames[0]!.seq);
    expect(frames[1]!.png).toBeInstanceOf(Uint8Array);
    off();
    const n = frames.length;
    await api.sendInput({ serial: 'simdroid-1', event: { kind: 'key', key: 'HOME' } });
    await new Promise((r) => setTimeout(r, 150));
    expect(frames.length).toBe(n);
  });

  it('streams a drag as touches: a frame comes while the finger is still down; SimDroid refuses a rotation by name (issue 33)', async () => {
    await api.sendInput({ serial: 'simdroid-1', event: { kind: 'key', key: 'HOME' } });
    const frames: FrameView[] = [];
    const off = api.onFrame({ serial: 'simdroid-1', scale: 0.5 }, (f) => frames.push(f));
    await until(() => frames.length >= 1);
    expect((await api.listDevices()).devices.find((d) => d.serial === 'simdroid-1')).toMatchObject({ touch: true, rotate: false });
    await api.sendTouch({ serial: 'simdroid-1', action: 'down', x: 540, y: 1900 });
    const n = frames.length;
    await api.sendTouch({ serial: 'simdroid-1', action: 'move', x: 540, y: 1500 });
    await until(() => frames.length > n);
    await api.sendTouch({ serial: 'simdroid-1', action: 'up', x: 540, y: 700 });
    off();
    await expect(api.sendTouch({ serial: 'simdroid-1', action: 'lift' as 'up', x: 1, y: 1 })).rejects.toMatchObject({ name: 'ApiInputError' });
    await expect(api.rotateDevice({ serial: 'simdroid-1', rotation: 1 })).rejects.toMatchObject({ name: 'RotationUnsupportedError' });
    await expect(api.rotateDevice({ serial: 'simdroid-1', rotation: 5 as 1 })).rejects.toMatchObject({ name: 'ApiInputError' });
  });

  it('reports a refused subscription to the caller with its error name', async () => {
    const [a, b] = channelPair();
    serveApi(workbench, b);
    const refused: Array<[string, string]> = [];
    const remote = connectApi<WorkbenchApi>(a, { onSubscriptionError: (member, e) => refused.push([member, e.name]) });
    remote.onFrame({ serial: 'no-such-device' }, () => {});
    remote.onSession({ sessionId: '' }, () => {});
    await until(() => refused.length === 2);
    expect(refused).toEqual([['onFrame', 'DeviceNotFoundError'], ['onSession', 'ApiInputError']]);
  });

  it('drops every subscription of a connection when its channel closes', async () => {
    const [a, b] = channelPair() as [Channel & { close(): void }, Channel];
    let sentAfterClose = 0;
    let closed = false;
    // Count what the serving side still tries to send once the connection is gone.
    serveApi(workbench, { ...b, send: (m) => (closed ? sentAfterClose++ : b.send(m)) });
    const remote = connectApi<WorkbenchApi>(a);
    let events = 0;
    remote.onActivity({}, () => events++);
    await remote.listDevices(); // the subscription is registered once a later call round-trips
    await api.exportEpisodes({ filter: {} });
    await until(() => events >= 2); // running, done: the subscription works while open
    a.close();
    closed = true;
    await expect(remote.listDevices()).rejects.toMatchObject({ name: 'ChannelClosedError' });
    await api.exportEpisodes({ filter: {} });
    expect(sentAfterClose).toBe(0);
  });
});

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}
