import type { JobPhase } from '../../../../core/api/types.js';
import { etaSeconds, formatEta, phaseEtaSeconds, progressUnit } from './health.js';

/** A phase counted in its own units (SFT's demonstrations, an adaptation's episodes): a bar, done / total, and an ETA at its pace. */
export function PhaseProgress({ phase, testId }: { phase: JobPhase; testId: string }) {
  const eta = phaseEtaSeconds(phase, Date.now());
  const frac = phase.total ? Math.min(1, phase.done / phase.total) : 0;
  return (
    <div className="row phase-progress" data-testid={testId} data-done={phase.done} data-total={phase.total ?? ''}>
      <span className="muted">{phase.name}</span>
      <progress max={1} value={frac} aria-label={phase.name} />
      <span className="mono">{phase.done}{phase.total !== null ? `/${phase.total}` : ''}</span>
      <span className="muted" data-testid={`${testId}-eta`} title="At this phase's pace so far">{eta === null ? 'ETA …' : `ETA ${formatEta(eta)}`}</span>
    </div>
  );
}
import { appStore, useApp } from '../../store/index.js';
import { activeJob, currentJob, isTrainingJob } from '../../store/slices/training.js';

/** The current (or last) job: state, progress, and pause / resume / stop. */
export function JobBar() {
  const job = useApp((s) => currentJob(s));
  const other = useApp((s) => {
    const a = activeJob(s);
    return a && !isTrainingJob(a) ? a : null;
  });
  const rows = useApp((s) => {
    const j = currentJob(s);
    return j?.runId != null ? s.runMetrics[j.runId] : undefined;
  });
  const busy = other ? (
    <div className="muted" data-testid="training-other-job">Adaptation {other.id} is {other.state}: one background job runs at a time.</div>
  ) : null;
  if (!job) return <div className="panel job-bar muted" data-testid="training-job">No training job yet: configure one and press Start.{busy}</div>;
  const st = appStore().getState();
  // A transformer SFT run's epochs run in the trainer process, which cannot be paused (stop works).
  const canPause = (job.state === 'running' || job.state === 'starting') && job.kind !== 'transformer-sft';
  const canResume = job.state === 'paused' || job.state === 'pausing' || (job.kind === 'grpo' && (job.state === 'stopped' || job.state === 'failed') && job.checkpoint !== null);
  const canStop = !['stopping', 'stopped', 'finished', 'failed'].includes(job.state);
  const unit = progressUnit(job.kind);
  const live = job.state === 'running' || job.state === 'starting';
  const eta = live && job.total !== null && rows ? etaSeconds(job.kind, rows, job.iteration, job.total) : null;
  return (
    <div className="panel job-bar" data-testid="training-job">
      <div className="row">
        <strong>{job.id}</strong>
        <span className="muted">{job.kind.toUpperCase()}{job.runId !== null ? ` · run ${job.runId}` : ''}</span>
        <span className={`job-state job-state-${job.state}`} data-testid="training-state" data-state={job.state}>{job.state}</span>
        <span data-testid="training-progress">
          {unit} {job.iteration}{job.total !== null ? ` / ${job.total}` : ''}
        </span>
        {eta !== null ? <span className="muted" data-testid="training-eta" title={`From the last ${unit}s' durations`}>ETA {formatEta(eta)}</span> : null}
        {job.detail ? <span className="muted">{job.detail}</span> : null}
        <span className="job-buttons">
          <button type="button" data-testid="training-pause" disabled={!canPause} onClick={() => void st.pauseTraining(job.id)}>Pause</button>
          <button type="button" data-testid="training-resume" disabled={!canResume} onClick={() => void st.resumeTraining({ jobId: job.id })}
            title={job.state === 'paused' || job.state === 'pausing' ? 'Continue' : 'Resume from its last checkpoint in a new job'}>Resume</button>
          <button type="button" data-testid="training-stop" disabled={!canStop} onClick={() => void st.stopTraining(job.id)}
            title="Stops after the current iteration and writes a checkpoint">Stop</button>
        </span>
      </div>
      {job.phase ? <PhaseProgress phase={job.phase} testId="training-phase" /> : null}
      {job.checkpoint ? (
        <div className="muted">Checkpoint: <span className="mono">{job.checkpoint.name}</span> ({unit} {job.checkpoint.iteration})</div>
      ) : null}
      {job.error ? <div className="settings-error" role="alert" data-testid="training-error">{job.error.name}: {job.error.message}</div> : null}
      {busy}
    </div>
  );
}
