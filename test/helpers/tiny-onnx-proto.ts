/**
 * A minimal protobuf writer for ONNX ModelProto (onnx/onnx.proto, proto2), just enough to build a
 * tiny model in a test without python or a download. Field numbers are onnx.proto's; only the
 * messages and fields the tiny encoder uses are covered.
 */

// protobuf wire types
const VARINT = 0;
const LEN = 2;

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
type DataTypeCode = (typeof DataType)[keyof typeof DataType];

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
 * shape = 2) → TensorShapeProto.dim = 1 → Dimension (dim_value = 1 | dim_param = 2).
 */
export function valueInfo(name: string, elemType: DataTypeCode, dims: readonly Dim[]): ProtoWriter {
  const shape = new ProtoWriter();
  for (const d of dims) shape.message(1, typeof d === 'number' ? new ProtoWriter().int(1, d) : new ProtoWriter().string(2, d));
  const tensorType = new ProtoWriter().int(1, elemType).message(2, shape);
  return new ProtoWriter().string(1, name).message(2, new ProtoWriter().message(1, tensorType));
}

/** AttributeProto: name = 1, i = 3, ints = 8, type = 20 (INT = 2, INTS = 7). */
export type Attribute = { name: string; int: number } | { name: string; ints: readonly number[] };

function attribute(a: Attribute): ProtoWriter {
  const w = new ProtoWriter().string(1, a.name);
  if ('int' in a) return w.int(3, a.int).int(20, 2);
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

/**
 * ModelProto: ir_version = 1, producer_name = 2, graph = 7, opset_import = 8 (OperatorSetIdProto:
 * domain = 1, version = 2). GraphProto: node = 1, name = 2, initializer = 5, input = 11, output = 12.
 * IR version 8 with the default-domain opset 13, which every onnxruntime since 1.10 runs.
 */
export function modelBytes(g: GraphSpec, opset = 13): Uint8Array {
  const graph = new ProtoWriter();
  for (const n of g.nodes) graph.message(1, n);
  graph.string(2, g.name);
  for (const t of g.initializers) graph.message(5, t);
  for (const i of g.inputs) graph.message(11, i);
  for (const o of g.outputs) graph.message(12, o);
  return new ProtoWriter()
    .int(1, 8)
    .string(2, 'awb-test')
    .message(7, graph)
    .message(8, new ProtoWriter().string(1, '').int(2, opset))
    .finish();
}
