import { parentPort, workerData } from 'node:worker_threads';
import { compareRuns, runFailures } from '../../analysis/run-failures.js';
import { openStoreReadonly } from '../../store/db.js';
import type { RunId } from '../../store/ids.js';
import type { FailuresWorkerData, FromFailuresWorker, ToFailuresWorker } from './protocol.js';

/**
 * The failure-analysis worker (one per workbench, started on the first request by analyses.ts):
 * each request's taxonomy (and the flips against a second run) through its own read-only store
 * connection, one request at a time, posting progress after each classified episode, so
 * `awb serve`'s thread keeps answering other calls meanwhile.
 */
const data = workerData as FailuresWorkerData;
const post = (m: FromFailuresWorker) => parentPort!.postMessage(m);
const db = openStoreReadonly(data.dbPath);

async function handle(q: ToFailuresWorker): Promise<void> {
  try {
    const o = { oracle: q.oracle, limit: q.limit, onEpisode: (done: number, total: number) => post({ type: 'progress', id: q.id, done, total }) };
    if (q.vsRunId === null) post({ type: 'result', id: q.id, view: { runs: [await runFailures(db, q.runId as RunId, o)], comparison: null } });
    else {
      const { runs, ...comparison } = await compareRuns(db, q.runId as RunId, q.vsRunId as RunId, o);
      post({ type: 'result', id: q.id, view: { runs, comparison } });
    }
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    post({ type: 'failed', id: q.id, error: { name: err.name, message: err.message } });
  }
}

let queue = Promise.resolve();
parentPort!.on('message', (q: ToFailuresWorker) => {
  queue = queue.then(() => handle(q));
});
