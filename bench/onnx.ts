/**
 * The builtin policy's forward in TypeScript vs ONNX Runtime (issue 8): scores + log-softmax for 10,
 * 50 and 100 candidates, on the same seeded feature matrices, median and p95 per call; plus the cold
 * cost of loading a model (import of onnxruntime-node on first use, then a session per model).
 *   npm run bench -- onnx
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createModel } from '../core/policy/builtin.js';
import { exportPolicyOnnx, OnnxPolicyModel } from '../core/policy/onnx/index.js';
import { createRng } from '../core/util/rng.js';
import { fmt, stats, time } from './stats.js';

const SIZES = [10, 50, 100] as const;
const WARMUP = 200;
const SAMPLES = 3000;

async function timeAsync(fn: () => Promise<unknown>): Promise<number> {
  const t = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

export async function benchOnnx(): Promise<Record<string, unknown>> {
  const results: Record<string, unknown> = {};
  const model = createModel(createRng('bench/onnx'));
  const F = model.net.dims.input;
  const dir = mkdtempSync(join(tmpdir(), 'awb-bench-onnx-'));
  try {
    const path = join(dir, 'policy.onnx');
    const bytes = exportPolicyOnnx(path, model);
    results.dims = { features: F, hidden: model.net.dims.hidden, fileBytes: bytes };
    console.log(`features ${F}, hidden ${model.net.dims.hidden}, model file ${bytes} bytes`);

    let t0 = performance.now();
    const first = await OnnxPolicyModel.load(path);
    const coldMs = performance.now() - t0;
    await first.close();
    t0 = performance.now();
    const onnx = await OnnxPolicyModel.load(path);
    const warmLoadMs = performance.now() - t0;
    results.load = { firstMs: coldMs, nextMs: warmLoadMs };
    console.log(`load: first ${coldMs.toFixed(1)} ms (imports onnxruntime-node), next ${warmLoadMs.toFixed(1)} ms (one session, intra-op threads 1)`);

    try {
      const rng = createRng('bench/onnx/x');
      for (const n of SIZES) {
        const x = Float32Array.from({ length: n * F }, () => 2 * rng.next() - 1);
        for (let i = 0; i < WARMUP; i++) {
          model.net.logProbs(x, n);
          await onnx.forward(x, n);
        }
        // Interleaved, so drift in the machine's load affects both runtimes alike.
        const ts: number[] = [];
        const ort: number[] = [];
        for (let i = 0; i < SAMPLES; i++) {
          ts.push(time(() => model.net.logProbs(x, n)));
          ort.push(await timeAsync(() => onnx.forward(x, n)));
        }
        const s = { typescript: stats(ts), onnxruntime: stats(ort) };
        results[`forward${n}`] = s;
        console.log(`${String(n).padStart(3)} candidates  TypeScript ${fmt(s.typescript)}`);
        console.log(`${' '.repeat(15)}ONNX RT    ${fmt(s.onnxruntime)}  (ORT/TS median ${(s.onnxruntime.median / s.typescript.median).toFixed(2)}×)`);
      }
    } finally {
      await onnx.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}
