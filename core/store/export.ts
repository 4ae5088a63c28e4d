import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmdirSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fillFileAtomic, writeFileAtomic } from '../util/atomic-write.js';
import { getScreenshot, getTree } from './content.js';
import type { ReadableDB } from './db.js';
import { ExportExistsError } from './errors.js';
import {
  EPISODES_FILE, FORMAT_NAME, FORMAT_VERSION, MANIFEST_FILE, SCREENSHOT_DIR, screenshotPath, TREE_DIR, treePath,
  type EpisodeLine, type Manifest, type StepLine,
} from './format.js';
import type { EpisodeId } from './ids.js';
import { episodeIds, type EpisodeFilter } from './queries.js';
import type { StoredStep } from './steps.js';
import { loadTrajectory, type Trajectory } from './trajectory.js';

export interface ExportSummary {
  dir: string;
  manifest: Manifest;
}

/** Converts a stored trajectory to one line of episodes.jsonl. */
export function trajectoryToLine(t: Trajectory): EpisodeLine {
  const { episode: e, instance: i } = t;
  return {
    uid: e.uid, template: i.templateId, apps: i.template.apps, difficulty: i.template.difficulty, task_kind: i.template.kind,
    tags: i.template.tags, seed: i.seed, params: i.params, instruction: i.instruction, policy: e.policy, status: e.status,
    success: e.success, verdict: e.verdict, terminated_by: e.terminatedBy, answer: e.answer, error: e.error, max_steps: e.maxSteps,
    started_at: e.startedAt, finished_at: e.finishedAt,
    timings: e.timings && { reset_ms: e.timings.resetMs, check_ms: e.timings.checkMs, total_ms: e.timings.totalMs },
    device: e.device,
    steps: t.steps.map(stepToLine),
    final_screenshot: t.final.screenshot && screenshotPath(t.final.screenshot),
    final_tree: t.final.tree && treePath(t.final.tree),
    subgoals: t.subgoals ?? null,
  };
}

function stepToLine(s: StoredStep): StepLine {
  return {
    index: s.index, started_at: s.startedAt, raw: s.raw, action: s.action ?? null, description: s.description ?? null,
    thought: s.thought ?? null, candidates: s.candidates ?? null, error: s.error ?? null, overridden: s.overridden ?? false,
    foreground: s.foreground, target: s.target ?? null,
    timings: {
      observe_ms: s.timings.observeMs, policy_ms: s.timings.policyMs, act_ms: s.timings.actMs, settle_ms: s.timings.settleMs,
      request_ms: s.timings.requestMs ?? null,
    },
    usage: s.usage ? { prompt_tokens: s.usage.promptTokens, completion_tokens: s.usage.completionTokens } : null,
    prompt: s.prompt ?? null,
    reply: s.reply ?? null,
    request: s.request ?? null,
    rewards: s.rewards,
    unscored: s.unscored ?? {},
    screenshot: s.screenshot && screenshotPath(s.screenshot),
    tree: s.tree && treePath(s.tree),
  };
}

// Array.isArray does not narrow a readonly array out of a union.
function isIdList(s: readonly EpisodeId[] | EpisodeFilter): s is readonly EpisodeId[] {
  return Array.isArray(s);
}

export interface ExportOptions {
  /** Replace what `dir` holds (an earlier export); without it a folder that is not empty is refused. */
  force?: boolean;
}

/**
 * Writes the chosen episodes (ids, or every episode matching a filter, oldest first) to `dir`:
 * episodes.jsonl, each referenced screenshot and tree once, and manifest.json. All of it goes to a
 * temporary folder beside `dir` that is renamed to `dir` at the end, so `dir` is either absent, as
 * it was, or a complete export, whatever stops the export (a full disk, a kill). `dir` may be
 * missing or an empty folder; one with files in it is replaced only with `force`.
 */
export function exportEpisodes(db: ReadableDB, selection: readonly EpisodeId[] | EpisodeFilter, dir: string, opts: ExportOptions = {}): ExportSummary {
  const existing = destination(dir, opts.force === true);
  const ids = isIdList(selection) ? selection : episodeIds(db, selection);
  mkdirSync(dirname(resolve(dir)), { recursive: true });
  const tmp = `${resolve(dir)}.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    const manifest = writeExport(db, ids, tmp);
    if (existing === 'empty') rmdirSync(dir);
    if (existing === 'export') {
      // Swapped in by two renames; the old export is deleted only once the new one is in place.
      const old = `${resolve(dir)}.replaced-${process.pid}-${randomBytes(4).toString('hex')}`;
      renameSync(dir, old);
      renameSync(tmp, dir);
      rmSync(old, { recursive: true, force: true });
    } else renameSync(tmp, dir);
    return { dir, manifest };
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}

/** What is at the export's destination now; refuses a file, and a folder with files unless `force`. */
function destination(dir: string, force: boolean): 'none' | 'empty' | 'export' {
  let st;
  try {
    st = statSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'none';
    throw e;
  }
  if (!st.isDirectory()) throw new ExportExistsError(dir, 'is a file, not a folder');
  if (readdirSync(dir).length === 0) return 'empty';
  if (!force) throw new ExportExistsError(dir, `is not empty${existsSync(join(dir, MANIFEST_FILE)) ? ' (an earlier export)' : ''}; give --force to replace it, or another --out`);
  return 'export';
}

function writeExport(db: ReadableDB, ids: readonly EpisodeId[], dir: string): Manifest {
  mkdirSync(join(dir, SCREENSHOT_DIR), { recursive: true });
  mkdirSync(join(dir, TREE_DIR), { recursive: true });
  const shots = new Set<string>();
  const trees = new Set<string>();
  let steps = 0;
  fillFileAtomic(join(dir, EPISODES_FILE), (fd) => {
    for (const id of ids) {
      const t = loadTrajectory(db, id);
      for (const sha of [...t.steps.map((s) => s.screenshot), t.final.screenshot]) {
        if (sha && !shots.has(sha)) {
          shots.add(sha);
          const file = join(dir, screenshotPath(sha));
          writeFileSync(file, getScreenshot(db, sha));
        }
      }
      for (const sha of [...t.steps.map((s) => s.tree), t.final.tree]) {
        if (sha && !trees.has(sha)) {
          trees.add(sha);
          const file = join(dir, treePath(sha));
          writeFileSync(file, getTree(db, sha));
        }
      }
      steps += t.steps.length;
      writeSync(fd, `${JSON.stringify(trajectoryToLine(t))}\n`);
    }
  });
  const manifest: Manifest = {
    format: FORMAT_NAME, version: FORMAT_VERSION, exported_at: new Date().toISOString(),
    counts: { episodes: ids.length, steps, screenshots: shots.size, trees: trees.size },
  };
  writeFileAtomic(join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}
