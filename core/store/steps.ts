import type { Action } from '../actions/schema.js';
import type { Candidate, RecordedRequest, StepRecord, StepTimings } from '../episode/record.js';
import { storedCandidates } from '../episode/confidence.js';
import type { Bounds } from '../a11y/ui-tree.js';
import { prepare, type ReadableDB, type WritableDB } from './db.js';
import type { EpisodeId } from './ids.js';
import { fromJson, toJson } from './json.js';
import { loadUnscored } from './reward-annotations.js';

/** A stored reward: its value and why (e.g. "checker: success"). */
export interface Reward {
  value: number;
  explanation: string;
}

/** A step as stored: the runner's record, the observation it was taken on (by hash), its rewards by kind. */
export interface StoredStep extends StepRecord {
  /** SHA-256 of the screenshot the step was taken on, or null when none was recorded. */
  screenshot: string | null;
  /** SHA-256 of the accessibility tree (its XML) the step was taken on. */
  tree: string | null;
  rewards: Record<string, Reward>;
  /** Reward kinds that could not score this step, with why (step_reward_unscored); absent when none. */
  unscored?: Record<string, string>;
}

interface StepRow {
  idx: number;
  raw: string;
  action: string | null;
  action_type: string | null;
  description: string | null;
  thought: string | null;
  candidates: string | null;
  error_name: string | null;
  error_message: string | null;
  overridden: 0 | 1;
  foreground_package: string;
  foreground_activity: string;
  target: string | null;
  timings: string;
  started_at: number;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  prompt: string | null;
  reply: string | null;
  request: string | null;
  screenshot: string | null;
  tree: string | null;
}

function stepToRow(step: StepRecord, screenshot: string | null, tree: string | null): StepRow {
  return {
    idx: step.index,
    raw: toJson(step.raw),
    action: step.action ? JSON.stringify(step.action) : null,
    action_type: step.action?.action_type ?? null,
    description: step.description ?? null,
    thought: step.thought ?? null,
    candidates: step.candidates ? toJson(step.candidates) : null,
    error_name: step.error?.name ?? null,
    error_message: step.error?.message ?? null,
    overridden: step.overridden ? 1 : 0,
    foreground_package: step.foreground.package,
    foreground_activity: step.foreground.activity,
    target: step.target ? JSON.stringify(step.target) : null,
    timings: JSON.stringify(step.timings),
    started_at: step.startedAt,
    prompt_tokens: step.usage?.promptTokens ?? null,
    completion_tokens: step.usage?.completionTokens ?? null,
    prompt: step.prompt ?? null,
    reply: step.reply ?? null,
    request: step.request ? JSON.stringify(step.request) : null,
    screenshot,
    tree,
  };
}

function rowToStep(r: StepRow, rewards: Record<string, Reward>): StoredStep {
  const step: StoredStep = {
    index: r.idx,
    raw: fromJson(r.raw),
    foreground: { package: r.foreground_package, activity: r.foreground_activity },
    timings: fromJson<StepTimings>(r.timings),
    startedAt: r.started_at,
    screenshot: r.screenshot,
    tree: r.tree,
    rewards,
  };
  // Optional fields stay absent, as the runner leaves them, rather than present and undefined.
  if (r.action !== null) step.action = fromJson<Action>(r.action);
  if (r.description !== null) step.description = r.description;
  if (r.thought !== null) step.thought = r.thought;
  if (r.candidates !== null) step.candidates = storedCandidates(fromJson<Candidate[]>(r.candidates));
  if (r.error_name !== null) step.error = { name: r.error_name, message: r.error_message ?? '' };
  if (r.overridden) step.overridden = true;
  if (r.target !== null) step.target = fromJson<{ ordinal: number; bounds: Bounds; label: string }>(r.target);
  if (r.prompt_tokens !== null && r.completion_tokens !== null) step.usage = { promptTokens: r.prompt_tokens, completionTokens: r.completion_tokens };
  if (r.prompt !== null) step.prompt = r.prompt;
  if (r.reply !== null) step.reply = r.reply;
  if (r.request !== null) step.request = fromJson<RecordedRequest>(r.request);
  return step;
}

/** Writes one step row and keeps the episode's step count current (so an interrupted episode's is right). */
export function insertStep(db: WritableDB, episodeId: EpisodeId, step: StepRecord, screenshot: string | null, tree: string | null): void {
  prepare(db, `
    INSERT INTO steps (episode_id, idx, raw, action, action_type, description, thought, candidates, error_name, error_message,
      overridden, foreground_package, foreground_activity, target, timings, started_at, prompt_tokens, completion_tokens, prompt, reply,
      request, screenshot, tree)
    VALUES (@episode_id, @idx, @raw, @action, @action_type, @description, @thought, @candidates, @error_name, @error_message,
      @overridden, @foreground_package, @foreground_activity, @target, @timings, @started_at, @prompt_tokens, @completion_tokens, @prompt, @reply,
      @request, @screenshot, @tree)`)
    .run({ episode_id: episodeId, ...stepToRow(step, screenshot, tree) });
  prepare(db, 'UPDATE episodes SET steps_count = steps_count + 1 WHERE id = ?').run(episodeId);
}

/** The last stored step's index, or null for an episode without steps. */
export function lastStepIndex(db: ReadableDB, episodeId: EpisodeId): number | null {
  return prepare<[number], number | null>(db, 'SELECT max(idx) FROM steps WHERE episode_id = ?').pluck().get(episodeId) ?? null;
}

export function loadRewards(db: ReadableDB, episodeId: EpisodeId): Map<number, Record<string, Reward>> {
  const byStep = new Map<number, Record<string, Reward>>();
  for (const r of prepare<[number], { step_idx: number; kind: string; value: number; explanation: string }>(
    db, 'SELECT step_idx, kind, value, explanation FROM step_rewards WHERE episode_id = ? ORDER BY step_idx, kind',
  ).all(episodeId)) {
    let k = byStep.get(r.step_idx);
    if (!k) byStep.set(r.step_idx, (k = {}));
    k[r.kind] = { value: r.value, explanation: r.explanation };
  }
  return byStep;
}

export function loadSteps(db: ReadableDB, episodeId: EpisodeId): StoredStep[] {
  const rewards = loadRewards(db, episodeId);
  const unscored = loadUnscored(db, episodeId);
  return prepare<[number], StepRow>(db, `
    SELECT idx, raw, action, action_type, description, thought, candidates, error_name, error_message, overridden,
      foreground_package, foreground_activity, target, timings, started_at, prompt_tokens, completion_tokens, prompt, reply, request, screenshot, tree
    FROM steps WHERE episode_id = ? ORDER BY idx`).all(episodeId).map((r) => {
    const step = rowToStep(r, rewards.get(r.idx) ?? {});
    const why = unscored.get(r.idx);
    if (why) step.unscored = why;
    return step;
  });
}
