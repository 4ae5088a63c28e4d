import { useEffect } from 'react';
import { appStore } from '../../store/index.js';
import { AdaptersTable } from './AdaptersTable.js';
import { AdaptForm } from './AdaptForm.js';
import { AdaptJob } from './AdaptJob.js';
import { AdaptResult } from './AdaptResult.js';

/**
 * Adaptation: pick an app (the held-out ones first) and a base checkpoint, run before → adapt → after
 * as one background job, watch each phase, and see the before / after bars; below, the stored
 * per-app adapters.
 */
export function AdaptationView() {
  // Both watches: onTraining keeps every job's state (one background job of any kind at a time).
  useEffect(() => appStore().getState().watchTraining(), []);
  useEffect(() => appStore().getState().watchAdaptation(), []);
  useEffect(() => void appStore().getState().loadAdaptation(), []);
  return (
    <div className="training-view" data-testid="adaptation-view">
      <AdaptForm />
      <div className="training-main">
        <AdaptJob />
        <AdaptResult />
        <AdaptersTable />
      </div>
    </div>
  );
}
