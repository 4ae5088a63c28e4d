import { useEffect } from 'react';
import { appStore } from '../../store/index.js';
import { ConfigPanel } from './ConfigPanel.js';
import { JobBar } from './JobBar.js';
import { MetricCharts } from './MetricCharts.js';
import { RunTables } from './RunTables.js';
import { EvaluatePanel } from './EvaluatePanel.js';

/**
 * Training: configure and start a GRPO or SFT run (one job at a time, in a worker thread of the
 * workbench), pause / resume / stop it, watch its metrics live, browse stored runs and checkpoints (use one as init, evaluate it, run it in Agent),
 * and Evaluate a policy (or a before and an after) on a split.
 */
export function TrainingView() {
  useEffect(() => appStore().getState().watchTraining(), []);
  useEffect(() => void appStore().getState().loadTraining(), []);
  useEffect(() => appStore().getState().watchEvaluations(), []);
  useEffect(() => void appStore().getState().loadEvaluations(), []);
  return (
    <div className="training-view" data-testid="training-view">
      <ConfigPanel />
      <div className="training-main">
        <JobBar />
        <MetricCharts />
        <RunTables />
        <EvaluatePanel />
      </div>
    </div>
  );
}
