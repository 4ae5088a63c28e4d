import type { KeyboardEvent } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useApp } from '../../store/index.js';
import { awaitingAgent } from '../../commands/session-run.js';
import { describeBreakpoint } from './breakpoints.js';
import { actionJson, percent } from './format.js';

/** One-click overrides for what a person driving by hand needs most (the manual policy proposes `wait`). */
const QUICK: ReadonlyArray<{ id: string; label: string; action: object }> = [
  { id: 'back', label: 'Back', action: { action_type: 'navigate_back' } },
  { id: 'home', label: 'Home', action: { action_type: 'navigate_home' } },
  { id: 'enter', label: 'Enter', action: { action_type: 'keyboard_enter' } },
  { id: 'scroll-down', label: 'Scroll ↓', action: { action_type: 'scroll', direction: 'down' } },
  { id: 'scroll-up', label: 'Scroll ↑', action: { action_type: 'scroll', direction: 'up' } },
  { id: 'complete', label: 'Complete', action: { action_type: 'status', goal_status: 'complete' } },
];

/**
 * The held proposal: thought, action, errors, candidates (click = override), and the override box. While a person has
 * an outside agent's session (taken over), a candidate, a quick action or the box's action is carried out at once.
 */
export function ProposalPanel() {
  const session = useApp((s) => s.session);
  const overrideText = useApp((s) => s.overrideText);
  const overrideError = useApp((s) => s.overrideError);
  const act = useApp(useShallow((s) => ({
    setText: s.setOverrideText, overrideJson: s.overrideJson, overrideWith: s.overrideWith, actAsPerson: s.actAsPerson, actAsPersonJson: s.actAsPersonJson,
  })));

  const proposal = session?.proposal ?? null;
  const pending = session?.pendingOverride ?? null;
  const handedBack = useApp(awaitingAgent);
  // (Handed back, the held proposal is the person's placeholder, which the agent's next action replaces.)
  const canOverride = !!session && session.state !== 'finished' && !handedBack;
  const person = session?.state === 'paused' && !!session.agent?.takenOver;
  const choose = person ? act.actAsPerson : act.overrideWith;
  const apply = person ? act.actAsPersonJson : act.overrideJson;
  const hits = session ? session.breakpoints.filter((b) => session.hitBreakpoints.includes(b.id)) : [];
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void apply();
    }
  };

  return (
    <section className="panel agent-proposal" aria-label="Proposal">
      <h3>
        {proposal ? `Proposal for step ${proposal.index + 1}` : 'Proposal'}
        {proposal ? <span className="muted agent-fg"> in {proposal.foreground.package || 'no app'}</span> : null}
      </h3>
      {hits.length ? (
        <div className="agent-hit" data-testid="breakpoint-hit" role="status">
          Stopped at breakpoint{hits.length > 1 ? 's' : ''}: {hits.map((b) => describeBreakpoint(b.spec)).join(', ')}
        </div>
      ) : null}
      {proposal?.handover && !handedBack ? (
        <div className="agent-hit" data-testid="proposal-handover" role="status">
          {person
            ? 'Your turn: each action you choose (click the screen or below) is carried out at once; Hand back returns the session to the agent.'
            : `Your turn: ${proposal.handover}. Choose an action (click the screen or below), then Step.`}
        </div>
      ) : null}
      <div className="agent-field">
        <div className="agent-label">Thought</div>
        <div data-testid="proposal-thought" className={proposal?.thought ? '' : 'muted'}>{proposal ? proposal.thought ?? '(the policy gave none)' : '—'}</div>
      </div>
      <div className="agent-field">
        <div className="agent-label">Action</div>
        <div data-testid="proposal-action">
          {proposal ? (
            <>
              <div className="agent-action-desc">{proposal.description ?? <span className="muted">(cannot be carried out on this screen)</span>}</div>
              <code className="mono agent-json">{actionJson(proposal.action)}</code>
            </>
          ) : <span className="muted">{session?.state === 'running' ? 'Running…' : '—'}</span>}
        </div>
        {proposal?.error ? <div className="agent-error" data-testid="proposal-error">{proposal.error.name}: {proposal.error.message}</div> : null}
      </div>
      {pending ? (
        <div className="agent-pending" data-testid="override-pending">
          <strong>Next step uses your override:</strong> {pending.description ?? ''} <code className="mono">{actionJson(pending.action)}</code>
        </div>
      ) : null}
      {proposal && proposal.candidates.length ? (
        <table className="agent-candidates">
          <thead><tr><th>#</th><th>Candidate (click to override)</th><th>Score</th><th>P</th></tr></thead>
          <tbody>
            {proposal.candidates.map((c, i) => (
              <tr
                key={i}
                data-testid={`candidate-${i}`}
                className={canOverride ? 'agent-candidate clickable' : 'agent-candidate'}
                title={actionJson(c.action)}
                onClick={canOverride ? () => void choose(c.action) : undefined}
              >
                <td>{i + 1}</td>
                <td>{c.description ?? <code className="mono">{actionJson(c.action)}</code>}</td>
                <td className="mono">{c.score.toFixed(2)}</td>
                <td><span className="agent-prob" style={{ width: `${Math.round(c.probability * 60)}px` }} /> {percent(c.probability)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : proposal ? <div className="muted agent-field">No candidates from this policy.</div> : null}
      <div className="agent-field">
        <div className="agent-label">{person ? 'Act in the agent\'s place' : 'Override the next step'}</div>
        <div className="agent-quick">
          {QUICK.map((q) => (
            <button key={q.label} data-testid={`quick-${q.id}`} disabled={!canOverride} title={actionJson(q.action)} onClick={() => void choose(q.action)}>{q.label}</button>
          ))}
        </div>
        <textarea
          data-testid="override-json"
          className="mono agent-override"
          rows={2}
          placeholder='{"action_type":"input_text","text":"hi","index":3}'
          value={overrideText}
          onChange={(e) => act.setText(e.target.value)}
          onKeyDown={onKey}
          aria-invalid={!!overrideError}
        />
        <div className="row">
          <button data-testid="override-apply" disabled={!canOverride} onClick={() => void apply()} title={person ? 'Carry it out now (Ctrl+Enter)' : 'Override (Ctrl+Enter)'}>
            {person ? 'Do it' : 'Override'}
          </button>
          {overrideError ? <span className="agent-error" role="alert" data-testid="override-error">{overrideError}</span> : null}
        </div>
      </div>
    </section>
  );
}
