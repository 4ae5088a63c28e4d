import { useEffect } from 'react';
import { appStore } from '../../store/index.js';
import { ConfigPanel } from './ConfigPanel.js';
import { JobBar } from './JobBar.js';
import { MetricCharts } from './MetricCharts.js';
import { RunTables } from './RunTables.js';

/**
 * Training: configure and start a GRPO or SFT run (one job at a time, in a worker thread of the
 * workbench), pause / resume / stop it, watch its metrics live, and browse stored runs and checkpoints.
 */
export function TrainingView() {
  useEffect(() => appStore().getState().watchTraining(), []);
  useEffect(() => void appStore().getState().loadTraining(), []);
  return (
    <div className="training-view" data-testid="training-view">
      <ConfigPanel />
      <div className="training-main">
        <JobBar />
        <MetricCharts />
        <RunTables />
      </div>
    </div>
  );
}
