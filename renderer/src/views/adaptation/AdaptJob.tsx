import type { JobInfo } from '../../../../core/api/types.js';
import { appStore, useApp } from '../../store/index.js';
import { emptyRun, type AdaptRun, type PhaseTally } from '../../store/slices/adaptation-model.js';
import { adaptJobs, shownAdaptJob } from '../../store/slices/adaptation.js';
import { MetricChart } from '../training/MetricChart.js';
import { PhaseProgress } from '../training/JobBar.js';

const ENDED = ['stopped', 'finished', 'failed'];
const jobLabel = (j: JobInfo) => `${j.id} · ${String(j.config.app ?? '?')} · ${String(j.config.method ?? '?')} · ${j.state}`;

/** The shown adaptation: its state and Stop, then each phase as it goes (with small live charts of SFT and GRPO). */
export function AdaptJob() {
  const job = useApp((s) => shownAdaptJob(s));
  const jobs = useApp((s) => s.trainingJobs);
  const run = useApp((s) => (job ? s.adaptRuns[job.id] : undefined)) ?? emptyRun();
  if (!job) return <div className="panel job-bar muted" data-testid="adapt-job">No adaptation yet: choose an app and a base checkpoint, then Run.</div>;
  const st = appStore().getState();
  const list = adaptJobs({ trainingJobs: jobs });
  return (
    <div className="panel job-bar" data-testid="adapt-job">
      <div className="row">
        {list.length > 1 ? (
          <select value={job.id} onChange={(e) => void st.showAdaptation(e.target.value)} data-testid="adapt-job-select">
            {list.map((j) => <option key={j.id} value={j.id}>{jobLabel(j)}</option>)}
          </select>
        ) : <strong>{job.id}</strong>}
        <span className="muted">{String(job.config.app ?? '')} · {String(job.config.method ?? '')} · {String(job.config.shots ?? '?')} shots</span>
        <span className={`job-state job-state-${job.state}`} data-testid="adapt-state" data-state={job.state}>{job.state}</span>
        {job.detail ? <span className="muted" data-testid="adapt-detail">{job.detail}</span> : null}
        <span className="job-buttons">
          {job.runId !== null ? (
            <button type="button" className="link" data-testid="adapt-episodes" onClick={() => void st.browseRun(job.runId!)}
              title="Its episodes in Trajectories: before, the demonstrations or GRPO rollouts on the shots (by iteration), after">Episodes (run {job.runId})</button>
          ) : null}
          <button type="button" data-testid="adapt-stop" disabled={ENDED.includes(job.state) || job.state === 'stopping'} onClick={() => void st.stopAdaptation(job.id)}
            title="Stops at the next episode, epoch or iteration; an adapter whose training started is saved">Stop</button>
        </span>
      </div>
      {job.phase && !ENDED.includes(job.state) ? <PhaseProgress phase={job.phase} testId="adapt-phase-progress" /> : null}
      <Phases run={run} job={job} />
      {job.error ? <div className="settings-error" role="alert" data-testid="adapt-error">{job.error.name}: {job.error.message}</div> : null}
    </div>
  );
}

const tally = (t: PhaseTally | null) => (t ? `${t.done}/${t.total} episodes, ${t.successes} solved` : 'waiting');

function Phases({ run, job }: { run: AdaptRun; job: JobInfo }) {
  const method = String(job.config.method ?? '');
  const sft = method === 'sft' || method === 'sft+grpo';
  const grpo = method === 'grpo' || method === 'sft+grpo';
  const at = (phase: AdaptRun['phase']) => (run.phase === phase && !ENDED.includes(job.state) ? 'adapt-phase current' : 'adapt-phase');
  return (
    <div className="adapt-phases">
      <div className={at('before')} data-testid="adapt-phase-before"><strong>1 · Before</strong> <span>base policy: {tally(run.before)}</span></div>
      {sft ? (
        <div className={at('demonstrations')} data-testid="adapt-phase-demos">
          <strong>2 · Demonstrations</strong>{' '}
          <span>{run.demonstrations
            ? `${run.demonstrations.steps} steps from ${run.demonstrations.episodes} ${run.demonstrations.source === 'oracle' ? 'oracle' : 'recorded'} episodes, ${run.demonstrations.appSteps} on the app`
            : run.demonstrating ? `oracle episode ${run.demonstrating.done + 1}/${run.demonstrating.total}` : 'waiting'}</span>
        </div>
      ) : null}
      {sft ? (
        <div className={at('sft')} data-testid="adapt-phase-sft">
          <strong>{grpo ? '3a' : '3'} · SFT</strong> <span>epoch {run.sft.at(-1)?.iteration ?? 0}/{run.sftEpochs ?? String(job.config.epochs ?? '?')}</span>
          {run.sft.length ? (
            <div className="chart-grid adapt-charts">
              <MetricChart metric="loss/nll" label="NLL of the demonstrated action" rows={run.sft} />
              <MetricChart metric="acc/top1" label="Top-1 accuracy" rows={run.sft} />
            </div>
          ) : null}
        </div>
      ) : null}
      {grpo ? (
        <div className={at('grpo')} data-testid="adapt-phase-grpo">
          <strong>{sft ? '3b' : '3'} · GRPO</strong> <span>iteration {run.grpo.at(-1)?.iteration ?? 0}/{run.grpoIterations ?? String(job.config.iterations ?? '?')}</span>
          {run.grpo.length ? (
            <div className="chart-grid adapt-charts">
              <MetricChart metric="success/rate" label="Rollout success rate" rows={run.grpo} />
              <MetricChart metric="reward/mean" label="Mean reward" rows={run.grpo} />
            </div>
          ) : null}
        </div>
      ) : null}
      <div className={at('after')} data-testid="adapt-phase-after"><strong>4 · After</strong> <span>adapted policy: {tally(run.after)}</span></div>
      {run.saved ? <div className="muted adapt-note" data-testid="adapt-saved">Adapter saved: <span className="mono">{run.saved}</span></div> : null}
    </div>
  );
}
