import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { createEncoder, EncoderConfigSchema } from '../../policy/encoder.js';
import { WorkbenchError } from '../../util/errors.js';
import { progressFeatureDim, type ProgressModel } from './model.js';
import { mlpParamCount, SigmoidMlp } from '../mlp.js';
import { decodeFloat32Params, encodeFloat32Params, Float32ParamsSchema } from '../../util/float32-params.js';
import { writeFileAtomic } from '../../util/atomic-write.js';
import { issueLines } from '../../util/zod-issues.js';

/**
 * A progress-model checkpoint is one JSON file, like the policy's (core/policy/checkpoint.ts):
 *
 *   { format: "awb-progrm", version: 1, encoder: {kind, dim, charN}, network: {input, hidden},
 *     params: {dtype: "float32-le", count, base64}, meta: {...} }
 *
 * The parameters are little-endian float32 bytes in base64, so a round trip is bit-exact.
 */
export const PROGRM_CHECKPOINT_FORMAT = 'awb-progrm';
export const PROGRM_CHECKPOINT_VERSION = 1;

const ProgRmCheckpointSchema = z.strictObject({
  format: z.literal(PROGRM_CHECKPOINT_FORMAT).describe('File kind marker'),
  version: z.literal(PROGRM_CHECKPOINT_VERSION).describe('Format version; newer versions are refused'),
  encoder: EncoderConfigSchema.describe('Text encoder the features were built with'),
  network: z.strictObject({
    input: z.int().positive().describe('Feature dimension F = 4·D + 2'),
    hidden: z.int().positive().describe('Hidden units H'),
  }),
  params: Float32ParamsSchema,
  meta: z.record(z.string(), z.unknown()).describe('Free-form: label source, training metrics, config'),
});

export class ProgRmCheckpointError extends WorkbenchError {
  override name = 'ProgRmCheckpointError';
  constructor(readonly path: string, readonly problems: string[]) {
    super(`Bad ProgRM checkpoint ${path}: ${problems.join('; ')}`);
  }
}

export function serializeProgressModel(model: ProgressModel, meta: Record<string, unknown> = {}): string {
  return JSON.stringify({
    format: PROGRM_CHECKPOINT_FORMAT,
    version: PROGRM_CHECKPOINT_VERSION,
    encoder: model.encoder.config,
    network: { ...model.net.dims },
    params: encodeFloat32Params(model.net.params),
    meta,
  } satisfies z.infer<typeof ProgRmCheckpointSchema>);
}

export function deserializeProgressModel(text: string, where = '<text>'): { model: ProgressModel; meta: Record<string, unknown> } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ProgRmCheckpointError(where, [`not JSON (${(e as Error).message})`]);
  }
  const r = ProgRmCheckpointSchema.safeParse(json);
  if (!r.success) throw new ProgRmCheckpointError(where, issueLines(r.error.issues, { root: '(root)' }));
  const f = r.data;
  const problems: string[] = [];
  const wantInput = progressFeatureDim(f.encoder.dim);
  if (f.network.input !== wantInput) problems.push(`network.input ${f.network.input} does not match encoder dim ${f.encoder.dim} (${wantInput})`);
  const wantCount = mlpParamCount(f.network);
  if (f.params.count !== wantCount) problems.push(`params.count ${f.params.count}, the network needs ${wantCount}`);
  const { params, problems: paramProblems } = decodeFloat32Params(f.params);
  problems.push(...paramProblems);
  if (problems.length || !params) throw new ProgRmCheckpointError(where, problems);
  return { model: { encoder: createEncoder(f.encoder), net: new SigmoidMlp(f.network, params) }, meta: f.meta };
}

/** Writes atomically (a temporary file renamed over the target). */
export function saveProgressModel(path: string, model: ProgressModel, meta: Record<string, unknown> = {}): void {
  writeFileAtomic(path, serializeProgressModel(model, meta));
}

export function loadProgressModel(path: string): { model: ProgressModel; meta: Record<string, unknown> } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ProgRmCheckpointError(path, [`cannot read (${(e as Error).message})`]);
  }
  return deserializeProgressModel(text, path);
}
