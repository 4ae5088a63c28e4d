import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SettingsSchema } from '../../core/api/settings.js';
import { createAppStore, type AppStore } from '../../renderer/src/store/index.js';
import { bridgedWorkbench, type BridgedWorkbench } from '../helpers/bridged-workbench.js';
import { formValues, patchFromForm } from '../../renderer/src/views/settings/form.js';

describe('the settings slice against the real workbench', () => {
  let bridged: BridgedWorkbench;
  let dir: string;
  let store: AppStore;

  beforeAll(async () => {
    bridged = await bridgedWorkbench('awb-settings-');
    ({ dir, store } = bridged);
  });

  afterAll(() => bridged.close());

  it('loads the settings and one form field per schema field, labelled by its description', async () => {
    await store.getState().loadSettings();
    const s = store.getState();
    expect(s.settings).toMatchObject({ dataDir: dir, mirrorFps: 30, mirrorScale: 0.5 });
    expect(s.settingsFields!.map((f) => f.key)).toEqual(Object.keys(SettingsSchema.shape));
    for (const f of s.settingsFields!) expect(f.description).toBe(SettingsSchema.shape[f.key].description);
    const byKey = Object.fromEntries(s.settingsFields!.map((f) => [f.key, f]));
    expect(byKey.mirrorFps).toMatchObject({ kind: 'integer', nullable: false, min: 1, max: 60 });
    expect(byKey.maxSteps).toMatchObject({ kind: 'integer', nullable: true });
    expect(byKey.mirrorScale).toMatchObject({ kind: 'choice', options: [1, 0.5] });
    expect(byKey.screenshots).toMatchObject({ kind: 'choice', options: ['none', 'half', 'full'] });
    expect(byKey.defaultDevice).toMatchObject({ kind: 'text', nullable: true });
  });

  it('saves a change that round-trips through the server and the settings file', async () => {
    expect(await store.getState().saveSettings({ mirrorFps: 24, maxSteps: 40 })).toBe(true);
    expect(store.getState().settings).toMatchObject({ mirrorFps: 24, maxSteps: 40 });
    expect(JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8'))).toMatchObject({ mirrorFps: 24, maxSteps: 40 });
    const fresh = createAppStore(store.api);
    await fresh.getState().loadSettings();
    expect(fresh.getState().settings).toMatchObject({ mirrorFps: 24, maxSteps: 40 });
  });

  it('a banner goes when its cause is gone: the same action succeeding later clears it', async () => {
    await store.getState().attempt('Load settings', () => Promise.reject(new Error('the server is restarting')));
    expect(store.getState().errors.map((e) => e.action)).toContain('Load settings');
    await store.getState().loadSettings();
    expect(store.getState().errors.map((e) => e.action)).not.toContain('Load settings');
  });

  it('an invalid value is refused at its field, in plain words, and nothing changes', async () => {
    expect(await store.getState().saveSettings({ mirrorFps: 0 })).toBe(false);
    const s = store.getState();
    // Once, at the field, in plain words: no banner repeats it.
    expect(s.errors.filter((e) => e.action === 'Save settings')).toEqual([]);
    expect(s.settingsErrors.mirrorFps).toMatch(/^Mirror fps must be a whole number ≥ 1, got 0$/);
    expect(s.settings!.mirrorFps).toBe(24);
    expect((await store.api.getSettings()).mirrorFps).toBe(24);
    // The next successful save clears the field's error.
    expect(await store.getState().saveSettings({ mirrorFps: 25 })).toBe(true);
    expect(store.getState().settingsErrors).toEqual({});
  });

  it('the form sends only changed fields, as typed; the server judges them', async () => {
    const { settings, settingsFields } = store.getState();
    const values = formValues(settings!, settingsFields!);
    expect(values.maxSteps).toBe('40');
    expect(values.defaultDevice).toBe('');
    expect(patchFromForm({ ...values }, settings!, settingsFields!)).toEqual({});
    const patch = patchFromForm({ ...values, maxSteps: '', mirrorScale: '1', mirrorFps: 'fast', defaultDevice: ' simdroid-1 ' }, settings!, settingsFields!);
    expect(patch).toEqual({ maxSteps: null, mirrorScale: 1, mirrorFps: 'fast', defaultDevice: 'simdroid-1' });
    expect(await store.getState().saveSettings(patch)).toBe(false);
    expect(store.getState().settingsErrors.mirrorFps).toBeDefined();
    const { mirrorFps: _bad, ...good } = patch;
    expect(await store.getState().saveSettings(good)).toBe(true);
    expect(store.getState().settings).toMatchObject({ maxSteps: null, mirrorScale: 1, defaultDevice: 'simdroid-1' });
  });
});
