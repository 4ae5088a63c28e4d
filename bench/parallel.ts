/**
 * Parallel rollout throughput (issue 3): aggregate steps/s without screenshots over 1, 2, 4 and 8
 * SimDroid devices in worker threads, random policy (every episode runs its full step budget).
 *   npm run bench -- parallel
 */
import { runPool, type RolloutJob } from '../core/rollout/threads/run-pool.js';
import { TASKS } from '../core/tasks/registry.js';

export async function benchParallel(): Promise<Record<string, unknown>> {
  const jobs: RolloutJob[] = [];
  for (const t of TASKS) for (const seed of [0, 1, 2]) jobs.push({ key: `${t.id}#${seed}`, templateId: t.id, seed, policy: { name: 'random' } });
  const results: Record<string, unknown> = {};
  for (const devices of [1, 2, 4, 8]) {
    const s = await runPool({ devices, jobs });
    // Worker start-up (loading the code, booting SimDroid) is paid once per device; report both.
    const rate = s.steps / (s.wallMs / 1000);
    const steady = s.steps / ((s.wallMs - s.startupMs) / 1000);
    results[`devices_${devices}`] = {
      episodes: s.outcomes.size, steps: s.steps, wallMs: Math.round(s.wallMs), startupMs: Math.round(s.startupMs),
      stepsPerSecond: Math.round(rate), steadyStepsPerSecond: Math.round(steady),
    };
    console.log(`${devices} device${devices > 1 ? 's' : ' '}: ${s.steps} steps in ${(s.wallMs / 1000).toFixed(2)} s (start-up ${(s.startupMs / 1000).toFixed(2)} s) = ${rate.toFixed(0)} steps/s overall, ${steady.toFixed(0)} steps/s after start-up`);
  }
  return results;
}
