import { DataType, modelBytes, node, tensor, valueInfo } from './proto.js';
import type { PolicyModel } from '../builtin.js';
import type { ScorerNetwork } from '../network.js';
import { IO_NAMES, policyMetadataProps } from './metadata.js';
import { writeFileAtomic } from '../../util/atomic-write.js';

export const ONNX_OPSET = 13;

/**
 * The builtin policy's scorer as an ONNX graph (opset 13, standard ops only):
 *
 *   pre       = Gemm(features, W1, b1, transB = 1)        [n, H]   W1 x + b1 per row
 *   hidden    = Tanh(pre)
 *   scores    = MatMul(hidden, w2) + MatMul(features, wl)  [n]     s(x) = w2 · tanh(W1 x + b1) + wl · x
 *   log_probs = LogSoftmax(scores / temperature, axis 0)  [n]     s_a/T − log Σ_j exp(s_j/T)
 *
 * (core/policy/network.ts). The weights are the network's float32 parameters unchanged, sliced from
 * the flat buffer (W1 row-major H×F, then b1, w2, wl); ONNX Runtime sums in float32 where the
 * TypeScript forward sums in float64, which the parity test bounds at 1e-4.
 */
export function policyOnnxBytes(model: PolicyModel, meta: Record<string, unknown> = {}): Uint8Array {
  return scorerOnnxBytes(model.net, policyMetadataProps({ encoder: model.encoder.config, network: { ...model.net.dims }, producer: 'awb (core/policy/onnx/export.ts)', meta }));
}

/** The graph of one network with the given metadata_props (policyOnnxBytes' body; tests write inconsistent files with it). */
export function scorerOnnxBytes(net: ScorerNetwork, metadata: Readonly<Record<string, string>>, opts: { dynamicN?: boolean } = {}): Uint8Array {
  const { input: F, hidden: H } = net.dims;
  const p = net.params;
  const w1 = p.subarray(0, H * F);
  const b1 = p.subarray(H * F, H * F + H);
  const w2 = p.subarray(H * F + H, H * F + 2 * H);
  const wl = p.subarray(H * F + 2 * H, H * F + 2 * H + F);
  const { features, temperature, scores, logProbs } = IO_NAMES;
  // The candidate count is symbolic; a fixed one (dynamicN false, for tests) makes a model the loader refuses.
  const n = opts.dynamicN === false ? 3 : 'n';
  return modelBytes({
    name: 'awb_builtin_policy',
    nodes: [
      node('Gemm', [features, 'W1', 'b1'], ['pre'], [{ name: 'transB', int: 1 }]),
      node('Tanh', ['pre'], ['hidden']),
      node('MatMul', ['hidden', 'w2'], ['score_hidden']),
      node('MatMul', [features, 'wl'], ['score_skip']),
      node('Add', ['score_hidden', 'score_skip'], [scores]),
      node('Div', [scores, temperature], ['scaled']),
      node('LogSoftmax', ['scaled'], [logProbs], [{ name: 'axis', int: 0 }]),
    ],
    initializers: [tensor('W1', [H, F], w1), tensor('b1', [H], b1), tensor('w2', [H], w2), tensor('wl', [F], wl)],
    inputs: [valueInfo(features, DataType.FLOAT, [n, F]), valueInfo(temperature, DataType.FLOAT, [])],
    outputs: [valueInfo(scores, DataType.FLOAT, [n]), valueInfo(logProbs, DataType.FLOAT, [n])],
  }, {
    opset: ONNX_OPSET,
    producer: 'awb',
    docString: 'The awb builtin policy scorer: s(x) = w2·tanh(W1 x + b1) + wl·x per candidate row, log-softmax over candidates at temperature T',
    metadata,
  });
}

/** Writes the export atomically (a temporary file renamed over the target); returns its size in bytes. */
export function exportPolicyOnnx(path: string, model: PolicyModel, meta: Record<string, unknown> = {}): number {
  const bytes = policyOnnxBytes(model, meta);
  writeFileAtomic(path, bytes);
  return bytes.length;
}
