import type { ReactNode } from 'react';
import type { Bounds, StoredStep, Trajectory } from '../../../../core/api/types.js';
import { AgentText } from './AgentText.js';
import { formatDuration } from './format.js';
import { percent } from '../agent/format.js';
import { indexBounds, summarizeAction } from './overlay.js';
import type { ParsedTree } from './tree-model.js';

/**
 * What happened at one step: the action (and whether a person chose it), the policy's thought, an
 * outside agent's prompt and model reply (collapsed), scored candidates, the rewards by kind,
 * errors and timings. At the end position: how it ended.
 */
interface Props {
  t: Trajectory;
  step: number;
  tree: ParsedTree | null;
  onHover(b: Bounds | null): void;
}

const compact = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

function Section(props: { title: string; testId: string; children: ReactNode; extra?: ReactNode }) {
  return (
    <section className="replay-section" data-testid={props.testId}>
      <h3>{props.title}{props.extra ? <span className="replay-section-extra">{props.extra}</span> : null}</h3>
      {props.children}
    </section>
  );
}

function Candidates({ s, tree, onHover }: { s: StoredStep; tree: ParsedTree | null; onHover(b: Bounds | null): void }) {
  const cands = s.candidates ?? [];
  if (!cands.length) return <Section title="Candidates" testId="replay-candidates"><div className="muted">The policy recorded no candidates.</div></Section>;
  // The policy's own probability, as the step recorded it (core/episode/confidence.ts): what the Agent view showed.
  const chosen = JSON.stringify(s.action ?? s.raw);
  const order = [...cands].sort((a, b) => b.probability - a.probability);
  return (
    <Section title="Candidates" testId="replay-candidates" extra={`${cands.length}`}>
      <table className="replay-table">
        <thead><tr><th>Action</th><th>Score</th><th>p</th></tr></thead>
        <tbody>
          {order.map((c, i) => (
            <tr key={i} className={JSON.stringify(c.action) === chosen ? 'replay-chosen' : undefined}
              onMouseEnter={() => onHover(indexBounds(c.action, tree))} onMouseLeave={() => onHover(null)}>
              <td title={compact(c.action)}>{summarizeAction(c.action, tree)}</td>
              <td className="mono">{c.score.toFixed(3)}</td>
              <td><span className="replay-bar" style={{ width: `${Math.round(c.probability * 60)}px` }} /> <span className="mono">{percent(c.probability)}</span></td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}

function Rewards({ s, t }: { s: StoredStep; t: Trajectory }) {
  const kinds = Object.entries(s.rewards);
  const unscored = Object.entries(s.unscored ?? {});
  // The return up to and including this step, per kind.
  const sofar: Record<string, number> = {};
  for (const x of t.steps.slice(0, s.index + 1)) for (const [k, r] of Object.entries(x.rewards)) sofar[k] = (sofar[k] ?? 0) + r.value;
  return (
    <Section title="Rewards" testId="replay-rewards">
      {kinds.length || unscored.length ? (
        <table className="replay-table">
          <thead><tr><th>Kind</th><th>Value</th><th>Return so far</th><th>Why</th></tr></thead>
          <tbody>
            {unscored.map(([k, why]) => (
              <tr key={k} data-testid={`replay-unscored-${k}`}>
                <td>{k}</td><td className="mono rewards-unscored">unscored</td><td className="mono">{sofar[k] ?? '—'}</td><td>{why}</td>
              </tr>
            ))}
            {kinds.map(([k, r]) => (
              <tr key={k}>
                <td>{k}</td>
                <td className={`mono ${r.value > 0 ? 'replay-pos' : r.value < 0 ? 'replay-neg' : ''}`}>{r.value}</td>
                <td className="mono">{sofar[k]}</td>
                <td>{r.explanation}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : <div className="muted">No rewards on this step{Object.keys(sofar).length ? '' : ' (the outcome reward is on the last step)'}.</div>}
    </Section>
  );
}

function StepView({ t, s, tree, onHover }: { t: Trajectory; s: StoredStep; tree: ParsedTree | null; onHover(b: Bounds | null): void }) {
  const tm = s.timings;
  return (
    <>
      <Section title="Action" testId="replay-action" extra={s.overridden ? <span className="replay-badge">chosen by a person</span> : null}>
        <div className="replay-action-line">{s.description ?? (s.action ? summarizeAction(s.action, tree) : 'No valid action')}</div>
        <code className="replay-json">{compact(s.action ?? s.raw)}</code>
        {!s.action ? <div className="muted">The policy's output did not parse as an action.</div> : null}
        {s.error ? <div className="replay-error" data-testid="replay-step-error">{s.error.name}: {s.error.message}</div> : null}
        <div className="muted replay-fg">In {s.foreground.package}{s.foreground.activity ? ` / ${s.foreground.activity}` : ''}</div>
      </Section>
      <Section title="Thought" testId="replay-thought">
        {s.thought ? <p className="replay-thought">{s.thought}</p> : <div className="muted">No thought recorded.</div>}
      </Section>
      {s.prompt !== undefined ? <AgentText title="Prompt" text={s.prompt} testId="replay-prompt" /> : null}
      {s.reply !== undefined ? <AgentText title="Model reply" text={s.reply} testId="replay-reply" /> : null}
      <Candidates s={s} tree={tree} onHover={onHover} />
      <Rewards s={s} t={t} />
      <Section title="Timings" testId="replay-timings">
        <div className="replay-timings mono">
          observe {formatDuration(tm.observeMs)} · policy {formatDuration(tm.policyMs)} · act {formatDuration(tm.actMs)} · settle {formatDuration(tm.settleMs)}
        </div>
      </Section>
    </>
  );
}

function EndView({ t }: { t: Trajectory }) {
  const e = t.episode;
  const total: Record<string, number> = {};
  for (const s of t.steps) for (const [k, r] of Object.entries(s.rewards)) total[k] = (total[k] ?? 0) + r.value;
  return (
    <>
      <Section title="End of episode" testId="replay-action">
        <div className="replay-action-line">
          <span className={`traj-status traj-status-${e.status}`}>{e.status}</span> after {t.steps.length} step{t.steps.length === 1 ? '' : 's'}
          {e.terminatedBy ? <> — ended by <b>{e.terminatedBy.replace(/_/g, ' ')}</b></> : null}
        </div>
        {e.answer !== null ? <div>Answer: <code className="mono">{e.answer}</code></div> : null}
        {e.error ? <div className="replay-error">{e.error.name}: {e.error.message}</div> : null}
      </Section>
      <Section title="Thought" testId="replay-thought"><div className="muted">—</div></Section>
      <Section title="Candidates" testId="replay-candidates"><div className="muted">—</div></Section>
      <Section title="Returns" testId="replay-rewards">
        {Object.keys(total).length
          ? <ul className="replay-list">{Object.entries(total).map(([k, v]) => <li key={k}>{k}: <span className="mono">{v}</span></li>)}</ul>
          : <div className="muted">No rewards recorded.</div>}
      </Section>
      {e.timings ? (
        <Section title="Timings" testId="replay-timings">
          <div className="replay-timings mono">reset {formatDuration(e.timings.resetMs)} · check {formatDuration(e.timings.checkMs)} · total {formatDuration(e.timings.totalMs)}</div>
        </Section>
      ) : null}
    </>
  );
}

export function StepDetails({ t, step, tree, onHover }: Props) {
  const s = t.steps[step];
  return <div className="replay-details">{s ? <StepView t={t} s={s} tree={tree} onHover={onHover} /> : <EndView t={t} />}</div>;
}
