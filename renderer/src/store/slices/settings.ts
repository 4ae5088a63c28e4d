import type { StateCreator } from 'zustand';
import type { WorkbenchApi } from '../../../../core/api/api.js';
import type { SettingField, Settings } from '../../../../core/api/settings.js';
import type { AppState } from '../index.js';

export interface SettingsSlice {
  settings: Settings | null;
  /** The form's fields as the server describes them (labels = the schema's descriptions). */
  settingsFields: SettingField[] | null;
  /** True once loading was tried (settings stay null if it failed: the server's defaults apply then). */
  settingsLoaded: boolean;
  /** The server's validation problems from the last save, by field key ('' = the whole input). */
  settingsErrors: Record<string, string>;
  settingsSaving: boolean;
  loadSettings(): Promise<void>;
  /** Saves a patch; true if the server accepted it. Values are sent as typed: the server validates. */
  saveSettings(patch: Record<string, unknown>): Promise<boolean>;
  clearSettingsError(key: string): void;
}

export const createSettingsSlice = (api: WorkbenchApi): StateCreator<AppState, [], [], SettingsSlice> => (set, get) => ({
  settings: null,
  settingsFields: null,
  settingsLoaded: false,
  settingsErrors: {},
  settingsSaving: false,

  loadSettings: async () => {
    const [settings, fields] = await Promise.all([
      get().attempt('Load settings', () => api.getSettings({})),
      get().attempt('Describe settings', () => api.describeSettings({})),
    ]);
    set((s) => ({ settings: settings ?? s.settings, settingsFields: fields ?? s.settingsFields, settingsLoaded: true }));
  },

  saveSettings: async (patch) => {
    set({ settingsSaving: true, settingsErrors: {} });
    // The patch's values come from a form: the server's schema is the one validator.
    const saved = await get().attemptForm('Save settings', () => api.updateSettings(patch as Partial<Settings>), (settingsErrors) => set({ settingsErrors }));
    set((s) => ({ settingsSaving: false, settings: saved ?? s.settings }));
    return saved !== undefined;
  },

  clearSettingsError: (key) => set((s) => {
    if (!(key in s.settingsErrors)) return s;
    const next = { ...s.settingsErrors };
    delete next[key];
    return { settingsErrors: next };
  }),
});
