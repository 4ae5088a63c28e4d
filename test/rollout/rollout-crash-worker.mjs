// A rollout worker that crashes on purpose, for test/rollout/rollout-workers.test.ts: a job whose rngKey
// ends in '/crash-throw' throws as it arrives (an uncaught error in the worker); one ending in
// '/crash-exit' exits the thread (code 7) right after posting its second step.
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const exitKeys = new Set();
parentPort.on('message', (m) => {
  if (m.type !== 'job') return;
  const rngKey = m.job.policy.rngKey ?? '';
  if (rngKey.endsWith('/crash-throw')) throw new Error('boom in the worker');
  if (rngKey.endsWith('/crash-exit')) exitKeys.add(m.job.key);
});
const post = parentPort.postMessage.bind(parentPort);
parentPort.postMessage = (m, transfer) => {
  post(m, transfer);
  if (m.type === 'step' && m.step.index === 1 && exitKeys.has(m.key)) process.exit(7);
};
await import('../../core/rollout/threads/worker.ts');
