import { createStore, type StoreApi } from 'zustand/vanilla';
import { useStore } from 'zustand';
import type { WorkbenchApi } from '../../../core/api/api.js';
import { createUiSlice, type UiSlice } from './slices/ui.js';
import { createDevicesSlice, type DevicesSlice } from './slices/devices.js';
import { createLiveSlice, type LiveSlice } from './slices/live.js';
import { createSessionSlice, type SessionSlice } from './slices/session.js';
import { createOutsideAgentsSlice, type OutsideAgentsSlice } from './slices/outside-agents.js';
import { createTrajectoriesSlice, type TrajectoriesSlice } from './slices/trajectories.js';
import { createSettingsSlice, type SettingsSlice } from './slices/settings.js';
import { createTrainingSlice, type TrainingSlice } from './slices/training.js';
import { createAdaptationSlice, type AdaptationSlice } from './slices/adaptation.js';
import { createRewardsSlice, type RewardsSlice } from './slices/rewards.js';
import { createJobsSlice, type JobsSlice } from './slices/jobs.js';
import { createEndpointsSlice, type EndpointsSlice } from './slices/endpoints.js';
import { createEvaluationSlice, type EvaluationSlice } from './slices/evaluation.js';

/**
 * One zustand store of typed slices (one per domain). It is created around an API object, so tests
 * build it with the real workbench over an in-memory channel (or a fake) and no React.
 */
export type AppState = UiSlice & DevicesSlice & LiveSlice & SessionSlice & OutsideAgentsSlice & TrajectoriesSlice & SettingsSlice & TrainingSlice & AdaptationSlice & RewardsSlice & JobsSlice & EndpointsSlice & EvaluationSlice;
export type AppStore = StoreApi<AppState> & { api: WorkbenchApi };

export function createAppStore(api: WorkbenchApi): AppStore {
  const store = createStore<AppState>()((...a) => ({
    ...createUiSlice(api)(...a),
    ...createDevicesSlice(api)(...a),
    ...createLiveSlice(api)(...a),
    ...createSessionSlice(api)(...a),
    ...createOutsideAgentsSlice(api)(...a),
    ...createTrajectoriesSlice(api)(...a),
    ...createSettingsSlice(api)(...a),
    ...createTrainingSlice(api)(...a),
    ...createAdaptationSlice(api)(...a),
    ...createRewardsSlice(api)(...a),
    ...createJobsSlice(api)(...a),
    ...createEndpointsSlice(api)(...a),
    ...createEvaluationSlice(api)(...a),
  }));
  return Object.assign(store, { api });
}

let current: AppStore | null = null;

/** The app's store (set once at startup by main.tsx). */
export function setAppStore(store: AppStore): void {
  current = store;
}

export function appStore(): AppStore {
  if (!current) throw new Error('The app store is not set up (main.tsx calls setAppStore first)');
  return current;
}

export function useApp<T>(selector: (s: AppState) => T): T {
  return useStore(appStore(), selector);
}
