import { useEffect } from 'react';
import type { DiffNode, Divergence, EpisodeExplanation, ScreenRefView, TreeDiff, Trajectory } from '../../../../core/api/types.js';
import { Screen } from '../../components/Screen.js';
import { useApp } from '../../store/index.js';
import { screenshotAt, treeAt } from '../../store/slices/trajectories-analysis.js';
import { ExplainRewards } from './ExplainRewards.js';
import { deviceSize } from './overlay.js';
import { useStoredPng } from './ReplayScreens.js';
import { wireframeOf } from './tree-model.js';

/**
 * Why a failed episode failed (docs/failure-analysis.md): its failure class with the rule's why,
 * and the first divergence from the successful paths — the step that left them and the reference's
 * step from the same screen, both next screens side by side, and the tree diff between them. A
 * click on the divergence moves the timeline to the step that left.
 */

/** How many nodes of each kind the diff lists before "… and N more". */
const DIFF_ROWS = 12;

const className = (c: string) => c.replace(/_/g, ' ');
const stepName = (r: ScreenRefView | null) => (!r ? '—' : r.final || r.step === null ? 'final screen' : `step ${r.step + 1}`);
const nodeText = (n: DiffNode) => `${n.text ? `"${n.text}"` : n.path}${n.state.length ? ` [${n.state.join(', ')}]` : ''}`;

function DiffList({ kind, items }: { kind: 'added' | 'removed' | 'changed'; items: string[] }) {
  if (!items.length) return null;
  const sign = kind === 'added' ? '+' : kind === 'removed' ? '−' : '~';
  return (
    <div className={`explain-diff-${kind}`} data-testid={`explain-diff-${kind}`}>
      <h4>{items.length} {kind}</h4>
      <ul>
        {items.slice(0, DIFF_ROWS).map((t, i) => <li key={i} className="mono"><span aria-hidden>{sign} </span>{t}</li>)}
        {items.length > DIFF_ROWS ? <li className="muted">… and {items.length - DIFF_ROWS} more</li> : null}
      </ul>
    </div>
  );
}

export function TreeDiffView({ diff }: { diff: TreeDiff | null }) {
  if (!diff) return <div className="muted" data-testid="explain-diff">No tree diff: a tree is missing on one side.</div>;
  const none = !diff.added.length && !diff.removed.length && !diff.changed.length;
  return (
    <div className="explain-diff" data-testid="explain-diff">
      {none ? <span className="muted">The two screens' trees are the same.</span> : null}
      <DiffList kind="added" items={diff.added.map(nodeText)} />
      <DiffList kind="removed" items={diff.removed.map(nodeText)} />
      <DiffList kind="changed" items={diff.changed.map((c) => `${c.path}: ${c.fields.map((f) => (f === 'text'
        ? `text "${c.before.text}" → "${c.after.text}"` : f)).join(', ')}`)} />
    </div>
  );
}

/** One side of the divergence: the action taken from the shared screen, and the screen it led to. */
function Side({ title, action, screen, t, testId }: { title: string; action: string | null; screen: ScreenRefView | null; t: Trajectory | undefined; testId: string }) {
  const hash = screenshotAt(t, screen);
  const { png, empty } = useStoredPng(hash);
  const treeHash = treeAt(t, screen);
  const tree = useApp((s) => (treeHash ? s.trees[treeHash] : undefined));
  const noShot = !screen ? 'It ended on that screen' : !t ? (screen.episodeId === null ? 'The oracle\'s run is not stored: no screenshot' : 'Loading the reference…') : empty;
  return (
    <figure className="replay-figure explain-side" data-testid={testId}>
      <figcaption>{title}: <span className="mono">{action ?? '—'}</span> <span className="muted">→ {stepName(screen)}</span></figcaption>
      <Screen testId={`${testId}-screen`} png={hash ? png : null} device={deviceSize(t ?? null, tree ?? null, png)} height={300} emptyText={hash ? empty : noShot}
        wireframe={tree ? wireframeOf(tree) : null} />
      {screen ? <div className="muted">{screen.package}{screen.activity ? ` · ${screen.activity.slice(screen.activity.lastIndexOf('.') + 1)}` : ''}</div> : null}
    </figure>
  );
}

function DivergenceView({ t, dv }: { t: Trajectory; dv: Divergence }) {
  const setStep = useApp((s) => s.setReplayStep);
  const refId = dv.referenceScreen?.episodeId ?? null;
  const refT = useApp((s) => (refId === null ? undefined : s.referenceTrajectories[refId]));
  const jump = dv.failedStep ?? 0;
  // A step a person chose (an override) is theirs, not the policy's.
  const who = dv.byPerson ? ', a person\'s override,' : '';
  const headline = dv.kind === 'start' ? 'Its first screen is on no successful path'
    : dv.kind === 'overran' ? `Step ${jump + 1}${who} acted on after reaching ${dv.reference}'s final screen`
      : `Step ${jump + 1}${who} left every successful path`;
  return (
    <div className="explain-divergence">
      <button className="link" onClick={() => void setStep(jump)} title="Show this step on the timeline" data-testid="explain-divergence">
        First divergence: {headline}
      </button>
      <div className="explain-sides">
        <Side title={dv.byPerson ? 'A person (override)' : 'This episode'} action={dv.failedAction} screen={dv.failedScreen} t={t} testId="explain-failed" />
        <Side title={dv.reference} action={dv.referenceAction} screen={dv.referenceScreen} t={refT} testId="explain-reference" />
      </div>
      <TreeDiffView diff={dv.diff} />
    </div>
  );
}

function Body({ t, x }: { t: Trajectory; x: EpisodeExplanation }) {
  const c = x.classification;
  const al = x.alignment;
  return (
    <>
      {c ? (
        <div className="explain-class" data-testid="explain-class" data-class={c.primary}>
          <strong>{className(c.primary)}</strong> — {c.labels[0]?.why}
          {c.labels.length > 1 ? (
            <span className="muted" data-testid="explain-other-classes"> · also {c.labels.slice(1).map((l) => className(l.class)).join(', ')}</span>
          ) : null}
        </div>
      ) : null}
      {al?.divergence ? <DivergenceView t={t} dv={al.divergence} />
        : al ? (
          <div className="muted" data-testid="explain-no-divergence">
            {al.references.length === 0 ? 'No successful path to align with.'
              : `It never left the successful paths${al.progress ? ` (got ${al.progress.position} of ${al.progress.of} screens along ${al.progress.reference})` : ''}: it stopped, answered or committed wrongly on them.`}
          </div>
        ) : null}
      {al?.references.length ? (
        <div className="muted explain-refs">Aligned with {al.references.map((r) => `${r.label} (${r.level}, ${r.steps} steps)`).join('; ')}</div>
      ) : null}
      {x.rewards ? <ExplainRewards r={x.rewards} /> : null}
      {x.notes.map((n, i) => <div key={i} className="muted explain-note">{n}</div>)}
    </>
  );
}

export function ExplainPanel({ t }: { t: Trajectory }) {
  const failed = t.episode.status === 'failure' || t.episode.status === 'error';
  const id = t.episode.id;
  const explain = useApp((s) => (s.explain?.episodeId === id ? s.explain : null));
  const load = useApp((s) => s.explainEpisode);
  useEffect(() => {
    if (failed) void load(id);
  }, [failed, id, load]);
  if (!failed) return null;
  return (
    <section className="replay-section replay-explain" data-testid="replay-explain" aria-label="Why the episode failed">
      <h3>Explain</h3>
      {explain?.explanation ? <Body t={t} x={explain.explanation} />
        : explain?.error ? <div className="replay-error" role="alert" data-testid="explain-error">Could not explain the episode — {explain.error}</div>
          : <span className="muted"><span className="spinner" aria-hidden /> Aligning with the successful paths…</span>}
    </section>
  );
}
