import { useEffect, useRef } from 'react';
import { appStore, useApp } from '../../store/index.js';
import { isRemoteJobActive, metricNames } from '../../store/slices/jobs.js';
import { MetricChart } from '../training/MetricChart.js';
import { formatClock } from '../../time-format.js';

/** The shown job: status and actions, its metric charts (the Training view's charts) and a live log tail. */
export function JobDetail() {
  const id = useApp((s) => s.shownRemoteJob);
  const job = useApp((s) => s.remoteJobs.find((j) => j.id === s.shownRemoteJob) ?? null);
  const stream = useApp((s) => (s.shownRemoteJob === null ? undefined : s.jobStreams[s.shownRemoteJob]));
  const logMetrics = useApp((s) => s.chartLogMetrics);
  const tail = useRef<HTMLPreElement>(null);
  useEffect(() => {
    if (tail.current) tail.current.scrollTop = tail.current.scrollHeight;
  }, [stream?.logs.length]);
  if (id === null || !job) return <div className="panel muted">Select a job to see its log and metrics.</div>;
  const st = appStore().getState();
  const rewardModel = job.kind === 'progrm' || job.kind === 'prm';
  const downloaded = job.artifacts.some((a) => a.name === (rewardModel ? 'model.json' : 'policy.json'));
  return (
    <div className="panel" data-testid="job-detail">
      <h3>Job {job.id} · {job.trainer} {job.remoteId ?? ''} · {job.kind} · <span data-testid="job-status">{job.status}</span></h3>
      {job.error ? <div className="error">{job.error.code}: {job.error.message}</div> : null}
      <div className="row">
        <button type="button" disabled={!isRemoteJobActive(job) || !job.remoteId} onClick={() => void st.cancelRemoteJob(job.id)}>Cancel</button>
        <button type="button" disabled={job.status !== 'succeeded'} onClick={() => void st.downloadRemoteArtifacts(job.id)}>Download artifacts</button>
        <button type="button" disabled={!downloaded} onClick={() => void st.registerRemotePolicy(job.id)}>{rewardModel ? 'Register reward model' : 'Register policy'}</button>
        {job.policyPath ? <span className="mono" title={rewardModel ? 'a reward config\'s checkpoint (docs/jobs.md "Reward models")' : `awb eval --policy ${job.policyPath}`}>{job.policyPath}</span> : null}
      </div>
      {job.artifacts.length ? <div className="muted">Downloaded: {job.artifacts.map((a) => `${a.name} (${a.size} bytes)`).join(', ')}</div> : null}
      <div className="chart-grid" data-testid="job-charts">
        {metricNames(stream).map((m) => (
          <MetricChart key={m} metric={m} label={m} rows={stream!.metrics} log={logMetrics.includes(m)} onToggleLog={() => st.toggleChartLog(m)} />
        ))}
      </div>
      <pre ref={tail} className="mono" data-testid="job-log" style={{ maxHeight: 260, overflow: 'auto', margin: 0 }}>
        {(stream?.logs ?? []).map((l) => `${formatClock(l.time)} [${l.level}] ${l.message}`).join('\n')}
      </pre>
    </div>
  );
}
