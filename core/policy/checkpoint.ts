import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { createEncoder, EncoderConfigSchema } from './encoder.js';
import { featureDim } from './features.js';
import { parameterCount, ScorerNetwork } from './network.js';
import type { PolicyModel } from './builtin.js';
import { decodeFloat32Params, encodeFloat32Params, Float32ParamsSchema } from '../util/float32-params.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { issueLines } from '../util/zod-issues.js';

/**
 * A builtin-policy checkpoint is one JSON file:
 *
 *   { format: "awb-builtin-policy", version: 1, encoder: {kind, dim, charN},
 *     network: {input, hidden}, params: {dtype: "float32-le", count, base64}, meta: {...} }
 *
 * The parameters are the network's flat Float32 buffer, little-endian, base64-encoded, so a round
 * trip is bit-exact. `meta` is free-form JSON (training step, metrics, config).
 */
export const CHECKPOINT_FORMAT = 'awb-builtin-policy';
export const CHECKPOINT_VERSION = 1;

const CheckpointSchema = z.strictObject({
  format: z.literal(CHECKPOINT_FORMAT).describe('File kind marker'),
  version: z.literal(CHECKPOINT_VERSION).describe('Format version; newer versions are refused'),
  encoder: EncoderConfigSchema.describe('Text encoder the features were built with'),
  network: z.strictObject({
    input: z.int().positive().describe('Feature dimension F'),
    hidden: z.int().positive().describe('Hidden units H'),
  }),
  params: Float32ParamsSchema,
  meta: z.record(z.string(), z.unknown()).describe('Free-form training metadata'),
});
export type CheckpointFile = z.infer<typeof CheckpointSchema>;

export class CheckpointError extends Error {
  override name = 'CheckpointError';
  constructor(readonly path: string, readonly problems: string[]) {
    super(`Bad policy checkpoint ${path}: ${problems.join('; ')}`);
  }
}

export function serializeCheckpoint(model: PolicyModel, meta: Record<string, unknown> = {}): string {
  const file: CheckpointFile = {
    format: CHECKPOINT_FORMAT,
    version: CHECKPOINT_VERSION,
    encoder: model.encoder.config,
    network: { ...model.net.dims },
    params: encodeFloat32Params(model.net.params),
    meta,
  };
  return JSON.stringify(file);
}

/** Parses and checks a checkpoint's text; `where` names it in errors. */
export function deserializeCheckpoint(text: string, where = '<text>'): { model: PolicyModel; meta: Record<string, unknown> } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    // The parser quotes the text around the error, newlines included: one line for a message.
    throw new CheckpointError(where, [`not JSON (${(e as Error).message.replace(/\s*\n\s*/g, ' ')})`]);
  }
  const r = CheckpointSchema.safeParse(json);
  if (!r.success) throw new CheckpointError(where, issueLines(r.error.issues, { root: '(root)' }));
  const f = r.data;
  const problems: string[] = [];
  const wantInput = featureDim(f.encoder.dim);
  if (f.network.input !== wantInput) problems.push(`network.input ${f.network.input} does not match the features of encoder dim ${f.encoder.dim} (${wantInput})`);
  const wantCount = parameterCount(f.network);
  if (f.params.count !== wantCount) problems.push(`params.count ${f.params.count}, the network needs ${wantCount}`);
  const { params, problems: paramProblems } = decodeFloat32Params(f.params);
  problems.push(...paramProblems);
  if (problems.length || !params) throw new CheckpointError(where, problems);
  return { model: { encoder: createEncoder(f.encoder), net: new ScorerNetwork(f.network, params) }, meta: f.meta };
}

/** Writes atomically (a temporary file renamed over the target). */
export function saveCheckpoint(path: string, model: PolicyModel, meta: Record<string, unknown> = {}): void {
  writeFileAtomic(path, serializeCheckpoint(model, meta));
}

export function loadCheckpoint(path: string): { model: PolicyModel; meta: Record<string, unknown> } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new CheckpointError(path, [`cannot read (${(e as Error).message})`]);
  }
  return deserializeCheckpoint(text, path);
}
