import { defineConfig } from 'vitest/config';

// Files that mock modules, stub globals or timers, or write process.env keep a fresh module graph each (isolate);
// the rest share one per worker, which saves re-importing the domain for every file (a third of the suite's time on
// 2 cores: BENCHMARKS.md, "Test suite").
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
    projects: [
      { extends: true, test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: ISOLATED, isolate: false } },
      { extends: true, test: { name: 'isolated', include: ISOLATED, isolate: true } },
    ],
  },
});
