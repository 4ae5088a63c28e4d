import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { CheckpointError, loadCheckpoint } from '../policy/checkpoint.js';
import {
  exportPolicyOnnx, OnnxInputShapeError, OnnxPolicyDimsError, OnnxPolicyFileError, OnnxPolicyModel, OnnxRuntimeUnavailableError,
} from '../policy/onnx/index.js';
import { logSoftmax } from '../policy/network.js';
import type { PolicyModel } from '../policy/builtin.js';
import { createRng } from '../util/rng.js';
import { parseFlags, UsageError } from './args.js';
import type { Io } from './main.js';

const USAGE = 'awb policy export-onnx --policy CHECKPOINT --out FILE.onnx [--json]\n'
  + 'awb policy info FILE.onnx|CHECKPOINT [--json]';

/** A file error a user can fix: shown as a usage error (exit 2) with the error's own message. */
function userError(e: unknown): never {
  if (e instanceof CheckpointError || e instanceof OnnxPolicyFileError || e instanceof OnnxPolicyDimsError || e instanceof OnnxInputShapeError || e instanceof OnnxRuntimeUnavailableError) {
    throw new UsageError(e.message, { cause: e });
  }
  throw e;
}

/** Largest |Δ| of scores and log-probs between the TypeScript forward and ONNX Runtime on seeded random feature matrices. */
async function parityCheck(model: PolicyModel, onnx: OnnxPolicyModel): Promise<number> {
  const rng = createRng('awb policy export-onnx/check');
  const F = model.net.dims.input;
  let worst = 0;
  for (const n of [1, 7, 64]) {
    const x = Float32Array.from({ length: n * F }, () => 2 * rng.next() - 1);
    const s = model.net.scores(x, n);
    const lp = logSoftmax(s, 0.7);
    const got = await onnx.forward(x, n, 0.7);
    for (let i = 0; i < n; i++) worst = Math.max(worst, Math.abs(s[i]! - got.scores[i]!), Math.abs(lp[i]! - got.logProbs[i]!));
  }
  return worst;
}

/** The check's bound: the parity test's tolerance (test/policy/onnx-parity.test.ts). */
const PARITY_TOL = 1e-4;

async function exportOnnx(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseFlags(argv, { policy: { type: 'string' }, out: { type: 'string' }, json: { type: 'boolean' } }, z.object({
    policy: z.string().min(1, 'a checkpoint path').describe('Builtin-policy checkpoint (awb-builtin-policy JSON)'),
    out: z.string().min(1, 'an output path').describe('Where to write the .onnx model'),
    json: z.boolean().optional(),
  }));
  if (positionals.length) throw new UsageError(`Unexpected ${JSON.stringify(positionals[0])}\n${USAGE}`);
  const src = resolve(values.policy);
  const out = resolve(values.out);
  let loaded: ReturnType<typeof loadCheckpoint>;
  try {
    loaded = loadCheckpoint(src);
  } catch (e) {
    userError(e);
  }
  const bytes = exportPolicyOnnx(out, loaded.model, loaded.meta);
  // Load what was written and compare with the TypeScript forward, so a file that ORT would score differently is never reported as fine.
  let check: { maxAbsDiff: number } | { skipped: string };
  try {
    const onnx = await OnnxPolicyModel.load(out);
    try {
      check = { maxAbsDiff: await parityCheck(loaded.model, onnx) };
    } finally {
      await onnx.close();
    }
  } catch (e) {
    if (!(e instanceof OnnxRuntimeUnavailableError)) throw e;
    check = { skipped: e.message };
  }
  const summary = { out, bytes, checkpoint: src, encoder: loaded.model.encoder.config, network: loaded.model.net.dims, check };
  if (values.json) io.out(JSON.stringify(summary));
  else {
    io.out(`Wrote ${out} (${bytes} bytes): builtin policy ${loaded.model.net.dims.input} features × ${loaded.model.net.dims.hidden} hidden, encoder ${JSON.stringify(loaded.model.encoder.config)}, opset 13`);
    io.out('maxAbsDiff' in check ? `ONNX Runtime vs TypeScript forward: max |Δ| ${check.maxAbsDiff.toExponential(2)} (bound ${PARITY_TOL})` : `Not checked in ONNX Runtime: ${check.skipped}`);
  }
  if ('maxAbsDiff' in check && !(check.maxAbsDiff <= PARITY_TOL)) {
    io.err(`awb: the exported model disagrees with the TypeScript forward by ${check.maxAbsDiff} > ${PARITY_TOL}`);
    return 1;
  }
  return 0;
}

async function info(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseFlags(argv, { json: { type: 'boolean' } }, z.object({ json: z.boolean().optional() }));
  if (positionals.length !== 1) throw new UsageError(`awb policy info takes one file\n${USAGE}`);
  const path = resolve(positionals[0]!);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw new UsageError(`Cannot read ${path}: ${(e as Error).message}`, { cause: e });
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  // A checkpoint is JSON (starts with '{'); anything else is read as an ONNX model.
  if (bytes[0] === 0x7b) {
    let ck: ReturnType<typeof loadCheckpoint>;
    try {
      ck = loadCheckpoint(path);
    } catch (e) {
      userError(e);
    }
    const summary = { kind: 'checkpoint', path, sha256, encoder: ck.model.encoder.config, network: ck.model.net.dims, parameters: ck.model.net.params.length, meta: ck.meta };
    io.out(values.json ? JSON.stringify(summary) : [
      `${path}: builtin-policy checkpoint, sha256 ${sha256.slice(0, 12)}`,
      `  network ${summary.network.input} features × ${summary.network.hidden} hidden (${summary.parameters} parameters), encoder ${JSON.stringify(summary.encoder)}`,
      `  meta ${JSON.stringify(ck.meta)}`,
    ].join('\n'));
    return 0;
  }
  let onnx: OnnxPolicyModel;
  try {
    onnx = await OnnxPolicyModel.fromBytes(bytes, path);
  } catch (e) {
    userError(e);
  }
  await onnx.close();
  const m = onnx.metadata;
  const summary = { kind: 'onnx', path, sha256, irVersion: onnx.info.irVersion, opset: onnx.info.opset, producer: onnx.info.producer, awbProducer: m.producer, encoder: m.encoder, network: m.network, meta: m.meta };
  io.out(values.json ? JSON.stringify(summary) : [
    `${path}: ONNX builtin policy (IR ${summary.irVersion}, opset ${summary.opset}, written by ${summary.producer}; ${m.producer}), sha256 ${sha256.slice(0, 12)}`,
    `  network ${m.network.input} features × ${m.network.hidden} hidden, encoder ${JSON.stringify(m.encoder)}; loads in ONNX Runtime`,
    `  meta ${JSON.stringify(m.meta)}`,
  ].join('\n'));
  return 0;
}

/** `awb policy export-onnx | info`: the builtin policy as an ONNX model (docs/policy.md, "ONNX and PyTorch"). */
export async function policyCommand(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'export-onnx':
      return exportOnnx(rest, io);
    case 'info':
      return info(rest, io);
    default:
      throw new UsageError(USAGE);
  }
}
