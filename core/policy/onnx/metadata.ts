import { z } from 'zod';
import { EncoderConfigSchema, type EncoderConfig } from '../encoder.js';
import { featureDim } from '../features.js';
import type { NetworkDims } from '../network.js';
import { OnnxPolicyDimsError, OnnxPolicyFileError } from './errors.js';
import { formatIssues } from '../../util/zod-issues.js';

/**
 * An exported builtin policy describes itself in ModelProto.metadata_props, so a model file alone is
 * enough to rebuild the features it expects (the encoder) and to check its shapes:
 *
 *   awb.format   "awb-builtin-policy-onnx"     awb.version  "1"
 *   awb.encoder  JSON EncoderConfig            awb.network  JSON {input: F, hidden: H}
 *   awb.producer who wrote it (free text)      awb.meta     JSON object, the checkpoint's meta (optional)
 *
 * The graph: inputs `features` float32 [n, F] (n dynamic) and `temperature` float32 scalar; outputs
 * `scores` [n] and `log_probs` [n] = log softmax(scores / T). The PyTorch trainer
 * (resources/trainer/awb_trainer/policy.py) writes the same keys and names.
 */
export const ONNX_POLICY_FORMAT = 'awb-builtin-policy-onnx';
export const ONNX_POLICY_VERSION = 1;
export const META = {
  format: 'awb.format',
  version: 'awb.version',
  encoder: 'awb.encoder',
  network: 'awb.network',
  producer: 'awb.producer',
  meta: 'awb.meta',
} as const;
export const IO_NAMES = { features: 'features', temperature: 'temperature', scores: 'scores', logProbs: 'log_probs' } as const;

export interface OnnxPolicyMetadata {
  encoder: EncoderConfig;
  network: NetworkDims;
  producer: string;
  meta: Record<string, unknown>;
}

const NetworkSchema = z.strictObject({ input: z.int().positive(), hidden: z.int().positive() });
const MetaSchema = z.record(z.string(), z.unknown());

export function policyMetadataProps(m: OnnxPolicyMetadata): Record<string, string> {
  const props: Record<string, string> = {
    [META.format]: ONNX_POLICY_FORMAT,
    [META.version]: String(ONNX_POLICY_VERSION),
    [META.encoder]: JSON.stringify(m.encoder),
    [META.network]: JSON.stringify(m.network),
    [META.producer]: m.producer,
  };
  if (Object.keys(m.meta).length) props[META.meta] = JSON.stringify(m.meta);
  return props;
}

function parseJson<T>(props: Record<string, string>, key: string, schema: z.ZodType<T>, problems: string[]): T | null {
  const text = props[key];
  if (text === undefined) {
    problems.push(`metadata ${key} is missing`);
    return null;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    problems.push(`metadata ${key} is not JSON: ${JSON.stringify(text.slice(0, 80))}`);
    return null;
  }
  const r = schema.safeParse(json);
  if (!r.success) {
    problems.push(`metadata ${key}: ${formatIssues(r.error.issues, { root: '(value)', separator: ', ' })}`);
    return null;
  }
  return r.data;
}

/**
 * Reads and checks the awb.* metadata of a model file: a file without them is not an awb policy
 * export (OnnxPolicyFileError); a network whose input size is not the encoder's feature size is
 * OnnxPolicyDimsError (features.ts featureDim).
 */
export function parsePolicyMetadata(props: Record<string, string>, path: string): OnnxPolicyMetadata {
  const problems: string[] = [];
  if (props[META.format] !== ONNX_POLICY_FORMAT) {
    problems.push(`metadata ${META.format} is ${JSON.stringify(props[META.format] ?? null)}, expected ${JSON.stringify(ONNX_POLICY_FORMAT)} (export with \`awb policy export-onnx\` or awb_trainer.policy.export_onnx)`);
    throw new OnnxPolicyFileError(path, problems);
  }
  if (props[META.version] !== String(ONNX_POLICY_VERSION)) problems.push(`metadata ${META.version} is ${JSON.stringify(props[META.version] ?? null)}, this workbench reads ${ONNX_POLICY_VERSION}`);
  const encoder = parseJson(props, META.encoder, EncoderConfigSchema, problems);
  const network = parseJson(props, META.network, NetworkSchema, problems);
  const meta = props[META.meta] === undefined ? {} : parseJson(props, META.meta, MetaSchema, problems);
  if (problems.length || !encoder || !network || !meta) throw new OnnxPolicyFileError(path, problems);
  const want = featureDim(encoder.dim);
  if (network.input !== want) throw new OnnxPolicyDimsError(path, `network input ${network.input} is not the feature size ${want} of encoder dim ${encoder.dim}`, network);
  return { encoder, network, producer: props[META.producer] ?? '', meta };
}
