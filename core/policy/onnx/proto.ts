/**
 * A minimal protobuf writer and reader for ONNX ModelProto (onnx/onnx.proto, proto2): enough to
 * write a small model (the builtin policy's export, the tests' tiny sentence encoder) and to read a
 * model's metadata_props, without Python or the onnx package. Field numbers are onnx.proto's; only
 * the messages and fields awb uses are covered.
 */

// protobuf wire types
const VARINT = 0;
const I64 = 1;
const LEN = 2;
const I32 = 5;

/** Bytes of one message, built field by field. */
export class ProtoWriter {
  private readonly parts: Uint8Array[] = [];

  private varint(v: bigint): void {
    // int64 fields carry negatives as their 64-bit two's complement (10 bytes), as protobuf does.
    let x = BigInt.asUintN(64, v);
    const out: number[] = [];
    do {
      let b = Number(x & 0x7fn);
      x >>= 7n;
      if (x !== 0n) b |= 0x80;
      out.push(b);
    } while (x !== 0n);
    this.parts.push(Uint8Array.from(out));
  }

  private key(field: number, wire: number): void {
    this.varint(BigInt((field << 3) | wire));
  }

  int(field: number, v: number | bigint): this {
    this.key(field, VARINT);
    this.varint(BigInt(v));
    return this;
  }

  /** A 32-bit float field (wire type I32, little-endian). */
  float(field: number, v: number): this {
    this.key(field, I32);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, v, true);
    this.parts.push(b);
    return this;
  }

  bytes(field: number, b: Uint8Array): this {
    this.key(field, LEN);
    this.varint(BigInt(b.length));
    this.parts.push(b);
    return this;
  }

  string(field: number, s: string): this {
    return this.bytes(field, new TextEncoder().encode(s));
  }

  message(field: number, m: ProtoWriter): this {
    return this.bytes(field, m.finish());
  }

  finish(): Uint8Array {
    const n = this.parts.reduce((s, p) => s + p.length, 0);
    const out = new Uint8Array(n);
    let o = 0;
    for (const p of this.parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  }
}

/** TensorProto.DataType values used here. */
export const DataType = { FLOAT: 1, INT64: 7 } as const;
export type DataTypeCode = (typeof DataType)[keyof typeof DataType];

/** A dimension: a fixed size or a symbolic name such as 'batch'. */
export type Dim = number | string;

/** TensorProto: dims = 1, data_type = 2, name = 8, raw_data = 9 (little-endian). */
export function tensor(name: string, dims: readonly number[], data: Float32Array | BigInt64Array): ProtoWriter {
  const t = new ProtoWriter();
  for (const d of dims) t.int(1, d);
  t.int(2, data instanceof Float32Array ? DataType.FLOAT : DataType.INT64);
  t.string(8, name);
  const raw = new Uint8Array(data.byteLength);
  const view = new DataView(raw.buffer);
  data.forEach((v: number | bigint, i: number) => {
    if (typeof v === 'bigint') view.setBigInt64(i * 8, v, true);
    else view.setFloat32(i * 4, v, true);
  });
  return t.bytes(9, raw);
}

/**
 * ValueInfoProto (name = 1, type = 2) → TypeProto.tensor_type = 1 → Tensor (elem_type = 1,
 * shape = 2) → TensorShapeProto.dim = 1 → Dimension (dim_value = 1 | dim_param = 2). An empty
 * dims list is a scalar (a shape with no dimensions, which is not the same as no shape).
 */
export function valueInfo(name: string, elemType: DataTypeCode, dims: readonly Dim[]): ProtoWriter {
  const shape = new ProtoWriter();
  for (const d of dims) shape.message(1, typeof d === 'number' ? new ProtoWriter().int(1, d) : new ProtoWriter().string(2, d));
  const tensorType = new ProtoWriter().int(1, elemType).message(2, shape);
  return new ProtoWriter().string(1, name).message(2, new ProtoWriter().message(1, tensorType));
}

/** AttributeProto: name = 1, f = 2, i = 3, ints = 8, type = 20 (FLOAT = 1, INT = 2, INTS = 7). */
export type Attribute = { name: string; int: number } | { name: string; ints: readonly number[] } | { name: string; float: number };

function attribute(a: Attribute): ProtoWriter {
  const w = new ProtoWriter().string(1, a.name);
  if ('int' in a) return w.int(3, a.int).int(20, 2);
  if ('float' in a) return w.float(2, a.float).int(20, 1);
  for (const v of a.ints) w.int(8, v);
  return w.int(20, 7);
}

/** NodeProto: input = 1, output = 2, name = 3, op_type = 4, attribute = 5. */
export function node(op: string, inputs: readonly string[], outputs: readonly string[], attrs: readonly Attribute[] = []): ProtoWriter {
  const n = new ProtoWriter();
  for (const i of inputs) n.string(1, i);
  for (const o of outputs) n.string(2, o);
  n.string(3, `${op}_${outputs[0]}`).string(4, op);
  for (const a of attrs) n.message(5, attribute(a));
  return n;
}

export interface GraphSpec {
  name: string;
  nodes: readonly ProtoWriter[];
  initializers: readonly ProtoWriter[];
  inputs: readonly ProtoWriter[];
  outputs: readonly ProtoWriter[];
}

export interface ModelOptions {
  /** Default-domain opset (default 13, which every onnxruntime since 1.10 runs). */
  opset?: number;
  producer?: string;
  producerVersion?: string;
  docString?: string;
  /** ModelProto.metadata_props: free key → value strings a reader can find without running the model. */
  metadata?: Readonly<Record<string, string>>;
}

/**
 * ModelProto: ir_version = 1, producer_name = 2, producer_version = 3, doc_string = 6, graph = 7,
 * opset_import = 8 (OperatorSetIdProto: domain = 1, version = 2), metadata_props = 14
 * (StringStringEntryProto: key = 1, value = 2). GraphProto: node = 1, name = 2, initializer = 5,
 * input = 11, output = 12. IR version 8 (ONNX 1.10).
 */
export function modelBytes(g: GraphSpec, opts: ModelOptions = {}): Uint8Array {
  const graph = new ProtoWriter();
  for (const n of g.nodes) graph.message(1, n);
  graph.string(2, g.name);
  for (const t of g.initializers) graph.message(5, t);
  for (const i of g.inputs) graph.message(11, i);
  for (const o of g.outputs) graph.message(12, o);
  const model = new ProtoWriter().int(1, 8).string(2, opts.producer ?? 'awb');
  if (opts.producerVersion) model.string(3, opts.producerVersion);
  if (opts.docString) model.string(6, opts.docString);
  model.message(7, graph).message(8, new ProtoWriter().string(1, '').int(2, opts.opset ?? 13));
  for (const [k, v] of Object.entries(opts.metadata ?? {})) model.message(14, new ProtoWriter().string(1, k).string(2, v));
  return model.finish();
}

// --- reading ---

export class ProtoDecodeError extends Error {
  override name = 'ProtoDecodeError';
  constructor(message: string, readonly offset: number) {
    super(`${message} at byte ${offset}`);
  }
}

/** One field of a message: a varint's value, or the bytes of a length-delimited field (fixed-width fields as bytes too). */
export type ProtoField = { field: number; wire: 'varint'; value: bigint } | { field: number; wire: 'bytes'; bytes: Uint8Array; fixed: boolean };

/** The top-level fields of one message, in order. Groups (wire types 3/4, unused by ONNX) are refused. */
export function readFields(buf: Uint8Array): ProtoField[] {
  const out: ProtoField[] = [];
  let o = 0;
  const varint = (): bigint => {
    let v = 0n;
    let shift = 0n;
    for (;;) {
      if (o >= buf.length) throw new ProtoDecodeError('truncated varint', o);
      const b = buf[o++]!;
      v |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
      shift += 7n;
      if (shift > 63n) throw new ProtoDecodeError('varint longer than 10 bytes', o);
    }
  };
  const take = (n: number, start: number): Uint8Array => {
    if (o + n > buf.length) throw new ProtoDecodeError(`field of ${n} bytes runs past the end (${buf.length})`, start);
    const b = buf.subarray(o, o + n);
    o += n;
    return b;
  };
  while (o < buf.length) {
    const start = o;
    const key = varint();
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (field < 1) throw new ProtoDecodeError(`field number ${field}`, start);
    switch (wire) {
      case VARINT:
        out.push({ field, wire: 'varint', value: varint() });
        break;
      case I64:
        out.push({ field, wire: 'bytes', bytes: take(8, start), fixed: true });
        break;
      case LEN: {
        const n = varint();
        if (n > BigInt(buf.length)) throw new ProtoDecodeError(`length ${n} exceeds the buffer`, start);
        out.push({ field, wire: 'bytes', bytes: take(Number(n), start), fixed: false });
        break;
      }
      case I32:
        out.push({ field, wire: 'bytes', bytes: take(4, start), fixed: true });
        break;
      default:
        throw new ProtoDecodeError(`unsupported wire type ${wire} (field ${field})`, start);
    }
  }
  return out;
}

function lenField(f: ProtoField): Uint8Array | null {
  return f.wire === 'bytes' && !f.fixed ? f.bytes : null;
}

/** What a model file says about itself, read without running it. */
export interface ModelInfo {
  irVersion: number | null;
  producer: string;
  /** Default-domain ('' or 'ai.onnx') opset, null when the model imports none. */
  opset: number | null;
  metadata: Record<string, string>;
}

/** ModelProto's ir_version, producer, default opset and metadata_props (a later duplicate key wins, as onnx does). */
export function readModelInfo(buf: Uint8Array): ModelInfo {
  const dec = new TextDecoder('utf-8', { fatal: true });
  const str = (b: Uint8Array, at: string): string => {
    try {
      return dec.decode(b);
    } catch {
      throw new ProtoDecodeError(`${at} is not UTF-8`, 0);
    }
  };
  const info: ModelInfo = { irVersion: null, producer: '', opset: null, metadata: {} };
  for (const f of readFields(buf)) {
    const b = lenField(f);
    if (f.field === 1 && f.wire === 'varint') info.irVersion = Number(f.value);
    else if (f.field === 2 && b) info.producer = str(b, 'producer_name');
    else if (f.field === 8 && b) {
      let domain = '';
      let version: number | null = null;
      for (const g of readFields(b)) {
        const gb = lenField(g);
        if (g.field === 1 && gb) domain = str(gb, 'opset domain');
        else if (g.field === 2 && g.wire === 'varint') version = Number(g.value);
      }
      if ((domain === '' || domain === 'ai.onnx') && version !== null) info.opset = version;
    } else if (f.field === 14 && b) {
      let key = '';
      let value = '';
      for (const g of readFields(b)) {
        const gb = lenField(g);
        if (g.field === 1 && gb) key = str(gb, 'metadata key');
        else if (g.field === 2 && gb) value = str(gb, 'metadata value');
      }
      info.metadata[key] = value;
    }
  }
  return info;
}
