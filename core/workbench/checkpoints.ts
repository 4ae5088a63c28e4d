import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseTrainConfig, type TrainConfig } from '../rl/config.js';
import { trainerFile } from '../rl/grpo-checkpoint.js';
import { isTransformerModelDir } from '../policy/transformer/model.js';
import { WorkbenchError } from '../util/errors.js';
import { JOB_FILE, type JobFile } from './training/protocol.js';
import { TRAINER_KINDS, type CheckpointInfo, type TrainerKind } from '../api/training-types.js';

/**
 * Checkpoints live in <data folder>/checkpoints/<name>/ (as `awb train` writes them by default):
 * policy.json always, trainer.json for a GRPO run (what a resume needs), and awb-job.json when the
 * workbench ran it (the store run holding its metrics). A transformer policy's checkpoint is its model folder
 * (config.json, tokenizer.json, policy.onnx, weights.pt: core/policy/transformer/model.ts) with awb-job.json beside.
 * A folder whose name starts with a dot is a run's staging area (written, then renamed into place) and never listed.
 */
export const checkpointsDir = (dataDir: string) => join(dataDir, 'checkpoints');

/** A checkpoint name is one folder name: the API never takes a path to read or write. */
export const CHECKPOINT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

export class CheckpointNotFoundError extends WorkbenchError {
  override name = 'CheckpointNotFoundError';
  constructor(readonly checkpoint: string, readonly dir: string, readonly missing: string) {
    super(`No resumable checkpoint ${JSON.stringify(checkpoint)}: ${missing} is missing in ${dir}`);
  }
}

function readJson(path: string): Record<string, unknown> | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch {
    return null; // listed without details: a half-written or foreign file must not hide the others
  }
}

const trainerOf = (v: unknown): TrainerKind | null => ((TRAINER_KINDS as readonly unknown[]).includes(v) ? (v as TrainerKind) : null);

/** A transformer SFT model's epochs (its meta's last epoch's metrics). */
function finalEpoch(meta: Record<string, unknown>): number | null {
  const final = meta.final as { epoch?: unknown } | null | undefined;
  return typeof final?.epoch === 'number' ? final.epoch : null;
}

export function readJobFile(dir: string): JobFile | null {
  return readJson(join(dir, JOB_FILE)) as JobFile | null;
}

/** Every checkpoint folder under the data folder, newest first. */
export function listCheckpoints(dataDir: string): CheckpointInfo[] {
  const root = checkpointsDir(dataDir);
  if (!existsSync(root)) return [];
  const out: CheckpointInfo[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    if (entry.name.startsWith('.')) continue;
    const dir = join(root, entry.name);
    const transformer = isTransformerModelDir(dir);
    const policy = transformer ? dir : join(dir, 'policy.json');
    const file = transformer ? join(dir, 'config.json') : policy;
    if (!existsSync(file)) continue;
    const meta = (readJson(file)?.meta ?? {}) as Record<string, unknown>;
    const job = readJobFile(dir);
    out.push({
      name: entry.name, dir, policy, model: transformer ? 'transformer' : 'builtin',
      trainer: trainerOf(job?.trainer ?? meta.trainer),
      iteration: typeof meta.iteration === 'number' ? meta.iteration : finalEpoch(meta),
      resumable: !transformer && existsSync(trainerFile(dir)),
      runId: typeof job?.runId === 'number' ? job.runId : null,
      updatedAt: statSync(file).mtimeMs,
    });
  }
  return out.sort((a, b) => b.updatedAt - a.updatedAt || a.name.localeCompare(b.name));
}

export interface TrainerSummary {
  dir: string;
  iteration: number;
  config: TrainConfig;
  /** The store run trainGrpo recorded (a checkpoint of `awb train grpo --db`), if any. */
  runId: number | null;
}

/** What a resume needs from a GRPO checkpoint folder, without loading the policy. */
export function readTrainerSummary(name: string, dir: string): TrainerSummary {
  const file = trainerFile(dir);
  if (!existsSync(file)) throw new CheckpointNotFoundError(name, dir, 'trainer.json');
  const raw = readJson(file);
  if (!raw || typeof raw.iteration !== 'number') throw new CheckpointNotFoundError(name, dir, 'a readable trainer.json');
  return { dir, iteration: raw.iteration, config: parseTrainConfig(raw.config), runId: typeof raw.runId === 'number' ? raw.runId : null };
}
