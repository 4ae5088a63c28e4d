import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, openStoreReadonly } from '../../core/store/db.js';
import { listEpisodes } from '../../core/store/queries.js';
import { createRun } from '../../core/store/runs.js';
import { loadTrajectory } from '../../core/store/trajectory.js';
import { recordSynthetic, tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('a read-only connection beside the writer', () => {
  it('reads what the writer committed, sees its next commits, and cannot write', () => {
    const path = join(tmp.dir, 'shared.db');
    const writer = openStore(path);
    const run = createRun(writer, { kind: 'suite', name: 'live' });
    const first = recordSynthetic(writer, run.id, { templateId: 'ClockAddAlarm', steps: 3, startedAt: 1 });
    const reader = openStoreReadonly(path);
    try {
      expect(loadTrajectory(reader, first).steps).toHaveLength(3);
      recordSynthetic(writer, run.id, { templateId: 'ClockAddAlarm', seed: 1, status: 'running', startedAt: 2 });
      expect(listEpisodes(reader).counts).toMatchObject({ success: 1, running: 1 });
      expect(() => reader.prepare(`UPDATE runs SET name = 'x'`).run()).toThrow(/readonly/);
    } finally {
      reader.close();
      writer.close();
    }
  });
});
