import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deserializeCheckpoint, saveCheckpoint, serializeCheckpoint } from '../policy/checkpoint.js';
import type { PolicyModel, PolicyStepRecord } from '../policy/builtin.js';
import { type Adam, ScorerNetwork } from '../policy/network.js';
import { WorkbenchError } from '../util/errors.js';
import type { FcfState, ReplayBuffer } from './adagrpo.js';
import { parseTrainConfig, type TrainConfig } from './config.js';
import type { CurriculumState } from './curriculum.js';
import { writeFileAtomic } from '../util/atomic-write.js';

/**
 * A GRPO run's checkpoint directory:
 *   trainer.json  everything a resume needs, written atomically (temporary file renamed):
 *                 { format, version, iteration, config, runId, policy (a policy checkpoint, core/policy/checkpoint.ts),
 *                   reference params, Adam m/v/t, replay buffer, FCF and curriculum state, last success rate }
 *   policy.json   the policy alone (for `awb eval` / `awb run --policy builtin`), written after trainer.json
 * Float buffers are little-endian base64, so a resume is bit-exact.
 */
export const TRAINER_FORMAT = 'awb-grpo-trainer';
export const TRAINER_VERSION = 1;

/** One replayed episode: its step records (features, choice, log π_old at the recorded temperature). */
export interface ReplayEpisode {
  records: PolicyStepRecord[];
}

export interface TrainerState {
  /** Iterations completed. */
  iteration: number;
  config: TrainConfig;
  /** The training run in the store, if any. */
  runId: number | null;
  model: PolicyModel;
  reference: ScorerNetwork;
  adam: Adam;
  replay: ReplayBuffer<ReplayEpisode>;
  fcf: FcfState;
  curriculum: CurriculumState;
  lastSuccessRate: number | null;
}

export class TrainerCheckpointError extends WorkbenchError {
  override name = 'TrainerCheckpointError';
  constructor(readonly path: string, readonly problem: string) {
    super(`Bad GRPO checkpoint ${path}: ${problem}`);
  }
}

const b64 = (a: Float32Array | Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');
function f32(s: string): Float32Array {
  const b = Buffer.from(s, 'base64');
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}
function f64(s: string): Float64Array {
  const b = Buffer.from(s, 'base64');
  return new Float64Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

type StoredRecord = Omit<PolicyStepRecord, 'features'> & { features: string };
const storeRecord = (r: PolicyStepRecord): StoredRecord => ({ ...r, features: b64(r.features) });
const loadRecord = (r: StoredRecord): PolicyStepRecord => ({ ...r, features: f32(r.features) });

export function trainerFile(dir: string): string {
  return join(dir, 'trainer.json');
}

/** Writes trainer.json (atomically) and policy.json into `dir`. */
export function saveTrainerCheckpoint(dir: string, s: TrainerState): void {
  mkdirSync(dir, { recursive: true });
  const meta = { trainer: 'grpo', iteration: s.iteration };
  const json = {
    format: TRAINER_FORMAT, version: TRAINER_VERSION, iteration: s.iteration, config: s.config, runId: s.runId,
    policy: JSON.parse(serializeCheckpoint(s.model, meta)) as unknown,
    reference: b64(s.reference.params),
    adam: { t: s.adam.t, m: b64(s.adam.m), v: b64(s.adam.v) },
    replay: { iteration: s.replay.iteration, entries: s.replay.entries.map((e) => ({ ...e, episode: { records: e.episode.records.map(storeRecord) } })) },
    fcf: s.fcf, curriculum: s.curriculum, lastSuccessRate: s.lastSuccessRate,
  };
  const path = trainerFile(dir);
  writeFileAtomic(path, JSON.stringify(json));
  saveCheckpoint(join(dir, 'policy.json'), s.model, meta);
}

interface StoredTrainer {
  format: string; version: number; iteration: number; config: unknown; runId: number | null; policy: unknown; reference: string;
  adam: { t: number; m: string; v: string };
  replay: { iteration: number; entries: Array<ReplayBuffer<ReplayEpisode>['entries'][number] & { episode: { records: StoredRecord[] } }> };
  fcf: FcfState; curriculum: CurriculumState; lastSuccessRate: number | null;
}

/** Reads a checkpoint directory written by saveTrainerCheckpoint; Adam's options come from the caller (the config). */
export function loadTrainerCheckpoint(dir: string, adamFor: (size: number, config: TrainConfig) => Adam): TrainerState {
  const path = trainerFile(dir);
  let raw: StoredTrainer;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8')) as StoredTrainer;
  } catch (e) {
    throw new TrainerCheckpointError(path, `cannot read (${(e as Error).message})`);
  }
  if (raw.format !== TRAINER_FORMAT || raw.version !== TRAINER_VERSION) {
    throw new TrainerCheckpointError(path, `expected ${TRAINER_FORMAT} version ${TRAINER_VERSION}, got ${String(raw.format)} version ${String(raw.version)}`);
  }
  const config = parseTrainConfig(raw.config);
  const { model } = deserializeCheckpoint(JSON.stringify(raw.policy), `${path} (policy)`);
  const size = model.net.params.length;
  const refParams = f32(raw.reference);
  const m = f64(raw.adam.m);
  const v = f64(raw.adam.v);
  if (refParams.length !== size || m.length !== size || v.length !== size) {
    throw new TrainerCheckpointError(path, `reference/optimizer sizes ${refParams.length}/${m.length}/${v.length} do not match the policy's ${size} parameters`);
  }
  const adam = adamFor(size, config);
  adam.m.set(m);
  adam.v.set(v);
  adam.t = raw.adam.t;
  return {
    iteration: raw.iteration, config, runId: raw.runId, model,
    reference: new ScorerNetwork({ ...model.net.dims }, refParams), adam,
    replay: { iteration: raw.replay.iteration, entries: raw.replay.entries.map((e) => ({ ...e, episode: { records: e.episode.records.map(loadRecord) } })) },
    fcf: raw.fcf, curriculum: raw.curriculum, lastSuccessRate: raw.lastSuccessRate,
  };
}
