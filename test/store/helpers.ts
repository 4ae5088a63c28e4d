import { mkdtempSync, rmSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SimDroid } from '../../emulators/simdroid/simdroid.js';
import { runEpisode } from '../../core/episode/runner.js';
import { OraclePolicy } from '../../core/episode/policies/oracle.js';
import type { Policy, PolicyDecision } from '../../core/episode/policy.js';
import type { EpisodeResult, EpisodeStart, StepRecord } from '../../core/episode/record.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { StoreRecorder } from '../../core/store/recorder.js';
import type { WritableDB } from '../../core/store/db.js';
import type { EpisodeId, RunId } from '../../core/store/ids.js';

/** A fresh directory under the OS temp dir, and its removal. */
export function tempDir(prefix = 'awb-store-'): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A fresh temp folder as AWB_HOME for this test file (the CLI's data folder), so nothing touches the
 * user's ~/.awb; the previous value comes back and the folder goes after the file's tests.
 */
export function tempAwbHome(prefix: string): { dir: string } {
  const tmp = tempDir(prefix);
  const home = process.env.AWB_HOME;
  beforeAll(() => {
    process.env.AWB_HOME = tmp.dir;
  });
  afterAll(() => {
    if (home === undefined) delete process.env.AWB_HOME;
    else process.env.AWB_HOME = home;
    tmp.cleanup();
  });
  return { dir: tmp.dir };
}

/** Runs one real episode on SimDroid with half-resolution screenshots, recorded into the store. */
export async function recordEpisode(
  db: WritableDB, runId: RunId, device: SimDroid, templateId: string, seed: number, policy: Policy = new OraclePolicy(),
): Promise<{ id: EpisodeId; result: EpisodeResult }> {
  const recorder = new StoreRecorder(db, runId);
  const result = await runEpisode({ device, instance: instantiate(getTemplate(templateId), seed), policy, screenshots: 'half', recorder });
  return { id: recorder.episodeId!, result };
}

/** A policy that returns these decisions in turn (then stops), or throws the error it is given. */
export function scriptedPolicy(name: string, decisions: Array<PolicyDecision | Error>): Policy {
  let i = 0;
  return {
    name,
    act() {
      const next = decisions[i++];
      if (next instanceof Error) throw next;
      return next ?? null;
    },
  };
}

/** A small synthetic 1×1 PNG; `shade` changes its bytes (and so its hash). */
export function tinyPng(shade = 0, width = 1, height = 1): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 0;
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    return Buffer.concat([len, Buffer.from(type, 'latin1'), data, Buffer.alloc(4)]);
  };
  // CRCs are left zero: the store reads the size from IHDR and hashes the bytes; it never decodes.
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', Buffer.from([shade])), chunk('IEND', Buffer.alloc(0)),
  ]);
}

export interface SyntheticEpisode {
  templateId: string;
  seed?: number;
  policy?: string;
  status?: EpisodeResult['status'] | 'running';
  steps?: number;
  startedAt: number;
  instruction?: string;
  /** The checker's conditions to record with the ending. */
  verdict?: EpisodeResult['verdict'];
  /** Steps decided by a served VLM: each records its request (its own screenshot and the goal) and reply, in this format. */
  vlm?: 'androidworld';
}

/** Records an episode from made-up data (fast; for queries): `steps` steps, then the given ending. */
export function recordSynthetic(db: WritableDB, runId: RunId, e: SyntheticEpisode): EpisodeId {
  const rec = new StoreRecorder(db, runId);
  const seed = e.seed ?? 0;
  const instruction = e.instruction ?? `Do ${e.templateId} #${seed}`;
  const policy = e.policy ?? 'oracle';
  const start: EpisodeStart = {
    templateId: e.templateId, seed, instruction, params: { seed }, policy,
    device: { serial: 'simdroid-test', width: 1080, height: 2400, density: 420 }, maxSteps: 20, startedAt: e.startedAt,
  };
  rec.begin(start);
  const steps: StepRecord[] = [];
  for (let i = 0; i < (e.steps ?? 2); i++) {
    const step: StepRecord = {
      index: i, raw: { action_type: 'navigate_back' }, action: { action_type: 'navigate_back' }, description: 'Go back',
      foreground: { package: 'com.android.settings', activity: '.Settings' }, startedAt: e.startedAt + i,
      timings: { observeMs: 1, policyMs: 1, actMs: 1, settleMs: 0 },
    };
    if (e.vlm) {
      step.thought = 'Reason: back to the list.\nAction: {"action_type": "navigate_back"}';
      step.request = {
        format: e.vlm, coordinates: 'screen',
        messages: [{ role: 'user', content: [{ type: 'text', text: instruction }, { type: 'image', step: i }] }],
      };
    }
    steps.push(step);
    rec.step(step, { xml: `<hierarchy rotation="0"><node text="${i}"/></hierarchy>`, screenshot: tinyPng(i) });
  }
  if (e.status !== 'running') {
    const status = e.status ?? 'success';
    rec.end({
      templateId: e.templateId, seed, instruction, policy, steps, success: status === 'success', status,
      outcome: { actions: [] }, terminatedBy: status === 'error' ? 'policy_error' : 'status',
      timings: { resetMs: 1, checkMs: 1, totalMs: 10 }, startedAt: e.startedAt, finishedAt: e.startedAt + 1000,
      ...(e.verdict ? { verdict: e.verdict } : {}),
      ...(status === 'error' ? { error: { name: 'PolicyCrash', message: 'boom' } } : {}),
    }, { xml: '<hierarchy rotation="0"/>' });
  }
  return rec.episodeId!;
}

/** Undoes version 10 (outside agents' runs and step attachments), as a version-9 build wrote the store. */
export function dropVersion10(db: Database.Database): void {
  db.exec('ALTER TABLE steps DROP COLUMN prompt; ALTER TABLE steps DROP COLUMN reply');
  const { sql } = db.prepare(`SELECT sql FROM sqlite_schema WHERE name = 'runs'`).get() as { sql: string };
  const version = db.pragma('schema_version', { simple: true }) as number;
  db.unsafeMode(true);
  db.pragma('writable_schema = ON');
  db.prepare(`UPDATE sqlite_schema SET sql = ? WHERE name = 'runs'`).run(sql.replace(`, 'env')`, ')'));
  db.pragma(`schema_version = ${version + 1}`);
  db.pragma('writable_schema = OFF');
  db.unsafeMode(false);
}

