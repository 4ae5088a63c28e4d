import type { StateCreator } from 'zustand';
import type { WorkbenchApi } from '../../../../core/api/api.js';
import type { AppState } from '../index.js';

// Placeholder until the Settings view's slice is written (issue 5 in progress).
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface SettingsSlice {}

export const createSettingsSlice = (_api: WorkbenchApi): StateCreator<AppState, [], [], SettingsSlice> => () => ({});
