import type { StateCreator } from 'zustand';
import type { WorkbenchApi } from '../../../../core/api/api.js';
import type { SessionInfo } from '../../../../core/api/types.js';
import type { AppState } from '../index.js';
import { sharedWatch } from '../shared-watch.js';

/**
 * Outside agents in the Agent view (docs/outside-agents.md): the sessions Python agents hold on the environment server,
 * listed as the workbench tells of them (`onSessions`: when one comes, goes, changes state or starts an episode), and a
 * person's actions while they have one (take over): each action is carried out at once, an override then a Step.
 * Attaching to a session, and the commands, are the session slice's (openSession, controlSession).
 */
export interface OutsideAgentsSlice {
  outsideSessions: SessionInfo[];
  /** Keeps outsideSessions current; returns the function that stops (the Agent view watches while it is shown). */
  watchOutsideSessions(): () => void;
  /** While a person has the held session: carry out this action now (override + Step). */
  actAsPerson(action: unknown): Promise<boolean>;
  /** The same for a click on the held screen: the element under the point (Shift: long press). */
  actAsPersonAt(p: { x: number; y: number }, kind?: 'click' | 'long_press'): Promise<boolean>;
  /** The same for the JSON in the override box. */
  actAsPersonJson(): Promise<boolean>;
}

const outside = (list: SessionInfo[]) => list.filter((s) => s.agent !== null);

export const createOutsideAgentsSlice = (api: WorkbenchApi): StateCreator<AppState, [], [], OutsideAgentsSlice> => (set, get) => {
  // The proposal the person last acted on: a second click before the session moves on must not override its next step.
  let actedOn: string | null = null;

  const watch = sharedWatch(() => {
    let lists = 0;
    const off = api.onSessions({}, (list) => {
      lists++;
      set({ outsideSessions: outside(list) });
    });
    // The list as it is now, unless a newer one came meanwhile.
    void get().attempt('List sessions', () => api.listSessions()).then((list) => {
      if (list && lists === 0) set({ outsideSessions: outside(list) });
    });
    return off;
  });

  const act = async (override: () => Promise<boolean>): Promise<boolean> => {
    const s = get().session;
    if (!s || s.state !== 'paused' || !s.proposal || get().sessionBusy) return false;
    const at = `${s.id}:${s.episodeId}:${s.proposal.index}`;
    if (actedOn === at) return false;
    set({ sessionBusy: true });
    try {
      if (!(await override())) return false;
      actedOn = at;
      const stepped = await get().attempt('Session step', () => api.controlSession({ sessionId: s.id, command: 'step' }));
      if (!stepped) actedOn = null;
      return !!stepped;
    } finally {
      set({ sessionBusy: false });
    }
  };

  return {
    outsideSessions: [],
    watchOutsideSessions: watch,
    actAsPerson: (action) => act(() => get().overrideWith(action)),
    actAsPersonAt: (p, kind = 'click') => act(() => get().overrideAt(p, kind)),
    actAsPersonJson: () => act(() => get().overrideJson()),
  };
};
