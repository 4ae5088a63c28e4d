import { useEffect, useRef } from 'react';
import { useApp } from '../../store/index.js';
import { formatCount } from './format.js';
import { EpisodeFilters } from './EpisodeFilters.js';
import { EpisodeTable, TableSummary } from './EpisodeTable.js';
import { FailuresPanel } from './FailuresPanel.js';
import { ReplayView } from './ReplayView.js';

function ExportControls() {
  const selection = useApp((s) => s.episodeSelection.length);
  const total = useApp((s) => s.episodeTotal);
  const exporting = useApp((s) => s.exporting);
  const last = useApp((s) => s.lastExport);
  const exportEpisodes = useApp((s) => s.exportEpisodes);
  const clear = useApp((s) => s.clearEpisodeSelection);
  const label = selection ? `Export ${formatCount(selection)} selected` : `Export ${total === null ? '' : `${formatCount(total)} `}filtered`;
  return (
    <>
      {selection ? <button className="link" onClick={clear} data-testid="selection-clear">Clear selection</button> : null}
      <button
        onClick={() => void exportEpisodes(selection ? 'selection' : 'filter')}
        disabled={exporting || (!selection && !total)}
        title="Write the episodes (AWB's JSONL format with PNG screenshots) under the data folder's exports/"
        data-testid="export-episodes"
      >
        {exporting ? <><span className="spinner" aria-hidden /> Exporting…</> : label}
      </button>
      {last ? (
        <span className="traj-export-result" data-testid="export-result">
          Wrote {formatCount(last.episodes)} episodes ({formatCount(last.steps)} steps) to <code className="mono">{last.path}</code>
        </span>
      ) : null}
    </>
  );
}

/**
 * Trajectories: the filtered episode table, and the replay viewer over it when an episode is open.
 * The table stays mounted (hidden) under the viewer, so going back keeps its scroll position.
 */
export function TrajectoriesView() {
  const replayOpen = useApp((s) => s.replay !== null);
  const refresh = useApp((s) => s.refreshEpisodes);
  // Back from an episode (Esc, ← Episodes): the keys go to the table again, on the row that opened it.
  const wasOpen = useRef(replayOpen);
  useEffect(() => {
    if (wasOpen.current && !replayOpen) document.querySelector<HTMLElement>('[data-testid="episode-table"]')?.focus();
    wasOpen.current = replayOpen;
  }, [replayOpen]);
  // Episodes may have been recorded since the view was last shown.
  useEffect(() => {
    void refresh();
  }, [refresh]);
  return (
    <div className="traj-view" data-testid="trajectories-view">
      <div className="traj-browse" hidden={replayOpen}>
        <div className="traj-toolbar">
          <h2 className="traj-title">Trajectories</h2>
          <TableSummary />
          <button onClick={() => void refresh()} title="Reload the episode list" data-testid="episodes-refresh">Refresh</button>
          <span className="traj-spacer-x" />
          <ExportControls />
        </div>
        <EpisodeFilters />
        <FailuresPanel />
        <EpisodeTable />
        <div className="muted traj-hint">↑/↓ move · Enter open · Space select · click a row to replay it</div>
      </div>
      {replayOpen ? <ReplayView /> : null}
    </div>
  );
}
