import { useEffect } from 'react';
import { appStore } from '../../store/index.js';
import { JobDetail } from './JobDetail.js';
import { JobsTable } from './JobsTable.js';
import { OnlineGrpoForm } from './OnlineGrpoForm.js';
import { SubmitForm } from './SubmitForm.js';
import { TrainersPanel } from './TrainersPanel.js';

/**
 * Jobs: training on remote trainer services (docs/jobs.md). Trainer profiles, a submit form for
 * the builtin policy's SFT / GRPO jobs, online GRPO (rollouts here, updates there, N times), the
 * store's remote jobs, and the selected job's live log tail and metric charts, with cancel,
 * download and register.
 */
export function JobsView() {
  useEffect(() => appStore().getState().watchJobs(), []);
  useEffect(() => void appStore().getState().loadJobs(), []);
  return (
    <div className="training-view" data-testid="jobs-view">
      <div className="training-main">
        <TrainersPanel />
        <SubmitForm />
        <OnlineGrpoForm />
      </div>
      <div className="training-main">
        <JobsTable />
        <JobDetail />
      </div>
    </div>
  );
}
