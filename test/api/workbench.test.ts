import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkbench, type Workbench } from '../../core/workbench/index.js';
import { SettingsFileError } from '../../core/workbench/settings-file.js';
import type { SessionEvent } from '../../core/api/types.js';

let dir: string;
let wb: Workbench | null = null;

afterEach(async () => {
  await wb?.close();
  wb = null;
  rmSync(dir, { recursive: true, force: true });
});

async function open(): Promise<Workbench> {
  dir ??= '';
  dir = mkdtempSync(join(tmpdir(), 'awb-wb-'));
  wb = await createWorkbench({ dataDir: dir, adb: false });
  return wb;
}

describe('the workbench implementation', () => {
  it('starts and stops embedded SimDroids and tells device listeners', async () => {
    const w = await open();
    const seen: string[][] = [];
    const off = w.onDevices({}, (l) => seen.push(l.devices.map((d) => d.serial)));
    const d = await w.startSimDroid();
    expect(d.serial).toBe('simdroid-2');
    expect(d.screen).toEqual({ width: 1080, height: 2400, density: 420 });
    await w.stopSimDroid({ serial: 'simdroid-2' });
    await new Promise((r) => setTimeout(r, 20));
    expect(seen).toContainEqual(['simdroid-1', 'simdroid-2']);
    expect(seen.at(-1)).toEqual(['simdroid-1']);
    await expect(w.stopSimDroid({ serial: 'simdroid-2' })).rejects.toMatchObject({ name: 'DeviceNotFoundError' });
    off();
  });

  it('drives the screen: input changes what screenState reports', async () => {
    const w = await open();
    const before = await w.screenState({ serial: 'simdroid-1' });
    expect(before.xml).toMatch(/^<\?xml/);
    await w.sendInput({ serial: 'simdroid-1', event: { kind: 'swipe', x1: 540, y1: 2000, x2: 540, y2: 600, durationMs: 300 } });
    const after = await w.screenState({ serial: 'simdroid-1' });
    expect(after.xml).not.toBe(before.xml); // the app drawer opened
  });

  it('runs a step-through session to the end and records it', async () => {
    const w = await open();
    const events: SessionEvent['kind'][] = [];
    const s = await w.startSession({ serial: 'simdroid-1', templateId: 'SystemWifiTurnOff', seed: 0, policy: 'oracle', run: true });
    const done = new Promise<void>((resolve) => w.onSession({ sessionId: s.id }, (e) => {
      events.push(e.kind);
      if (e.kind === 'finished') resolve();
    }));
    await done;
    const info = await w.getSession({ sessionId: s.id });
    expect(info.result?.status).toBe('success');
    expect(info.steps.length).toBeGreaterThan(0);
    expect(info.steps.at(-1)!.rewards.outcome).toBe(1);
    expect(events).toContain('step');
    const page = await w.listEpisodes({});
    expect(page.rows.map((r) => r.id)).toEqual([info.episodeId]);
    expect((await w.episodeFacets()).templates).toEqual(['SystemWifiTurnOff']);
    const t = await w.getTrajectory({ episodeId: info.episodeId! });
    expect(t.steps.length).toBe(info.steps.length);
    // The run filter names each run's kind (a step-through session's is `single`).
    expect((await w.episodeFacets()).runs.find((r) => r.id === t.episode.runId)).toMatchObject({ kind: 'single', iterations: [] });
    const shot = await w.getScreenshot({ hash: t.steps[0]!.screenshot! });
    expect(shot[1]).toBe(0x50);
    const exported = await w.exportEpisodes({ filter: {} });
    expect(exported.episodes).toBe(1);
    expect(existsSync(join(exported.path, 'manifest.json'))).toBe(true);
    await expect(w.startSession({ serial: 'simdroid-9', templateId: 'SystemWifiTurnOff', seed: 0, policy: 'oracle' })).rejects.toMatchObject({ name: 'DeviceNotFoundError' });
  });

  it('runs a free-form instruction: manual policy, success only when the agent says complete', async () => {
    const w = await open();
    const s = await w.startSession({ serial: 'simdroid-1', instruction: 'Open the clock', policy: 'manual' });
    expect(s.templateId).toBe('FreeForm');
    expect(s.instruction).toBe('Open the clock');
    const finished = new Promise<void>((resolve) => w.onSession({ sessionId: s.id }, (e) => e.kind === 'finished' && resolve()));
    const until = async (cond: () => Promise<boolean>) => {
      for (let i = 0; i < 200 && !(await cond()); i++) await new Promise((r) => setTimeout(r, 10));
    };
    await until(async () => (await w.getSession({ sessionId: s.id })).state === 'paused');
    await w.overrideAction({ sessionId: s.id, action: { action_type: 'open_app', app_name: 'Clock' } });
    await w.controlSession({ sessionId: s.id, command: 'step' });
    await until(async () => (await w.getSession({ sessionId: s.id })).steps.length === 1 && (await w.getSession({ sessionId: s.id })).state === 'paused');
    await w.overrideAction({ sessionId: s.id, action: { action_type: 'status', goal_status: 'complete' } });
    await w.controlSession({ sessionId: s.id, command: 'step' });
    await finished;
    const info = await w.getSession({ sessionId: s.id });
    expect(info.result).toMatchObject({ status: 'success', terminatedBy: 'status' });
    expect((await w.screenState({ serial: 'simdroid-1' })).foreground.package).toBe('com.google.android.deskclock');
    expect((await w.listEpisodes({ templateId: 'FreeForm' })).total).toBe(1);
  });

  it('moves the data folder: the store there is opened now and on the next start', async () => {
    const w = await open();
    const s = await w.startSession({ serial: 'simdroid-1', templateId: 'SystemWifiTurnOff', seed: 0, policy: 'oracle' });
    await expect(w.updateSettings({ dataDir: join(dir, 'elsewhere') })).rejects.toMatchObject({ name: 'DataDirBusyError' });
    await w.controlSession({ sessionId: s.id, command: 'stop' });
    for (let i = 0; i < 200 && (await w.getSession({ sessionId: s.id })).state !== 'finished'; i++) await new Promise((r) => setTimeout(r, 10));
    expect((await w.listEpisodes({})).total).toBe(1);
    await w.updateSettings({ dataDir: join(dir, 'elsewhere') });
    expect(existsSync(join(dir, 'elsewhere', 'trajectories.db'))).toBe(true);
    expect((await w.listEpisodes({})).total).toBe(0);
    await w.close();
    wb = await createWorkbench({ dataDir: dir, adb: false });
    expect((await wb.getSettings()).dataDir).toBe(join(dir, 'elsewhere'));
    expect((await wb.listEpisodes({})).total).toBe(0);
    await wb.updateSettings({ dataDir: dir });
    expect((await wb.listEpisodes({})).total).toBe(1);
  });

  it('persists settings, refuses invalid ones, and names a malformed settings file', async () => {
    const w = await open();
    const s = await w.updateSettings({ mirrorFps: 15, screenshots: 'full' });
    expect(s.mirrorFps).toBe(15);
    expect(JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8')).screenshots).toBe('full');
    await expect(w.updateSettings({ mirrorFps: 0 })).rejects.toThrow();
    expect((await w.getSettings()).mirrorFps).toBe(15);
    await w.close();
    wb = null;
    writeFileSync(join(dir, 'settings.json'), '{"mirrorFps": "fast"');
    await expect(createWorkbench({ dataDir: dir, adb: false })).rejects.toThrow(SettingsFileError);
  });
});
