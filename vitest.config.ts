import { defineConfig } from 'vitest/config';

// Files that mock modules, stub globals or timers, or write process.env keep a fresh module graph each (isolate);
// the rest share one per worker, which saves re-importing the domain for every file (11 store/actions files: 21 s →
// 14 s on 2 cores; BENCHMARKS.md, "Test suite").
const ISOLATED = [
  'test/api/online-grpo.test.ts',
  'test/cli/adapt.test.ts',
  'test/cli/bad-inputs.test.ts',
  'test/cli/rewards-fit.test.ts',
  'test/cli/subgoals.test.ts',
  'test/core/cli.test.ts',
  'test/electron/main.test.ts',
  'test/electron/preload.test.ts',
  'test/jobs/cli.test.ts',
  'test/jobs/online-cli.test.ts',
  'test/jobs/online-vlm.test.ts',
  'test/jobs/online-served.test.ts',
  'test/jobs/reward-bundles.test.ts',
  'test/jobs/reward-jobs-real.test.ts',
  'test/policy/vlm-cli.test.ts',
  'test/renderer/live-gestures.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // better-sqlite3 and @napi-rs/canvas are native addons: separate processes keep them isolated.
    pool: 'forks',
    // Vitest's default is one worker less than the cores, which is one on the 2-core CI machine: the suite ran file after
    // file. Many files wait on servers and subprocesses (the trainer, transformers serve, Ray, Chromium), so two
    // workers share the cores well (BENCHMARKS.md, "Test suite").
    maxWorkers: 2,
    // Every process the tests start (the trainer, its jobs, transformers serve, Ray) gets one torch / OpenMP thread:
    // two vitest workers already fill the 2 cores, and oversubscribed OpenMP threads spin-wait (a job step was seen
    // 17× slower with 2 threads next to another job).
    env: { OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1' },
    projects: [
      { extends: true, test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: ISOLATED, isolate: false } },
      { extends: true, test: { name: 'isolated', include: ISOLATED, isolate: true } },
    ],
  },
});
