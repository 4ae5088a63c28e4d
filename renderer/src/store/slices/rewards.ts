import type { StateCreator } from 'zustand';
import type { EpisodeRewardsView, WorkbenchApi } from '../../../../core/api/api.js';
import type { RewardKind } from '../../../../core/rewards/component.js';
import type { RewardConfig } from '../../../../core/rewards/compose.js';
import type { AppState } from '../index.js';

/**
 * The replay viewer's Rewards panel: the open episode's stored rewards (unscored steps with their
 * reason), and a recomputation of the components the user ticks, with each component's details.
 */

/** The components the panel offers, in display order (the closed set of RewardKind). */
export const PANEL_KINDS: readonly RewardKind[] = ['outcome', 'format', 'shortest-path', 'admire', 'progrm', 'shepherd'];

/** The few options the panel asks for; everything else is the components' defaults (the papers'). */
export interface RewardPanelOptions {
  /** ProgRM's model, a path under the data folder; empty: the component's default. */
  progrmCheckpoint: string;
  /** GUI-Shepherd's builtin judge, a path under the data folder; empty: <data folder>/shepherd/judge.json. */
  shepherdCheckpoint: string;
}

export interface RewardsPanelState {
  episodeId: number;
  /** Null until the stored rewards arrive (or when they could not be loaded: see error). */
  view: EpisodeRewardsView | null;
  computing: boolean;
  /** Why the last load or computation failed: `name: message`, the message listing every config problem. */
  error: string | null;
}

export interface RewardsSlice {
  rewardsPanel: RewardsPanelState | null;
  rewardChoice: Record<RewardKind, boolean>;
  rewardOptions: RewardPanelOptions;
  /** Loads an episode's stored rewards (a recomputation of another episode is dropped). */
  loadEpisodeRewards(episodeId: number): Promise<void>;
  toggleRewardKind(kind: RewardKind, on: boolean): void;
  setRewardOption<K extends keyof RewardPanelOptions>(key: K, value: RewardPanelOptions[K]): void;
  /** Recomputes the ticked components on the open episode (and stores them with `write`). */
  computeEpisodeRewards(opts?: { write?: boolean }): Promise<EpisodeRewardsView | undefined>;
}

export class NoRewardKindError extends Error {
  override name = 'NoRewardKindError';
  constructor() {
    super('Tick at least one reward component to compute');
  }
}

/** The config the panel sends: every ticked component with weight 1, in panel order. */
export function configFromChoice(choice: Record<RewardKind, boolean>, options: RewardPanelOptions): RewardConfig {
  const components = PANEL_KINDS.filter((k) => choice[k]).map((kind): RewardConfig['components'][number] => {
    const progrm = options.progrmCheckpoint.trim();
    const judge = options.shepherdCheckpoint.trim();
    if (kind === 'progrm' && progrm) return { kind, weight: 1, options: { checkpoint: progrm } };
    if (kind === 'shepherd' && judge) return { kind, weight: 1, options: { judge: { kind: 'builtin', checkpoint: judge } } };
    return { kind, weight: 1 };
  });
  if (!components.length) throw new NoRewardKindError();
  return { components };
}

const describe = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

export const createRewardsSlice = (api: WorkbenchApi): StateCreator<AppState, [], [], RewardsSlice> => (set, get) => {
  const current = (id: number) => get().rewardsPanel?.episodeId === id;
  return {
    rewardsPanel: null,
    rewardChoice: { outcome: true, format: true, 'shortest-path': true, admire: false, progrm: false, shepherd: false },
    rewardOptions: { progrmCheckpoint: '', shepherdCheckpoint: '' },

    loadEpisodeRewards: async (episodeId) => {
      set({ rewardsPanel: { episodeId, view: null, computing: false, error: null } });
      try {
        const view = await api.getEpisodeRewards({ episodeId });
        if (current(episodeId)) set((s) => ({ rewardsPanel: { ...s.rewardsPanel!, view } }));
      } catch (e) {
        if (current(episodeId)) set((s) => ({ rewardsPanel: { ...s.rewardsPanel!, error: describe(e) } }));
      }
    },
    toggleRewardKind: (kind, on) => set((s) => ({ rewardChoice: { ...s.rewardChoice, [kind]: on } })),
    setRewardOption: (key, value) => set((s) => ({ rewardOptions: { ...s.rewardOptions, [key]: value } })),

    computeEpisodeRewards: async (opts = {}) => {
      const panel = get().rewardsPanel;
      if (!panel || panel.computing) return undefined;
      const id = panel.episodeId;
      set({ rewardsPanel: { ...panel, computing: true, error: null } });
      let view: EpisodeRewardsView | undefined;
      let error: string | null = null;
      try {
        const config = configFromChoice(get().rewardChoice, get().rewardOptions);
        view = await api.getEpisodeRewards({ episodeId: id, config, ...(opts.write ? { write: true } : {}) });
      } catch (e) {
        error = describe(e);
      }
      // Stored values changed: the replay viewer's own copy (step details, timeline markers) follows.
      if (view?.written) await get().refreshTrajectory(id);
      if (!current(id)) return undefined;
      set((s) => ({ rewardsPanel: { ...s.rewardsPanel!, computing: false, error, ...(view ? { view } : {}) } }));
      return view;
    },
  };
};
