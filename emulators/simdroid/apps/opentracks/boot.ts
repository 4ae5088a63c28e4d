import type { AppEnv, SystemServices } from '../../runtime/app.js';
import type { Rng } from '../../../../core/util/rng.js';
import { insertTrack } from './db.js';

/** A few tracks of the past fortnight, so the app never opens empty (AndroidWorld clears them before its tasks). */
const STARTER = [
  { name: 'Morning Run', category: 'running', description: 'Loop around the park' },
  { name: 'Commute', category: 'cycling', description: '' },
  { name: 'Hill Walk', category: 'hiking', description: 'Windy at the top' },
  { name: 'Lap Swim', category: 'swimming', description: '' },
] as const;

const DAY_MS = 86_400_000;

export function bootTracks(env: { app: AppEnv; sys: SystemServices; rng: Rng }): void {
  const { rng } = env;
  const now = env.sys.clock.now();
  STARTER.forEach((s, i) => {
    const start = Math.floor(now / DAY_MS) * DAY_MS - rng.int(1, 14) * DAY_MS + rng.int(6 * 4, 19 * 4) * 900_000;
    const uuid = Buffer.alloc(16);
    uuid.writeUInt32BE(i + 1, 12);
    insertTrack(env.app.db, {
      name: s.name, description: s.description, category: s.category, starttime: start, duration: rng.int(15, 120),
      distance: rng.int(500, 15_000), elevationGain: rng.int(0, 300), elevationLoss: rng.int(0, 300),
    }, uuid);
  });
}
