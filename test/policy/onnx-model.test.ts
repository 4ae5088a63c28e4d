import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimDroid } from '../../emulators/simdroid/simdroid.js';
import { runEpisode } from '../../core/episode/runner.js';
import { BuiltinPolicy, createModel } from '../../core/policy/builtin.js';
import { featureDim } from '../../core/policy/features.js';
import { ScorerNetwork } from '../../core/policy/network.js';
import {
  choose, exportPolicyOnnx, META, OnnxInputShapeError, OnnxPolicy, OnnxPolicyDimsError, OnnxPolicyFileError, OnnxPolicyModel,
  policyMetadataProps, policyOnnxBytes, scorerOnnxBytes,
} from '../../core/policy/onnx/index.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { DataType, modelBytes, node, ProtoDecodeError, readModelInfo, valueInfo } from '../../core/policy/onnx/proto.js';
import { createRng } from '../../core/util/rng.js';
import { trainedIshModel } from './onnx-fixtures.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'awb-onnx-model-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, bytes: Uint8Array): string {
  const p = join(dir, name);
  writeFileSync(p, bytes);
  return p;
}

const ENC16 = { kind: 'hashed-ngram', dim: 16, charN: 3 } as const;

describe('ONNX protobuf reader (core/policy/onnx/proto.ts)', () => {
  it('reads back the header and metadata the writer put in, including long and non-ASCII values', () => {
    const meta = { a: 'x'.repeat(500), 'awb.ü': 'naïve', empty: '' };
    const bytes = modelBytes({ name: 'g', nodes: [node('Identity', ['x'], ['y'])], initializers: [], inputs: [valueInfo('x', DataType.FLOAT, [2])], outputs: [valueInfo('y', DataType.FLOAT, [2])] }, { opset: 17, producer: 'me', metadata: meta });
    expect(readModelInfo(bytes)).toEqual({ irVersion: 8, producer: 'me', opset: 17, metadata: meta });
  });

  it('refuses truncated bytes and unknown wire types with the offset', () => {
    const bytes = policyOnnxBytes(createModel(createRng('proto')));
    expect(() => readModelInfo(bytes.subarray(0, bytes.length - 7))).toThrow(ProtoDecodeError);
    expect(() => readModelInfo(Uint8Array.of(0x0b))).toThrow(/unsupported wire type 3 \(field 1\) at byte 0/);
  });
});

describe('OnnxPolicyModel: loading refuses what it cannot score with, naming the file', () => {
  it('an unreadable file and random bytes are OnnxPolicyFileError', async () => {
    await expect(OnnxPolicyModel.load(join(dir, 'missing.onnx'))).rejects.toThrow(OnnxPolicyFileError);
    const p = file('junk.onnx', Uint8Array.from({ length: 64 }, (_, i) => (i * 37 + 11) & 0xff));
    await expect(OnnxPolicyModel.load(p)).rejects.toThrow(new RegExp(`Bad ONNX policy ${p}: not an ONNX model`));
  });

  it('a valid ONNX model without the awb metadata is not a policy export', async () => {
    const bytes = modelBytes({ name: 'g', nodes: [node('Identity', ['x'], ['y'])], initializers: [], inputs: [valueInfo('x', DataType.FLOAT, [2])], outputs: [valueInfo('y', DataType.FLOAT, [2])] });
    await expect(OnnxPolicyModel.load(file('plain.onnx', bytes))).rejects.toThrow(/awb\.format is null, expected "awb-builtin-policy-onnx"/);
  });

  it('metadata whose network input is not the encoder feature size is OnnxPolicyDimsError with the dims', async () => {
    const net = ScorerNetwork.init({ input: featureDim(32), hidden: 4 }, createRng('dims'));
    const props = policyMetadataProps({ encoder: ENC16, network: net.dims, producer: 't', meta: {} });
    const err = await OnnxPolicyModel.load(file('dims.onnx', scorerOnnxBytes(net, props))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OnnxPolicyDimsError);
    expect((err as OnnxPolicyDimsError).got).toEqual({ input: 264, hidden: 4 });
    expect((err as Error).message).toMatch(/network input 264 is not the feature size 152 of encoder dim 16/);
  });

  it('a graph whose features input disagrees with consistent metadata is OnnxPolicyDimsError', async () => {
    const net = ScorerNetwork.init({ input: featureDim(32), hidden: 4 }, createRng('graph'));
    const props = policyMetadataProps({ encoder: ENC16, network: { input: featureDim(16), hidden: 4 }, producer: 't', meta: {} });
    await expect(OnnxPolicyModel.load(file('graph.onnx', scorerOnnxBytes(net, props)))).rejects.toThrow(/input features must be \[n, 152\] as the metadata says \(got \["n",264\]\)/);
  });

  it('a graph with a fixed candidate count is refused (it would fail on the next screen)', async () => {
    const model = createModel(createRng('fixed'));
    const props = policyMetadataProps({ encoder: model.encoder.config, network: model.net.dims, producer: 't', meta: {} });
    await expect(OnnxPolicyModel.load(file('fixed.onnx', scorerOnnxBytes(model.net, props, { dynamicN: false })))).rejects.toThrow(/dynamic first dimension.*\(got \[3,264\]\)/);
  });

  it('a graph without the protocol output names says which are missing', async () => {
    const F = featureDim(16);
    const bytes = modelBytes({
      name: 'g', nodes: [node('ReduceSum', ['features'], ['total'], [{ name: 'keepdims', int: 0 }]), node('Identity', ['temperature'], ['t'])], initializers: [],
      inputs: [valueInfo('features', DataType.FLOAT, ['n', F]), valueInfo('temperature', DataType.FLOAT, [])],
      outputs: [valueInfo('total', DataType.FLOAT, []), valueInfo('t', DataType.FLOAT, [])],
    }, { metadata: policyMetadataProps({ encoder: ENC16, network: { input: F, hidden: 2 }, producer: 't', meta: {} }) });
    await expect(OnnxPolicyModel.load(file('names.onnx', bytes))).rejects.toThrow(/lacks output scores, output log_probs/);
  });

  it('broken metadata JSON and a future version are listed as problems', async () => {
    const model = createModel(createRng('meta'));
    const props = { ...policyMetadataProps({ encoder: model.encoder.config, network: model.net.dims, producer: 't', meta: {} }), [META.version]: '2', [META.encoder]: '{"kind":' };
    const err = await OnnxPolicyModel.load(file('meta.onnx', scorerOnnxBytes(model.net, props))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OnnxPolicyFileError);
    expect((err as OnnxPolicyFileError).problems).toEqual([
      'metadata awb.version is "2", this workbench reads 1',
      'metadata awb.encoder is not JSON: "{\\"kind\\":"',
    ]);
  });
});

describe('OnnxPolicyModel.forward', () => {
  it('refuses a feature matrix that is not n × F and a temperature that is not > 0', async () => {
    const model = createModel(createRng('fwd'));
    const p = join(dir, 'fwd.onnx');
    exportPolicyOnnx(p, model);
    const ort = await OnnxPolicyModel.load(p);
    try {
      const F = model.net.dims.input;
      await expect(ort.forward(new Float32Array(F * 2 + 1), 2)).rejects.toThrow(OnnxInputShapeError);
      await expect(ort.forward(new Float32Array(0), 0)).rejects.toThrow(/features must be n × 264 with n ≥ 1 \(got \{"length":0,"n":0\}\)/);
      await expect(ort.forward(new Float32Array(F), 1, 0)).rejects.toThrow(/temperature must be a finite number > 0 \(got 0\)/);
      const ok = await ort.forward(new Float32Array(F * 3).fill(0.1), 3, 2);
      expect(Array.from(ok.logProbs).map((v) => Math.exp(v)).reduce((a, b) => a + b)).toBeCloseTo(1, 5);
    } finally {
      await ort.close();
    }
  });
});

describe('OnnxPolicy', () => {
  it('choose: greedy takes the first maximum; sampling follows the distribution', () => {
    expect(choose([-2, -0.5, -0.5, -3], { mode: 'greedy' })).toBe(1);
    const lp = [Math.log(0.2), Math.log(0.8)];
    const rng = createRng('choose');
    let ones = 0;
    for (let i = 0; i < 2000; i++) ones += choose(lp, { mode: 'sample', temperature: 1, rng });
    expect(ones / 2000).toBeGreaterThan(0.76);
    expect(ones / 2000).toBeLessThan(0.84);
  });

  it('plays the same greedy episode on SimDroid as the TypeScript builtin policy with the same parameters', async () => {
    const model = trainedIshModel('onnx-episode');
    const p = join(dir, 'episode.onnx');
    exportPolicyOnnx(p, model);
    const ort = await OnnxPolicyModel.load(p);
    const d = new SimDroid();
    try {
      for (const id of ['ContactsAddContact', 'SystemWifiTurnOff']) {
        const instance = instantiate(getTemplate(id), 3);
        const ts = await runEpisode({ device: d, instance, policy: new BuiltinPolicy(model), maxSteps: 8 });
        const onnx = await runEpisode({ device: d, instance, policy: new OnnxPolicy(ort), maxSteps: 8 });
        expect(onnx.steps.map((s) => s.action)).toEqual(ts.steps.map((s) => s.action));
        expect(onnx.steps.length).toBeGreaterThan(0);
      }
    } finally {
      d.close();
      await ort.close();
    }
  }, 60_000);
});
