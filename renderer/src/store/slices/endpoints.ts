import type { StateCreator } from 'zustand';
import type { WorkbenchApi } from '../../../../core/api/api.js';
import type { EndpointInfo, EndpointTestResult, VlmPresetId, VlmPresetInfo } from '../../../../core/api/types.js';
import { draftOf, newDraft, saveInputOf, withPreset, type EndpointDraft } from '../../views/settings/endpoint-form.js';
import type { AppState } from '../index.js';

/**
 * Settings → Endpoints: the VLM endpoint profiles as the workbench lists them (never a key), the one
 * profile being edited, the server's problems with it by field, and the latest test per profile.
 * A saved or removed profile changes the Agent view's policies too, so those are reloaded. The model presets a profile
 * can name are listed once, with the endpoints.
 */
export type EndpointTest = { state: 'running' } | { state: 'done'; result: EndpointTestResult };

export interface EndpointsSlice {
  endpoints: EndpointInfo[];
  endpointsLoaded: boolean;
  /** The model presets (listVlmPresets), for the form's preset control. */
  vlmPresets: VlmPresetInfo[];
  /** The open form, or null. */
  endpointDraft: EndpointDraft | null;
  /** The last save's problems by field path ('' = the whole input). */
  endpointErrors: Record<string, string>;
  endpointSaving: boolean;
  endpointTests: Record<string, EndpointTest>;
  loadEndpoints(): Promise<void>;
  /** Opens the form on a profile (by name) or on a new one (null). */
  editEndpoint(name: string | null): void;
  setEndpointDraft(patch: Partial<EndpointDraft>): void;
  /** Chooses a preset in the open form ('' for none): the shown fields take its values (endpoint-form.ts withPreset). */
  chooseEndpointPreset(id: VlmPresetId | ''): void;
  closeEndpointDraft(): void;
  /** Saves the form; true (and the form closes) if the server accepted it. */
  saveEndpointDraft(): Promise<boolean>;
  removeEndpoint(name: string): Promise<void>;
  testEndpoint(name: string): Promise<void>;
}

export const createEndpointsSlice = (api: WorkbenchApi): StateCreator<AppState, [], [], EndpointsSlice> => (set, get) => {
  const listed = async (list: EndpointInfo[] | undefined) => {
    if (!list) return;
    set({ endpoints: list });
    // The Agent view lists each profile as a vlm:<name> policy.
    const policies = await get().attempt('List policies', () => api.listPolicies({}));
    if (policies) set({ agentPolicies: policies });
  };
  return {
    endpoints: [],
    endpointsLoaded: false,
    vlmPresets: [],
    endpointDraft: null,
    endpointErrors: {},
    endpointSaving: false,
    endpointTests: {},

    loadEndpoints: async () => {
      const list = await get().attempt('Load endpoints', () => api.listEndpoints({}));
      const presets = get().vlmPresets.length ? undefined : await get().attempt('List model presets', () => api.listVlmPresets({}));
      set((s) => ({ endpoints: list ?? s.endpoints, endpointsLoaded: true, vlmPresets: presets ?? s.vlmPresets }));
    },

    editEndpoint: (name) => {
      const info = name === null ? undefined : get().endpoints.find((e) => e.name === name);
      set({ endpointDraft: info ? draftOf(info) : newDraft(), endpointErrors: {} });
    },

    setEndpointDraft: (patch) => set((s) => {
      if (!s.endpointDraft) return s;
      // A changed field's old problem no longer applies.
      const errors = { ...s.endpointErrors };
      for (const k of Object.keys(patch)) for (const path of Object.keys(errors)) if (path.toLowerCase().endsWith(k.toLowerCase())) delete errors[path];
      return { endpointDraft: { ...s.endpointDraft, ...patch }, endpointErrors: errors };
    }),

    chooseEndpointPreset: (id) => {
      const draft = get().endpointDraft;
      if (!draft) return;
      const next = withPreset(draft, id, get().vlmPresets);
      get().setEndpointDraft({
        preset: next.preset, model: next.model, format: next.format, coordinates: next.coordinates, temperature: next.temperature,
        maxTokens: next.maxTokens, historySteps: next.historySteps, promptFile: next.promptFile,
      });
    },

    closeEndpointDraft: () => set({ endpointDraft: null, endpointErrors: {} }),

    saveEndpointDraft: async () => {
      const draft = get().endpointDraft;
      if (!draft) return false;
      set({ endpointSaving: true, endpointErrors: {} });
      const input = saveInputOf(draft, get().vlmPresets);
      const list = await get().attemptForm(`Save endpoint ${input.name || '(unnamed)'}`, () => api.saveEndpoint(input), (endpointErrors) => set({ endpointErrors }));
      set({ endpointSaving: false });
      if (!list) return false;
      set({ endpointDraft: null });
      await listed(list);
      return true;
    },

    removeEndpoint: async (name) => {
      await listed(await get().attempt(`Remove endpoint ${name}`, () => api.removeEndpoint({ name })));
      set((s) => (s.endpointDraft?.original === name ? { endpointDraft: null } : s));
    },

    testEndpoint: async (name) => {
      set((s) => ({ endpointTests: { ...s.endpointTests, [name]: { state: 'running' } } }));
      const result = await get().attempt(`Test endpoint ${name}`, () => api.testEndpoint({ name }));
      set((s) => {
        const tests = { ...s.endpointTests };
        if (result) tests[name] = { state: 'done', result };
        else delete tests[name];
        return { endpointTests: tests };
      });
    },
  };
};
