import { createReadStream, lstatSync, readFileSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, join, resolve, sep } from 'node:path';
import { createInterface } from 'node:readline';
import type { StepRecord } from '../episode/record.js';
import { storedCandidates } from '../episode/confidence.js';
import { deviceKindOf, ensureInstance, ensureTemplate, upsertDevice } from './catalog.js';
import { hasScreenshot, hasTree, pngSize, putScreenshot, putTree, sha256 } from './content.js';
import { inTransaction, type WritableDB } from './db.js';
import { completeEpisode, episodeIdByUid, insertEpisode } from './episodes.js';
import { ImportAssetError, ImportFileError, ImportLineError, ImportManifestError, ImportRecordError, ScreenshotFormatError } from './errors.js';
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
  /** Uids on more than one line of episodes.jsonl (the same record each time: imported once), with their line numbers. */
  duplicates: Array<{ uid: string; lines: number[] }>;
}

/**
 * Reads an export directory into the store, all or nothing (docs/trajectory-format.md). Every line and every file it
 * names is checked first (zod, hashes, PNG headers, UTF-8 trees, records that contradict themselves, the manifest's
 * counts), so a bad export adds nothing; then the new episodes and their run of kind 'import' are written in one
 * transaction, so a failure part-way leaves no episode and no run behind. Episodes are matched by uid: importing the
 * same directory twice adds nothing the second time. Only regular files are read: a FIFO, a device or a link out of
 * the folder is refused before it is opened.
 */
export async function importEpisodes(db: WritableDB, dir: string, opts: { name?: string } = {}): Promise<ImportSummary> {
  const root = importRoot(dir);
  const manifest = readManifest(root, dir);
  const file = join(dir, EPISODES_FILE);
  regularFile(root, EPISODES_FILE, file);

  const verified = new Set<string>();
  const episodes: EpisodeLine[] = [];
  const byUid = new Map<string, { line: number; text: string; lines: number[] }>();
  // What the lines hold, duplicates included, for the manifest's counts.
  let lineCount = 0;
  let steps = 0;
  for await (const [no, ep, text] of episodeLines(file)) {
    lineCount++;
    steps += ep.steps.length;
    const problem = contradiction(ep);
    if (problem) throw new ImportRecordError(file, no, ep.uid, problem);
    const seen = byUid.get(ep.uid);
    if (seen) {
      if (normalised(seen.text) !== normalised(text)) throw new ImportRecordError(file, no, ep.uid, `the uid is on line ${seen.line} too, with another record`);
      seen.lines.push(no);
      continue;
    }
    byUid.set(ep.uid, { line: no, text, lines: [no] });
    for (const ref of assetRefs(ep)) {
      if (verified.has(ref)) continue;
      verifyAsset(root, dir, file, no, ref);
      verified.add(ref);
    }
    episodes.push(ep);
  }
  const duplicates = [...byUid].filter(([, v]) => v.lines.length > 1).map(([uid, v]) => ({ uid, lines: v.lines }));
  checkCounts(join(dir, MANIFEST_FILE), manifest, {
    episodes: lineCount, steps,
    screenshots: [...verified].filter((r) => r.endsWith('.png')).length, trees: [...verified].filter((r) => r.endsWith('.xml')).length,
  });

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
    if (!run) return { run: null, imported, skipped, duplicates };
    finishRun(db, run.id);
    return { run: getRun(db, run.id), imported, skipped, duplicates };
  });
}

/** A record is one episode: the same uid twice is the same JSON, whatever its key order or spacing. */
const normalised = (text: string) => JSON.stringify(sortKeys(JSON.parse(text)));

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]));
  return v;
}

/** What a record says against itself (its status, success flag and checker's verdict must agree), or null. */
function contradiction(ep: EpisodeLine): string | null {
  if (ep.status === 'success' && ep.success !== true) return `status "success" with success ${String(ep.success)}`;
  if (ep.status !== 'success' && ep.success === true) return `status "${ep.status}" with success true`;
  if (ep.verdict && (ep.status === 'success' || ep.status === 'failure') && ep.verdict.ok !== (ep.status === 'success')) {
    return `status "${ep.status}" with a verdict whose ok is ${ep.verdict.ok}`;
  }
  return null;
}

/** The manifest's counts must be what episodes.jsonl holds: a truncated or hand-edited export is refused. */
function checkCounts(file: string, manifest: Manifest, found: Manifest['counts']): void {
  const off = (Object.keys(found) as Array<keyof Manifest['counts']>).filter((k) => manifest.counts[k] !== found[k]);
  if (off.length) {
    throw new ImportManifestError(file, `its counts do not match episodes.jsonl (${off.map((k) => `${k}: ${manifest.counts[k]} in the manifest, ${found[k]} found`).join('; ')}); the export is incomplete or was edited`);
  }
}

/** The export folder's real path (links resolved): what every file it names must stay inside. */
function importRoot(dir: string): string {
  try {
    const st = statSync(dir);
    if (!st.isDirectory()) throw new ImportManifestError(dir, 'is not a folder; give the export\'s folder');
    return realpathSync(dir);
  } catch (e) {
    if (e instanceof ImportManifestError) throw e;
    throw new ImportManifestError(dir, `cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); is this an awb export directory?`);
  }
}

/**
 * Refuses, before it is opened, a file that is not a regular file inside the export: reading a FIFO blocks forever, a
 * device never ends, and a link may point anywhere. A link to a regular file inside the folder is followed.
 */
function regularFile(root: string, rel: string, file: string, line?: number): void {
  const refuse = (problem: string) => {
    if (line !== undefined) throw new ImportAssetError(join(root, EPISODES_FILE), line, rel, problem);
    throw new ImportFileError(file, problem);
  };
  let st;
  try {
    st = lstatSync(file);
  } catch (e) {
    return refuse(`cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  if (st.isSymbolicLink()) {
    let target: string;
    try {
      target = realpathSync(file);
    } catch (e) {
      return refuse(`is a link that leads nowhere (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    if (!target.startsWith(root + sep)) return refuse(`is a link out of the export folder (to ${target})`);
    st = statSync(target);
  }
  if (!st.isFile()) return refuse(`is not a regular file (${fileKind(st)}); an export holds only files`);
}

function fileKind(st: Stats): string {
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSocket()) return 'a socket';
  return 'not a file';
}

function readManifest(root: string, dir: string): Manifest {
  const file = join(dir, MANIFEST_FILE);
  regularFile(root, MANIFEST_FILE, file);
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

/** The validated episodes of a JSONL file with their 1-based line numbers and text; blank lines are skipped. */
async function* episodeLines(file: string): AsyncGenerator<[number, EpisodeLine, string]> {
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
    yield [no, r.data, text];
  }
}

function assetRefs(ep: EpisodeLine): string[] {
  const refs = [ep.final_screenshot, ep.final_tree, ...ep.steps.flatMap((s) => [s.screenshot, s.tree])];
  return refs.filter((r): r is string => r !== null);
}

const shaOfRef = (ref: string) => ref.slice(ref.indexOf('/') + 1, ref.lastIndexOf('.'));

function verifyAsset(root: string, dir: string, file: string, line: number, ref: string): void {
  regularFile(root, ref, join(dir, ref), line);
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
  if (s.candidates !== null) step.candidates = storedCandidates(s.candidates);
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
