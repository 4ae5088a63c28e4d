// A rollout worker that fails while loading, for test/rollout/rollout-workers.test.ts.
throw new Error('this worker cannot start');
