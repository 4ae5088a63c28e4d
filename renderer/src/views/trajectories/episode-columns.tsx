import type { ReactNode } from 'react';
import type { EpisodeSortKey, EpisodeSummary } from '../../../../core/api/types.js';
import { formatDuration, formatScore, formatTime } from './format.js';

/**
 * The episode table's columns: each a fixed width (the task's takes what is left), a sort key, and a cell whose text
 * is cut with an ellipsis and given whole in its tooltip. A training run's rollouts add their iteration, group,
 * reward and advantage. At 1280 px (a 1108 px pane) every column fits without a horizontal scrollbar.
 */
export interface EpisodeColumn {
  id: string;
  label: string;
  /** A CSS grid track. */
  width: string;
  sort?: EpisodeSortKey;
  /** Right-aligned numbers. */
  numeric?: boolean;
  /** The full text (the cell's tooltip) and what the cell shows. */
  cell(ep: EpisodeSummary): { title: string; content: ReactNode };
}

const text = (t: string, content: ReactNode = t) => ({ title: t, content });

const BASE: EpisodeColumn[] = [
  { id: 'id', label: 'ID', width: '56px', sort: 'id', numeric: true, cell: (e) => text(String(e.id)) },
  { id: 'task', label: 'Task', width: 'minmax(96px, 1fr)', sort: 'template', cell: (e) => text(e.templateId) },
  { id: 'app', label: 'App', width: '92px', sort: 'app', cell: (e) => text(e.app ?? '—') },
  // A 9-digit seed whole: mono 12 px is 7.2 px a digit.
  { id: 'seed', label: 'Seed', width: '80px', sort: 'seed', numeric: true, cell: (e) => text(String(e.seed)) },
  { id: 'policy', label: 'Policy', width: '104px', sort: 'policy', cell: (e) => text(e.policy) },
  {
    id: 'status', label: 'Status', width: '150px', sort: 'status',
    cell: (e) => ({
      title: [e.status, e.overriddenSteps > 0 ? `a person chose ${e.overriddenSteps} of its actions` : '', e.reason ?? ''].filter(Boolean).join(' — '),
      content: (
        <>
          <span className={`traj-status traj-status-${e.status}`}>{e.status}</span>
          {e.overriddenSteps > 0 ? (
            <span className="replay-badge" data-testid={`episode-overridden-${e.id}`} title={`A person chose ${e.overriddenSteps} of its actions instead of the policy`}>
              overridden
            </span>
          ) : null}
          {e.reason ? <span className="traj-reason" data-testid={`episode-reason-${e.id}`}>{e.reason}</span> : null}
        </>
      ),
    }),
  },
  { id: 'steps', label: 'Steps', width: '44px', sort: 'steps', numeric: true, cell: (e) => text(String(e.steps)) },
  { id: 'started', label: 'Started', width: '136px', sort: 'started', cell: (e) => text(formatTime(e.startedAt)) },
  { id: 'duration', label: 'Duration', width: '68px', sort: 'duration', numeric: true, cell: (e) => text(formatDuration(e.durationMs)) },
];

const rollout = (e: EpisodeSummary) => e.rollout;
const ROLLOUT: EpisodeColumn[] = [
  { id: 'iteration', label: 'It.', width: '36px', sort: 'iteration', numeric: true, cell: (e) => text(rollout(e) ? String(rollout(e)!.iteration) : '—') },
  {
    id: 'group', label: 'Group', width: '50px', sort: 'group', numeric: true,
    cell: (e) => {
      const r = rollout(e);
      return r ? text(`group ${r.group}, rollout ${r.index}`, `g${r.group}/${r.index}`) : text('—');
    },
  },
  { id: 'reward', label: 'Reward', width: '56px', sort: 'reward', numeric: true, cell: (e) => text(rollout(e) ? formatScore(rollout(e)!.reward) : '—') },
  { id: 'advantage', label: 'Adv.', width: '56px', sort: 'advantage', numeric: true, cell: (e) => text(rollout(e) ? formatScore(rollout(e)!.advantage) : '—') },
];

/** The columns after the selection checkbox; a run's rollouts add theirs after the status. */
export function episodeColumns(rollouts: boolean): EpisodeColumn[] {
  if (!rollouts) return BASE;
  const at = BASE.findIndex((c) => c.id === 'status') + 1;
  // Narrower elsewhere so the rollout columns fit in the same width.
  const narrower: Record<string, string> = { status: '118px', policy: '92px', app: '84px' };
  return [...BASE.slice(0, at), ...ROLLOUT, ...BASE.slice(at)].map((c) => (narrower[c.id] ? { ...c, width: narrower[c.id]! } : c));
}

/** The grid's tracks: the checkbox, then the columns. */
export function gridTemplate(columns: readonly EpisodeColumn[]): string {
  return ['24px', ...columns.map((c) => c.width)].join(' ');
}
