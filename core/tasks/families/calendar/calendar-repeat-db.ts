import type { Device } from '../../../device/device.js';
import { sqlLiteral, sqlObjects } from '../../validators/sqlite.js';
import { condition, holds, type CheckCondition } from '../../verdict.js';
import { EVENTS_DB } from './calendar-db.js';

/**
 * A repeating event as Simple Calendar stores it (and AndroidWorld's check reads it): daily is
 * repeat_interval 86400 with rule 0, weekly is 604800 with the bit of the start's weekday (Monday 1 …
 * Sunday 64), forever is repeat_limit 0.
 */
const INTERVAL = { daily: 86_400, weekly: 604_800 } as const;

export function weeklyBit(jsDay: number): number {
  return 1 << ((jsDay + 6) % 7);
}

export async function repeatingEvents(device: Device, title: string, repeat: 'daily' | 'weekly', startJsDay: number): Promise<CheckCondition[]> {
  const rows = await sqlObjects(device, EVENTS_DB, ['repeat_interval', 'repeat_rule', 'repeat_limit'] as const, `events WHERE title = ${sqlLiteral(title)} COLLATE NOCASE`);
  const r = rows[0];
  if (!r) return [holds(`"${title}" repeats ${repeat}`, false, { expected: repeat, found: 'no such event' })];
  const rule = repeat === 'weekly' ? weeklyBit(startJsDay) : 0;
  return [
    condition(`"${title}" repeat interval`, String(INTERVAL[repeat]), String(r.repeat_interval)),
    condition(`"${title}" repeat rule`, String(rule), String(r.repeat_rule)),
    condition(`"${title}" repeats forever (limit 0)`, '0', String(r.repeat_limit)),
  ];
}
