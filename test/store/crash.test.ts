import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, openStoreReadonly, type ReadableDB } from '../../core/store/db.js';
import { listEpisodes } from '../../core/store/queries.js';
import { listRuns, resumeRun } from '../../core/store/runs.js';
import { loadTrajectory } from '../../core/store/trajectory.js';
import { tempDir } from './helpers.js';

/**
 * Records episodes in a child process, kills it with SIGKILL in the middle of an episode, and
 * checks that the store kept every committed step, whole, and that the run can be resumed.
 */
const FIXTURE = fileURLToPath(new URL('./fixtures/record-forever.ts', import.meta.url));
const tmp = tempDir('awb-crash-');
afterAll(() => tmp.cleanup());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface CommittedStep {
  uid: string;
  idx: number;
  screenshot: string | null;
  tree: string | null;
}

function committed(db: ReadableDB): { steps: CommittedStep[]; running: number; finished: string[] } {
  const steps = db.prepare('SELECT e.uid, s.idx, s.screenshot, s.tree FROM steps s JOIN episodes e ON e.id = s.episode_id ORDER BY s.id').all() as CommittedStep[];
  const running = db.prepare(`SELECT count(*) FROM episodes e WHERE status = 'running' AND EXISTS (SELECT 1 FROM steps s WHERE s.episode_id = e.id)`).pluck().get() as number;
  const finished = db.prepare(`SELECT DISTINCT i.template_id || ':' || i.seed FROM episodes e JOIN task_instances i ON i.id = e.instance_id
    WHERE e.status IN ('success', 'failure', 'error') ORDER BY 1`).pluck().all() as string[];
  return { steps, running, finished };
}

describe('crash safety', () => {
  // SIGSTOP freezes the writer, so what the reader sees is exactly what is committed when it dies;
  // Windows has no SIGSTOP.
  it.skipIf(process.platform === 'win32')('keeps every committed step, with its screenshot and tree, through kill -9', async () => {
    const path = join(tmp.dir, 'crash.db');
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, path], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));

    let reader: ReadableDB | null = null;
    let seen: ReturnType<typeof committed> | null = null;
    const deadline = Date.now() + 12_000;
    try {
      while (Date.now() < deadline) {
        if (child.exitCode !== null) throw new Error(`the fixture exited early (${child.exitCode}): ${stderr}`);
        try {
          reader ??= openStoreReadonly(path);
        } catch {
          // Not created or not migrated yet: the writer is starting up.
          await sleep(50);
          continue;
        }
        const count = reader.prepare('SELECT count(*) FROM steps').pluck().get() as number;
        if (count >= 30) {
          child.kill('SIGSTOP');
          const now = committed(reader);
          if (now.running === 1) {
            seen = now;
            break;
          }
          child.kill('SIGCONT');
        }
        await sleep(20);
      }
    } finally {
      child.kill('SIGKILL');
      reader?.close();
    }
    expect(await exited).toBe('SIGKILL');
    expect(seen, `no 30 committed steps within the deadline; fixture stderr: ${stderr}`).not.toBeNull();

    const db = openStore(path);
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(db.pragma('foreign_key_check')).toEqual([]);
      const after = committed(db);
      expect(after.steps).toEqual(seen!.steps);
      for (const s of after.steps) {
        expect(s.tree).not.toBeNull();
        expect(s.screenshot).not.toBeNull();
      }
      expect(db.prepare('SELECT count(*) FROM steps s LEFT JOIN screenshots p ON p.sha256 = s.screenshot WHERE p.png IS NULL').pluck().get()).toBe(0);
      expect(db.prepare('SELECT count(*) FROM steps s LEFT JOIN ui_trees t ON t.sha256 = s.tree WHERE t.xml_deflate IS NULL').pluck().get()).toBe(0);

      // Every episode, the half-written one included, loads and lists.
      const page = listEpisodes(db, { limit: 1000 });
      for (const row of page.rows) expect(loadTrajectory(db, row.id).steps).toHaveLength(row.steps);

      const [run] = listRuns(db);
      const state = resumeRun(db, run!.id);
      expect(state.interrupted).toHaveLength(1);
      const cut = loadTrajectory(db, state.interrupted[0]!);
      expect(cut.episode.status).toBe('interrupted');
      expect(cut.steps.length).toBeGreaterThan(0);
      expect(cut.episode.stepsCount).toBe(cut.steps.length);
      expect([...state.finished].map((f) => `${f.templateId}:${f.seed}`).sort()).toEqual(after.finished);
      expect(after.finished.length).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  }, 20_000);
});
