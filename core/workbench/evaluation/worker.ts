import { parentPort, workerData } from 'node:worker_threads';
import { evalTemplates, runEvaluation } from '../../rl/eval-run.js';
import { openStore } from '../../store/index.js';
import type { EvaluationWorkerData, FromEvaluationWorker } from './protocol.js';

/**
 * The evaluation worker (one per evaluation, started by jobs.ts): each policy in turn through
 * runEvaluation (the code `awb eval` runs) on one SimDroid, writing episodes through its own store
 * connection, posting each episode and each policy's report; a stop is read between episodes.
 */
const data = workerData as EvaluationWorkerData;
const ctrl = new Int32Array(data.control);
const post = (m: FromEvaluationWorker) => parentPort!.postMessage(m);

async function main(): Promise<void> {
  const db = openStore(data.dbPath);
  try {
    const templates = evalTemplates(data.splits, data.part, data.limit);
    const ac = new AbortController();
    for (const [i, p] of data.policies.entries()) {
      if (ac.signal.aborted) break;
      const r = await runEvaluation({
        db, spec: p.spec, name: `eval ${p.name} ${data.splits.join(',')}/${data.part}`, policyConfig: p.config,
        splits: data.splits, part: data.part, templates, seeds: data.seeds, ...(data.limit ? { limit: data.limit } : {}),
        parallel: 1, screenshots: 'half', extraConfig: { evaluation: data.evaluation }, signal: ac.signal,
        onEpisode: (_done, _total, key) => {
          post({ type: 'episode', policy: i, key });
          if (Atomics.load(ctrl, 0) === 1) ac.abort();
        },
      });
      post({ type: 'result', policy: i, runs: r.runs, report: r.report, stopped: r.stopped });
    }
    post({ type: 'done', stopped: ac.signal.aborted });
  } finally {
    db.close();
  }
}

try {
  await main();
} catch (e) {
  const err = e instanceof Error ? e : new Error(String(e));
  post({ type: 'failed', error: { name: err.name, message: err.message } });
}
