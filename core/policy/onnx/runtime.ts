import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type * as Ort from 'onnxruntime-node';
import { ProtoDecodeError, readModelInfo, type ModelInfo } from './proto.js';
import { createEncoder, type TextEncoder } from '../encoder.js';
import type { NetworkDims } from '../network.js';
import { OnnxInputShapeError, OnnxPolicyDimsError, OnnxPolicyFileError, OnnxRuntimeUnavailableError, reasonOf } from './errors.js';
import { IO_NAMES, parsePolicyMetadata, type OnnxPolicyMetadata } from './metadata.js';

export interface OnnxForward {
  /** s(x) per candidate, float32 as ONNX Runtime computed it. */
  scores: Float32Array;
  /** log softmax(s / T) over the candidates. */
  logProbs: Float32Array;
}

export interface OnnxSessionOptions {
  /** ONNX Runtime's intra-op threads (default 1: the workbench runs several devices side by side, and a forward over ~100 rows is too small to split). */
  threads?: number;
}

type OrtModule = typeof Ort;

let runtime: Promise<OrtModule> | null = null;

/** onnxruntime-node, imported on first use only (its native library is loaded then, not when awb starts). */
export function loadOnnxRuntime(): Promise<OrtModule> {
  runtime ??= import('onnxruntime-node').then(
    (m) => m,
    (e: unknown) => {
      runtime = null;
      throw new OnnxRuntimeUnavailableError(reasonOf(e));
    },
  );
  return runtime;
}

/** The shape the graph declares for an input or output, or null when it does not say (a model without shapes). */
function declaredShape(session: Ort.InferenceSession, name: string): ReadonlyArray<number | string> | null {
  const m = session.inputMetadata.find((v) => v.name === name) ?? session.outputMetadata.find((v) => v.name === name);
  return m && m.isTensor ? m.shape : null;
}

/**
 * The builtin policy's scorer running in ONNX Runtime: a model exported by `awb policy export-onnx`
 * or by the PyTorch trainer (awb_trainer.policy.export_onnx). The file describes itself (encoder and
 * dims in metadata_props), so the workbench builds the same candidate features in TypeScript and only
 * the scoring runs in ORT. Loading checks the metadata, the graph's input/output names and declared
 * shapes against it; forward() checks every call's shapes.
 */
export class OnnxPolicyModel {
  readonly encoder: TextEncoder;
  /** The temperature input's declared shape: a scalar ([]) or [1]. */
  private readonly temperatureDims: readonly number[];

  private constructor(
    readonly path: string,
    readonly sha256: string,
    readonly metadata: OnnxPolicyMetadata,
    readonly info: ModelInfo,
    private readonly ort: OrtModule,
    private readonly session: Ort.InferenceSession,
  ) {
    this.encoder = createEncoder(metadata.encoder);
    this.temperatureDims = declaredShape(session, IO_NAMES.temperature)?.length === 1 ? [1] : [];
  }

  get dims(): NetworkDims {
    return this.metadata.network;
  }

  static async load(path: string, opts: OnnxSessionOptions = {}): Promise<OnnxPolicyModel> {
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(path);
    } catch (e) {
      throw new OnnxPolicyFileError(path, [`cannot read (${reasonOf(e)})`]);
    }
    return OnnxPolicyModel.fromBytes(bytes, path, opts);
  }

  /** `path` names the model in errors and in what the run records. */
  static async fromBytes(bytes: Uint8Array, path: string, opts: OnnxSessionOptions = {}): Promise<OnnxPolicyModel> {
    const metadata = OnnxPolicyModel.inspect(bytes, path);
    const ort = await loadOnnxRuntime();
    let session: Ort.InferenceSession;
    try {
      session = await ort.InferenceSession.create(bytes, { intraOpNumThreads: opts.threads ?? 1, interOpNumThreads: 1, logSeverityLevel: 3 });
    } catch (e) {
      throw new OnnxPolicyFileError(path, [`ONNX Runtime refused the model (${reasonOf(e)})`]);
    }
    try {
      checkGraph(session, metadata.metadata.network, path);
    } catch (e) {
      await session.release();
      throw e;
    }
    return new OnnxPolicyModel(path, createHash('sha256').update(bytes).digest('hex'), metadata.metadata, metadata.info, ort, session);
  }

  /** The file's header and awb metadata, checked, without ONNX Runtime (what `awb policy info` shows). */
  static inspect(bytes: Uint8Array, path: string): { info: ModelInfo; metadata: OnnxPolicyMetadata } {
    let info: ModelInfo;
    try {
      info = readModelInfo(bytes);
    } catch (e) {
      if (e instanceof ProtoDecodeError) throw new OnnxPolicyFileError(path, [`not an ONNX model (${e.message})`]);
      throw e;
    }
    if (info.irVersion === null) throw new OnnxPolicyFileError(path, ['not an ONNX model (no ir_version)']);
    return { info, metadata: parsePolicyMetadata(info.metadata, path) };
  }

  /** Scores and log-probabilities of the n candidates in the row-major n × F matrix x, at temperature T. */
  async forward(x: Float32Array, n: number, temperature = 1): Promise<OnnxForward> {
    const F = this.dims.input;
    if (!Number.isInteger(n) || n < 1 || x.length !== n * F) throw new OnnxInputShapeError(this.path, `features must be n × ${F} with n ≥ 1`, { length: x.length, n });
    if (!(Number.isFinite(temperature) && temperature > 0)) throw new OnnxInputShapeError(this.path, 'temperature must be a finite number > 0', temperature);
    const out = await this.session.run({
      [IO_NAMES.features]: new this.ort.Tensor('float32', x, [n, F]),
      [IO_NAMES.temperature]: new this.ort.Tensor('float32', Float32Array.of(temperature), this.temperatureDims),
    });
    const scores = out[IO_NAMES.scores];
    const logProbs = out[IO_NAMES.logProbs];
    for (const [name, t] of [[IO_NAMES.scores, scores], [IO_NAMES.logProbs, logProbs]] as const) {
      if (!t || t.type !== 'float32' || t.dims.length !== 1 || t.dims[0] !== n) {
        throw new OnnxPolicyDimsError(this.path, `output ${name} must be float32 [${n}]`, t ? { type: t.type, dims: t.dims } : null);
      }
    }
    return { scores: scores!.data as Float32Array, logProbs: logProbs!.data as Float32Array };
  }

  /** Frees the ORT session; the model cannot be used afterwards. */
  async close(): Promise<void> {
    await this.session.release();
  }
}

/** Input and output names as the protocol fixes them, and declared shapes that agree with the metadata's dims. */
function checkGraph(session: Ort.InferenceSession, network: NetworkDims, path: string): void {
  const missing = [
    ...[IO_NAMES.features, IO_NAMES.temperature].filter((n) => !session.inputNames.includes(n)).map((n) => `input ${n}`),
    ...[IO_NAMES.scores, IO_NAMES.logProbs].filter((n) => !session.outputNames.includes(n)).map((n) => `output ${n}`),
  ];
  if (missing.length) {
    throw new OnnxPolicyFileError(path, [`the graph lacks ${missing.join(', ')} (has inputs ${JSON.stringify(session.inputNames)}, outputs ${JSON.stringify(session.outputNames)})`]);
  }
  const fShape = declaredShape(session, IO_NAMES.features);
  if (fShape && (fShape.length !== 2 || (typeof fShape[1] === 'number' && fShape[1] !== network.input))) {
    throw new OnnxPolicyDimsError(path, `input features must be [n, ${network.input}] as the metadata says`, fShape);
  }
  // A fixed candidate count (an export traced without a dynamic axis) would fail on the next screen.
  if (fShape && typeof fShape[0] === 'number' && fShape[0] > 0) {
    throw new OnnxPolicyDimsError(path, 'input features must have a dynamic first dimension (the candidate count n)', fShape);
  }
  const tShape = declaredShape(session, IO_NAMES.temperature);
  if (tShape && !(tShape.length === 0 || (tShape.length === 1 && (tShape[0] === 1 || typeof tShape[0] === 'string')))) {
    throw new OnnxPolicyDimsError(path, 'input temperature must be a scalar or [1]', tShape);
  }
  for (const name of [IO_NAMES.scores, IO_NAMES.logProbs]) {
    const s = declaredShape(session, name);
    if (s && s.length !== 1) throw new OnnxPolicyDimsError(path, `output ${name} must be one-dimensional [n]`, s);
  }
}
