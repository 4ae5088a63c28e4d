import { nextTurn } from '../util/next-turn.js';

/**
 * The in-process rollout scheduler: jobs over devices this thread drives, first come first
 * served (each device takes the next job the moment its last one ends). It suits devices whose
 * steps are mostly waiting (adb devices, AVDs, a VLM endpoint), and SimDroids when one core is
 * enough: they interleave at await points rather than run in parallel. For CPU-bound SimDroid
 * rollouts on several cores, threads/pool.ts runs each device in a worker thread of its own.
 *
 * Jobs are taken in order; which device runs which job depends on timing, so a caller that needs
 * reproducible results makes each job independent of its device (its own RNG, a reset device).
 */

/**
 * How one device runs a job (`index`: the job's place in `jobs`). It returns 'retire' when the
 * device should take no further job (it is lost); the others go on. A thrown error rejects the
 * whole run, as it always has: callers turn a job's own failures into results before that.
 */
export type DeviceRunner<J> = (job: J, index: number) => Promise<void | 'retire'>;

export interface ScheduleOptions {
  /** Devices stop taking jobs once it is aborted; what is left is returned as unrun. */
  signal?: AbortSignal;
}

/**
 * Runs `jobs` on `devices`; `runnerFor(device)` is called once per device, so a device can keep
 * state across its jobs (an error streak, say). Resolves when every device has stopped, with the
 * jobs no device took (all devices retired, or the signal aborted).
 */
export async function scheduleOnDevices<D, J>(
  devices: readonly D[], jobs: readonly J[], runnerFor: (device: D) => DeviceRunner<J>, opts: ScheduleOptions = {},
): Promise<{ unrun: J[] }> {
  let next = 0;
  const loop = async (device: D) => {
    const run = runnerFor(device);
    while (next < jobs.length && !opts.signal?.aborted) {
      const k = next++;
      if ((await run(jobs[k]!, k)) === 'retire') return;
      // A turn of the event loop between jobs: SimDroid episodes may settle without one, and a stop signal or an
      // abort must get through before the next job starts.
      await nextTurn();
    }
  };
  await Promise.all(devices.map(loop));
  return { unrun: jobs.slice(next) };
}
