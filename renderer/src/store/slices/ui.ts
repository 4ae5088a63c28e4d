import type { StateCreator } from 'zustand';
import type { WorkbenchApi } from '../../../../core/api/api.js';
import type { Activity } from '../../../../core/api/types.js';
import type { ConnectionState } from '../../api/client.js';
import type { AppState } from '../index.js';
import { issuesOf } from '../issues.js';

/** In the navigation's order; each view's Ctrl/Cmd+N shortcut is its command's (Training is 6, Adaptation 7, Jobs 8, Settings keeps 5). */
export const VIEWS = ['devices', 'live', 'agent', 'trajectories', 'training', 'adaptation', 'jobs', 'settings'] as const;
export type ViewName = (typeof VIEWS)[number];

export interface UiError {
  id: number;
  /** What the user was doing, e.g. "Start session". */
  action: string;
  name: string;
  message: string;
  /** The view the action was taken on: its banner shows there, not on the other views. */
  view: ViewName;
}

export interface UiSlice {
  view: ViewName;
  connection: ConnectionState;
  /** The device the Live and Agent views work on. */
  selectedSerial: string | null;
  errors: UiError[];
  activities: Record<string, Activity>;
  setView(view: ViewName): void;
  selectDevice(serial: string | null): void;
  setConnection(state: ConnectionState): void;
  dismissError(id: number): void;
  /**
   * Runs one API call on the user's behalf: a failure becomes a visible error (named, with the
   * server's message) instead of an unhandled rejection; resolves to undefined then.
   */
  attempt<T>(action: string, call: () => Promise<T>): Promise<T | undefined>;
  /**
   * attempt for a form's submit: a refusal that names fields (a validation error's issues) goes to
   * `show`, by field, and nowhere else, so each problem shows once, next to its field; any other
   * failure is a banner as attempt's.
   */
  attemptForm<T>(action: string, call: () => Promise<T>, show: (issues: Record<string, string>) => void): Promise<T | undefined>;
  watchActivities(): () => void;
}

let nextError = 1;

export const createUiSlice = (api: WorkbenchApi): StateCreator<AppState, [], [], UiSlice> => (set, get) => ({
  view: 'devices',
  connection: 'connecting',
  selectedSerial: null,
  errors: [],
  activities: {},
  setView: (view) => set({ view }),
  selectDevice: (serial) => set({ selectedSerial: serial }),
  setConnection: (connection) => set({ connection }),
  dismissError: (id) => set((s) => ({ errors: s.errors.filter((e) => e.id !== id) })),
  attempt: async (action, call) => {
    const view = get().view;
    try {
      const result = await call();
      // The action works now: its earlier failure is no longer true, so its banner goes.
      set((s) => (s.errors.some((e) => e.action === action) ? { errors: s.errors.filter((e) => e.action !== action) } : s));
      return result;
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      set((s) => ({ errors: [...s.errors.slice(-9), { id: nextError++, action, name: err.name, message: err.message, view }] }));
      return undefined;
    }
  },
  attemptForm: (action, call, show) => get().attempt(action, async () => {
    try {
      return await call();
    } catch (e) {
      const issues = issuesOf(e);
      if (issues === null) throw e;
      show(issues);
      return undefined;
    }
  }),
  watchActivities: () => api.onActivity({}, (a) => set((s) => ({ activities: { ...s.activities, [a.id]: a } }))),
});
