import { z } from 'zod';
import type { Device } from '../../../device/device.js';
import { DEVICE_NOW } from '../../../seed-data/dates.js';
import { defineTask, type TaskTemplate } from '../../task.js';
import { sqlExec, sqlInsert, sqlObjects, sqlSelect } from '../../validators/sqlite.js';
import { ALARMS_DB, clockOpen, openClockTab, tabSelected } from './common.js';
import { condition, countIs, holds, verdictOf } from '../../verdict.js';

/**
 * The stopwatch (AndroidWorld's ClockStopWatchRunning and ClockStopWatchPausedVerify, plus laps).
 * Its state is the `stopwatch` row and the `laps` table; elapsed time comes from the virtual clock.
 */
interface StopwatchRow {
  state: string;
  accumulated_ms: number;
}

async function readStopwatch(device: Device): Promise<StopwatchRow & { laps: number }> {
  const [row] = await sqlObjects(device, ALARMS_DB, ['state', 'accumulated_ms'] as const, 'stopwatch WHERE _id = 1');
  const [[laps]] = await sqlSelect(device, ALARMS_DB, ['COUNT(*)'], 'laps') as [[number]];
  return { state: String(row?.state ?? 'reset'), accumulated_ms: Number(row?.accumulated_ms ?? 0), laps: Number(laps) };
}

/** Sets the stopwatch: reset, paused at `elapsed`, or running since `elapsed` ago; with `laps` laps of equal length. */
async function setStopwatch(device: Device, state: 'reset' | 'paused' | 'running', elapsedMs: number, laps: number): Promise<void> {
  const row = state === 'running'
    ? { _id: 1, state, accumulated_ms: 0, start_time: DEVICE_NOW - elapsedMs }
    : { _id: 1, state, accumulated_ms: state === 'reset' ? 0 : elapsedMs, start_time: null };
  const lap = Math.floor(elapsedMs / (laps + 1));
  const lapRows = Array.from({ length: laps }, (_, i) => sqlInsert('laps', { lap_number: i + 1, lap_time_ms: lap, total_time_ms: lap * (i + 1) }));
  await sqlExec(device, ALARMS_DB, `DELETE FROM stopwatch; DELETE FROM laps; ${sqlInsert('stopwatch', row)} ${lapRows.join(' ')}`);
}

const Run = z.object({ from: z.enum(['reset', 'paused']), elapsedMs: z.int().min(0), laps: z.int().min(0) });

export const StopwatchRun = defineTask({
  id: 'ClockStopwatchRun',
  apps: ['Clock'],
  difficulty: 'easy',
  tags: ['toggle'],
  kind: 'completion',
  template: 'Run the stopwatch.',
  params: Run,
  generate: (rng) => (rng.chance(0.5)
    ? { from: 'reset' as const, elapsedMs: 0, laps: 0 }
    : { from: 'paused' as const, elapsedMs: rng.int(5, 600) * 1000, laps: rng.int(0, 3) }),
  initialize: async (device, p) => setStopwatch(device, p.from, p.elapsedMs, p.laps),
  check: async (device) => verdictOf([condition('stopwatch running', 'running', (await readStopwatch(device)).state)]),
  subgoals: () => [
    clockOpen,
    tabSelected('stopwatch', 'Stopwatch'),
    { name: 'stopwatch running', check: async ({ device }) => (await readStopwatch(device)).state === 'running' },
  ],
  *oracle(_p, ui) {
    yield* openClockTab(ui, 'stopwatch');
    yield ui.tap({ contentDesc: 'Start' });
    yield ui.complete();
  },
});

const Pause = z.object({ elapsedMs: z.int().min(1000), laps: z.int().min(0) });

export const StopwatchPause = defineTask({
  id: 'ClockStopwatchPause',
  apps: ['Clock'],
  difficulty: 'easy',
  tags: ['toggle'],
  kind: 'completion',
  template: 'Pause the stopwatch.',
  params: Pause,
  generate: (rng) => ({ elapsedMs: rng.int(3, 900) * 1000, laps: rng.int(0, 4) }),
  initialize: async (device, p) => setStopwatch(device, 'running', p.elapsedMs, p.laps),
  // Paused, not reset: the time counted so far and the laps are kept.
  check: async (device, p) => {
    const sw = await readStopwatch(device);
    return verdictOf([
      condition('stopwatch paused', 'paused', sw.state),
      holds(`stopwatch at ${p.elapsedMs} ms or more`, sw.accumulated_ms >= p.elapsedMs, { expected: `≥ ${p.elapsedMs} ms`, found: `${sw.accumulated_ms} ms` }),
      countIs('laps recorded', p.laps, sw.laps),
    ]);
  },
  subgoals: () => [
    clockOpen,
    tabSelected('stopwatch', 'Stopwatch'),
    { name: 'stopwatch paused', check: async ({ device }) => (await readStopwatch(device)).state === 'paused' },
  ],
  *oracle(_p, ui) {
    yield* openClockTab(ui, 'stopwatch');
    // Already paused (AndroidWorld's ClockStopWatchPausedVerify starts so): nothing to tap.
    if (ui.exists({ contentDesc: 'Pause' })) yield ui.tap({ contentDesc: 'Pause' });
    yield ui.complete();
  },
});

const Laps = z.object({ laps: z.int().min(2).max(6) });

export const StopwatchLaps = defineTask({
  id: 'ClockStopwatchLaps',
  apps: ['Clock'],
  difficulty: 'medium',
  tags: ['toggle', 'math_counting'],
  kind: 'completion',
  template: 'Start the stopwatch, record {laps} laps, then pause it.',
  params: Laps,
  generate: (rng) => ({ laps: rng.int(2, 6) }),
  initialize: async (device) => setStopwatch(device, 'reset', 0, 0),
  check: async (device, p) => {
    const sw = await readStopwatch(device);
    return verdictOf([
      condition('stopwatch paused', 'paused', sw.state),
      holds('stopwatch ran', sw.accumulated_ms > 0, { expected: '> 0 ms', found: `${sw.accumulated_ms} ms` }),
      countIs('laps recorded', p.laps, sw.laps),
    ]);
  },
  subgoals: (p) => [
    clockOpen,
    tabSelected('stopwatch', 'Stopwatch'),
    { name: 'stopwatch started', check: async ({ device }) => (await readStopwatch(device)).state !== 'reset' },
    { name: `${p.laps} laps`, check: async ({ device }) => (await readStopwatch(device)).laps === p.laps },
    { name: 'stopwatch paused', check: async ({ device }) => (await readStopwatch(device)).state === 'paused' },
  ],
  *oracle(p, ui) {
    yield* openClockTab(ui, 'stopwatch');
    yield ui.tap({ contentDesc: 'Start' });
    for (let i = 0; i < p.laps; i++) yield ui.tap({ resourceId: 'lap', text: 'Lap' });
    yield ui.tap({ contentDesc: 'Pause' });
    yield ui.complete();
  },
});

export const STOPWATCH_TASKS: readonly TaskTemplate[] = [StopwatchRun, StopwatchPause, StopwatchLaps];
