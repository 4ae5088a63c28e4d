// A suite/eval pool worker that dies on purpose, for test/rollout/parallel-recording.test.ts: a job
// whose key ends in '/crash-throw' throws as it arrives (an uncaught error, before its episode
// begins); one ending in '/crash-exit' exits the thread (code 7) right after posting its second step;
// one ending in '/fail-after-begin' throws from the recorder's begin once 'begin' is posted, so the
// runner rethrows and the worker reports the job 'failed' after its episode began.
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const exitKeys = new Set();
parentPort.on('message', (m) => {
  if (m.type !== 'job') return;
  if (m.job.key.endsWith('/crash-throw')) throw new Error('boom in the worker');
  if (m.job.key.endsWith('/crash-exit')) exitKeys.add(m.job.key);
});
const post = parentPort.postMessage.bind(parentPort);
parentPort.postMessage = (m, transfer) => {
  post(m, transfer);
  if (m.type === 'step' && m.step.index === 1 && exitKeys.has(m.key)) process.exit(7);
  if (m.type === 'begin' && m.key.endsWith('/fail-after-begin')) throw new Error('bug after begin');
};
await import('../../core/rollout/threads/worker.ts');
