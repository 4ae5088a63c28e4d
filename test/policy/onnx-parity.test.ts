import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PolicyModel } from '../../core/policy/builtin.js';
import { deserializeCheckpoint, saveCheckpoint } from '../../core/policy/checkpoint.js';
import { logSoftmax } from '../../core/policy/network.js';
import { exportPolicyOnnx, OnnxPolicyModel } from '../../core/policy/onnx/index.js';
import {
  featureCases, float32Base64, maxAbsDiff, oracleScreens, runTrainerPolicy, torchMissing, trainedIshModel, type FeatureCase,
} from './onnx-fixtures.js';

/**
 * The builtin policy's forward in four runtimes on the same inputs: TypeScript (float64 sums),
 * ONNX Runtime on the TypeScript export, PyTorch, and ONNX Runtime on the PyTorch export. Inputs are
 * the candidate feature matrices of real SimDroid screens (oracle episodes), scored by a seeded
 * model whose every parameter was moved off its init. All must agree within 1e-4 on scores and
 * log-probs at T = 1 and T = 0.5.
 */
const TOL = 1e-4;
const TEMPERATURES = [1, 0.5] as const;
const torchReason = torchMissing();
if (torchReason) console.log(`onnx-parity: PyTorch parts skipped: ${torchReason}`);

let dir: string;
let model: PolicyModel;
let cases: FeatureCase[];
let ckpt: string;

/** TypeScript's reference values per temperature and case. */
function tsForward(T: number): Array<{ scores: Float64Array; logProbs: Float64Array }> {
  return cases.map(({ features, n }) => {
    const scores = model.net.scores(features, n);
    return { scores, logProbs: logSoftmax(scores, T) };
  });
}

async function ortForward(path: string, T: number): Promise<Array<{ scores: Float32Array; logProbs: Float32Array }>> {
  const ort = await OnnxPolicyModel.load(path);
  try {
    const out = [];
    for (const c of cases) out.push(await ort.forward(c.features, c.n, T));
    return out;
  } finally {
    await ort.close();
  }
}

function expectAgree(label: string, got: Array<{ scores: ArrayLike<number>; logProbs: ArrayLike<number> }>, want: ReturnType<typeof tsForward>): void {
  expect(got).toHaveLength(want.length);
  let worst = 0;
  got.forEach((g, i) => {
    worst = Math.max(worst, maxAbsDiff(g.scores, want[i]!.scores), maxAbsDiff(g.logProbs, want[i]!.logProbs));
  });
  console.log(`onnx-parity: ${label}: max |Δ| ${worst.toExponential(2)} over ${want.length} screens`);
  expect(worst).toBeLessThanOrEqual(TOL);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'awb-onnx-parity-'));
  model = trainedIshModel('onnx-parity');
  // Every 5th template's oracle screens, plus a one-candidate step (log π = 0) and a wide one.
  cases = featureCases(model, await oracleScreens(5));
  const F = model.net.dims.input;
  const first = cases[0]!;
  cases.push({ n: 1, features: first.features.slice(0, F) });
  const wide = cases.reduce((a, b) => (b.n > a.n ? b : a));
  cases.push({ n: wide.n * 2, features: Float32Array.from([...wide.features, ...wide.features].map((v, i) => v * (i % 3 === 0 ? -1 : 1))) });
  ckpt = join(dir, 'policy.json');
  saveCheckpoint(ckpt, model, { seed: 'onnx-parity' });
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('builtin policy parity across TypeScript, ONNX Runtime and PyTorch', () => {
  it('the inputs are real screens with spread scores (a test that cannot pass by accident)', () => {
    expect(cases.length).toBeGreaterThanOrEqual(10);
    expect(Math.max(...cases.map((c) => c.n))).toBeGreaterThanOrEqual(20);
    // b1 and wl moved off zero, and the scores differ between candidates by more than the tolerance.
    const { scores } = tsForward(1)[0]!;
    expect(Math.max(...scores) - Math.min(...scores)).toBeGreaterThan(100 * TOL);
  });

  it.each(TEMPERATURES)('ONNX Runtime on the TypeScript export agrees with the TypeScript forward within 1e-4 (T = %s)', async (T) => {
    const path = join(dir, 'ts.onnx');
    exportPolicyOnnx(path, model);
    expectAgree(`ORT(TS export) vs TS, T=${T}`, await ortForward(path, T), tsForward(T));
  });

  it.skipIf(torchReason !== null)('PyTorch and ONNX Runtime on the PyTorch export agree with TypeScript within 1e-4 at every temperature', async () => {
    for (const T of TEMPERATURES) {
      const input = join(dir, `in-${T}.json`);
      writeFileSync(input, JSON.stringify({ temperature: T, cases: cases.map((c) => ({ n: c.n, features: float32Base64(c.features) })) }));
      const py = JSON.parse(runTrainerPolicy(['forward', '--checkpoint', ckpt, '--input', input])) as { results: Array<{ scores: number[]; log_probs: number[] }> };
      expectAgree(`PyTorch vs TS, T=${T}`, py.results.map((r) => ({ scores: r.scores, logProbs: r.log_probs })), tsForward(T));
    }
    const torchOnnx = join(dir, 'torch.onnx');
    runTrainerPolicy(['export-onnx', '--checkpoint', ckpt, '--out', torchOnnx]);
    const loaded = await OnnxPolicyModel.load(torchOnnx);
    expect(loaded.info.producer).toBe('pytorch');
    expect(loaded.metadata.encoder).toEqual(model.encoder.config);
    expect(loaded.metadata.network).toEqual(model.net.dims);
    expect(loaded.metadata.meta).toEqual({ seed: 'onnx-parity' });
    await loaded.close();
    for (const T of TEMPERATURES) expectAgree(`ORT(PyTorch export) vs TS, T=${T}`, await ortForward(torchOnnx, T), tsForward(T));
  }, 60_000);

  it.skipIf(torchReason !== null)('a checkpoint round trip TypeScript → Python → TypeScript is bit-exact', () => {
    const back = join(dir, 'back.json');
    runTrainerPolicy(['roundtrip', '--checkpoint', ckpt, '--out', back]);
    const original = JSON.parse(readFileSync(ckpt, 'utf8')) as Record<string, unknown>;
    const returned = JSON.parse(readFileSync(back, 'utf8')) as Record<string, unknown>;
    expect(returned).toEqual(original);
    const { model: again, meta } = deserializeCheckpoint(readFileSync(back, 'utf8'), back);
    expect(meta).toEqual({ seed: 'onnx-parity' });
    expect(again.encoder.config).toEqual(model.encoder.config);
    // Bit patterns, not values: a NaN payload or -0 would also have to survive.
    expect(new Uint32Array(again.net.params.buffer)).toEqual(new Uint32Array(model.net.params.buffer));
  }, 30_000);
});
