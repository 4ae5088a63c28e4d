import { useEffect, useState } from 'react';
import type { SessionPolicy, Trajectory } from '../../../../core/api/types.js';
import { useApp } from '../../store/index.js';

/**
 * "Replay on device from step k": restore the task's start state on a device, re-execute the first
 * k recorded steps, then hand over to a policy or to the user in the Agent view. k is what the box
 * shows: it starts at the step the episode was opened at and changes only when edited or set from
 * the timeline on purpose, so moving the slider never changes what Replay does behind one's back.
 */
export function ReplayOnDevice({ t, step }: { t: Trajectory; step: number }) {
  const policies = useApp((s) => s.sessionPolicies);
  const loadPolicies = useApp((s) => s.loadSessionPolicies);
  const starting = useApp((s) => s.replayStarting);
  const start = useApp((s) => s.replayOnDevice);
  const serial = useApp((s) => s.selectedSerial);
  const [k, setK] = useState(String(step));
  const [then, setThen] = useState<SessionPolicy | ''>('');
  useEffect(() => void loadPolicies(), [loadPolicies]);
  const max = t.steps.length;
  const n = Number(k);
  const problem = k.trim() === '' || !Number.isInteger(n) ? 'Enter a whole number of steps'
    : n < 0 || n > max ? `Choose 0 to ${max} steps` : null;
  // The episode's own policy when a session can run it, else the user takes over.
  const fallback: SessionPolicy = policies?.some((p) => p.name === t.episode.policy) ? (t.episode.policy as SessionPolicy) : 'manual';
  const chosen = then || fallback;
  return (
    <div className="replay-on-device" role="group" aria-label="Replay on device">
      <label className="traj-filter">
        <span>Re-execute the first</span>
        <input type="number" min={0} max={max} step={1} value={k} onChange={(e) => setK(e.target.value)}
          className={problem ? 'invalid' : undefined} aria-invalid={problem !== null} style={{ width: 64 }} data-testid="replay-steps-input" />
        <span>{n === 1 ? 'step' : 'steps'}, then</span>
      </label>
      {String(step) !== k ? (
        <button onClick={() => setK(String(step))} data-testid="replay-steps-from-timeline" title="Re-execute the steps before the one the timeline shows">
          Use step {step}
        </button>
      ) : null}
      <select value={chosen} onChange={(e) => setThen(e.target.value as SessionPolicy)} data-testid="replay-then-select"
        title="Who acts after the replayed steps">
        {(policies ?? [{ name: 'manual' as const, description: '' }]).map((p) => (
          <option key={p.name} value={p.name} title={p.description}>{p.name === 'manual' ? 'I take over (manual)' : `the ${p.name} agent`}</option>
        ))}
      </select>
      <button
        className="primary"
        disabled={starting || problem !== null}
        onClick={() => void start({ steps: n, then: chosen })}
        title={`Start a step-through session on ${serial ?? 'the first online device'}: reset the task (seed ${t.instance.seed}), replay ${problem ? 'k' : n} steps, then hold for ${chosen}`}
        data-testid="replay-on-device"
      >
        {starting ? <><span className="spinner" aria-hidden /> Starting…</> : problem ? 'Replay on device' : `Replay ${n} step${n === 1 ? '' : 's'} on device`}
      </button>
      {problem ? <span className="traj-problem" role="alert" data-testid="replay-steps-error">{problem}</span> : null}
    </div>
  );
}
