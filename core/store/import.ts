import { createReadStream, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { StepRecord } from '../episode/record.js';
import { deviceKindOf, ensureInstance, ensureTemplate, upsertDevice } from './catalog.js';
import { hasScreenshot, hasTree, pngSize, putScreenshot, putTree, sha256 } from './content.js';
import { inTransaction, type WritableDB } from './db.js';
import { completeEpisode, episodeIdByUid, insertEpisode } from './episodes.js';
import { ImportAssetError, ImportLineError, ImportManifestError, ScreenshotFormatError } from './errors.js';
import { EPISODES_FILE, EpisodeLine, FORMAT_VERSION, Manifest, MANIFEST_FILE, type StepLine } from './format.js';
import type { EpisodeId, RunId } from './ids.js';
import { putRewardValues, putSubgoalProgress, type MaybeStepReward } from './reward-annotations.js';
import { writeReward } from './rewards.js';
import { createRun, finishRun, getRun, type Run } from './runs.js';
import { insertStep } from './steps.js';
import { formatIssues, issueLines } from '../util/zod-issues.js';

export interface ImportSummary {
  /** The run of kind 'import' the new episodes joined; null when there was nothing new. */
  run: Run | null;
  imported: EpisodeId[];
  /** Episodes whose uid was already in the store. */
  skipped: number;
}

/**
 * Reads an export directory into the store, all or nothing (docs/trajectory-format.md). Every line and every file it
 * names is checked first (zod, hashes, PNG headers, UTF-8 trees), so a bad export adds nothing; then the new episodes
 * and their run of kind 'import' are written in one transaction, so a failure part-way leaves no episode and no run
 * behind. Episodes are matched by uid: importing the same directory twice adds nothing the second time.
 */
export async function importEpisodes(db: WritableDB, dir: string, opts: { name?: string } = {}): Promise<ImportSummary> {
  const manifest = readManifest(dir);
  const file = join(dir, EPISODES_FILE);

  const verified = new Set<string>();
  const episodes: EpisodeLine[] = [];
  for await (const [no, ep] of episodeLines(file)) {
    for (const ref of assetRefs(ep)) {
      if (verified.has(ref)) continue;
      verifyAsset(dir, file, no, ref);
      verified.add(ref);
    }
    episodes.push(ep);
  }

  // Synchronous from here on: no other writer of this connection can interleave with the transaction.
  return inTransaction(db, () => {
    let run: Run | null = null;
    const imported: EpisodeId[] = [];
    let skipped = 0;
    for (const ep of episodes) {
      if (episodeIdByUid(db, ep.uid) !== null) {
        skipped++;
        continue;
      }
      run ??= createRun(db, {
        kind: 'import', name: opts.name ?? `import ${basename(resolve(dir))}`,
        config: { source: resolve(dir), exported_at: manifest.exported_at, format_version: manifest.version },
      });
      imported.push(insertEpisodeLine(db, run.id, ep, dir));
    }
    if (!run) return { run: null, imported, skipped };
    finishRun(db, run.id);
    return { run: getRun(db, run.id), imported, skipped };
  });
}

function readManifest(dir: string): Manifest {
  const file = join(dir, MANIFEST_FILE);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ImportManifestError(file, `unreadable (${(e as Error).message}); is this an awb export directory?`);
  }
  const m = Manifest.safeParse(json);
  if (!m.success) throw new ImportManifestError(file, formatIssues(m.error.issues));
  if (m.data.version > FORMAT_VERSION) throw new ImportManifestError(file, `format version ${m.data.version} is newer than this build reads (${FORMAT_VERSION})`);
  return m.data;
}

/** The validated episodes of a JSONL file with their 1-based line numbers; blank lines are skipped. */
async function* episodeLines(file: string): AsyncGenerator<[number, EpisodeLine]> {
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  let no = 0;
  for await (const text of lines) {
    no++;
    if (!text.trim()) continue;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      throw new ImportLineError(file, no, [`not JSON (${(e as Error).message})`]);
    }
    const r = EpisodeLine.safeParse(json);
    if (!r.success) throw new ImportLineError(file, no, issueLines(r.error.issues, { root: '(line)' }));
    yield [no, r.data];
  }
}

function assetRefs(ep: EpisodeLine): string[] {
  const refs = [ep.final_screenshot, ep.final_tree, ...ep.steps.flatMap((s) => [s.screenshot, s.tree])];
  return refs.filter((r): r is string => r !== null);
}

const shaOfRef = (ref: string) => ref.slice(ref.indexOf('/') + 1, ref.lastIndexOf('.'));

function verifyAsset(dir: string, file: string, line: number, ref: string): void {
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(dir, ref));
  } catch (e) {
    throw new ImportAssetError(file, line, ref, `cannot be read (${(e as Error).message})`);
  }
  const sha = sha256(bytes);
  if (sha !== shaOfRef(ref)) throw new ImportAssetError(file, line, ref, `its bytes hash to ${sha}`);
  if (ref.endsWith('.png')) {
    try {
      pngSize(bytes, sha);
    } catch (e) {
      if (!(e instanceof ScreenshotFormatError)) throw e;
      throw new ImportAssetError(file, line, ref, e.reason);
    }
  } else {
    // A tree is stored as text and named by the hash of its UTF-8 bytes: bytes that are not UTF-8 would be
    // re-encoded on the way in and stored under another hash than the step names.
    try {
      UTF8.decode(bytes);
    } catch {
      throw new ImportAssetError(file, line, ref, 'is not valid UTF-8 text');
    }
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Stores a verified asset unless the store has it already (then the file is not even read). */
function storeAsset(db: WritableDB, dir: string, ref: string | null): string | null {
  if (ref === null) return null;
  const sha = shaOfRef(ref);
  if (ref.endsWith('.png')) {
    if (!hasScreenshot(db, sha)) putScreenshot(db, readFileSync(join(dir, ref)));
  } else if (!hasTree(db, sha)) {
    putTree(db, readFileSync(join(dir, ref), 'utf8'));
  }
  return sha;
}

function lineToStep(s: StepLine): StepRecord {
  const step: StepRecord = {
    index: s.index, raw: s.raw, foreground: s.foreground, startedAt: s.started_at,
    timings: { observeMs: s.timings.observe_ms, policyMs: s.timings.policy_ms, actMs: s.timings.act_ms, settleMs: s.timings.settle_ms },
  };
  if (s.action !== null) step.action = s.action;
  if (s.description !== null) step.description = s.description;
  if (s.thought !== null) step.thought = s.thought;
  if (s.candidates !== null) step.candidates = s.candidates;
  if (s.error !== null) step.error = s.error;
  if (s.overridden) step.overridden = true;
  if (s.target !== null) step.target = s.target;
  if (s.timings.request_ms !== null) step.timings.requestMs = s.timings.request_ms;
  if (s.usage !== null) step.usage = { promptTokens: s.usage.prompt_tokens, completionTokens: s.usage.completion_tokens };
  if (s.prompt !== null) step.prompt = s.prompt;
  if (s.reply !== null) step.reply = s.reply;
  if (s.request !== null) step.request = s.request;
  return step;
}

function insertEpisodeLine(db: WritableDB, runId: RunId, ep: EpisodeLine, dir: string): EpisodeId {
  const deviceId = ep.device ? upsertDevice(db, ep.device, deviceKindOf(ep.device.serial), ep.started_at) : null;
  ensureTemplate(db, ep.template, { apps: ep.apps, difficulty: ep.difficulty, kind: ep.task_kind, tags: ep.tags });
  const instanceId = ensureInstance(db, { templateId: ep.template, seed: ep.seed, params: ep.params, instruction: ep.instruction });
  const id = insertEpisode(db, { uid: ep.uid, runId, instanceId, deviceId, policy: ep.policy, maxSteps: ep.max_steps, startedAt: ep.started_at });
  for (const s of ep.steps) {
    insertStep(db, id, lineToStep(s), storeAsset(db, dir, s.screenshot), storeAsset(db, dir, s.tree));
    for (const [kind, r] of Object.entries(s.rewards)) writeReward(db, id, s.index, kind, r.value, r.explanation);
  }
  for (const [kind, values] of unscoredKinds(ep)) putRewardValues(db, id, kind, values);
  if (ep.subgoals) putSubgoalProgress(db, id, ep.subgoals);
  completeEpisode(db, id, {
    status: ep.status, success: ep.success, verdict: ep.verdict, terminatedBy: ep.terminated_by, answer: ep.answer, error: ep.error,
    finishedAt: ep.finished_at,
    timings: ep.timings && { resetMs: ep.timings.reset_ms, checkMs: ep.timings.check_ms, totalMs: ep.timings.total_ms },
    finalScreenshot: storeAsset(db, dir, ep.final_screenshot), finalTree: storeAsset(db, dir, ep.final_tree),
  });
  return id;
}

/** Every value of each kind that is unscored on some step (putRewardValues replaces a kind as a whole). */
function unscoredKinds(ep: EpisodeLine): Map<string, MaybeStepReward[]> {
  const byKind = new Map<string, MaybeStepReward[]>();
  for (const s of ep.steps) {
    for (const kind of Object.keys(s.unscored)) byKind.set(kind, []);
  }
  for (const s of ep.steps) {
    for (const [kind, values] of byKind) {
      const r = s.rewards[kind];
      const reason = s.unscored[kind];
      if (r) values.push({ step: s.index, value: r.value, explanation: r.explanation });
      else if (reason !== undefined) values.push({ step: s.index, value: null, explanation: reason });
    }
  }
  return byKind;
}
