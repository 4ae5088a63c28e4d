/**
 * The WebSocket wire format of bridge messages (`awb serve`'s UI transport) and of the environment protocol
 * (docs/env-protocol.md). A message without bytes is one JSON text frame; a message carrying PNGs (frames,
 * screenshots) is one binary frame, so bytes are never base64'd:
 *   u32 jsonLength · JSON (each Uint8Array replaced by {"$bin": i}) · (u32 length · bytes)*
 * Little-endian. Runs in Node and in the browser (no Buffer).
 */
const BIN_KEY = '$bin';
/**
 * A plain object whose one key is $bin, $$bin, $$$bin… is sent with one more "$" (and read back
 * with one less), so no value can pass for an attachment reference.
 */
const ESCAPED_KEY = /^\$+bin$/;

function soleKey(value: unknown): string | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value) || value instanceof Uint8Array) return undefined;
  const keys = Object.keys(value);
  return keys.length === 1 ? keys[0] : undefined;
}

/** `value`, or a shallow copy of it with its Uint8Array members replaced by attachment references. */
function withoutBytes(value: object, attach: (bytes: Uint8Array) => object): object {
  if (Array.isArray(value)) return value.some((v) => v instanceof Uint8Array) ? value.map((v: unknown) => (v instanceof Uint8Array ? attach(v) : v)) : value;
  let copy: Record<string, unknown> | undefined;
  for (const k of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[k];
    if (!(v instanceof Uint8Array)) continue;
    copy ??= { ...value };
    copy[k] = attach(v);
  }
  return copy ?? value;
}

export class WireFormatError extends Error {
  override name = 'WireFormatError';
  constructor(message: string, readonly size: number) {
    super(`${message} (${size} bytes)`);
  }
}

export function encodeMessage(msg: unknown): string | Uint8Array {
  const blobs: Uint8Array[] = [];
  const refs = new WeakSet<object>();
  const attach = (bytes: Uint8Array) => {
    blobs.push(bytes);
    const ref = { [BIN_KEY]: blobs.length - 1 };
    refs.add(ref);
    return ref;
  };
  const json = JSON.stringify(msg, function (this: unknown, _key, value: unknown) {
    // JSON.stringify hands Buffers to replacers already converted by their toJSON; read the holder.
    const raw = (this as Record<string, unknown>)[_key];
    if (raw instanceof Uint8Array) return attach(raw);
    if (value === null || typeof value !== 'object' || refs.has(value)) return value;
    // That conversion (an array of every byte) is what a frame's bytes would cost, so attachments
    // are taken out of their parent, before JSON.stringify reaches them.
    const out = withoutBytes(value, attach);
    const key = soleKey(out);
    if (key !== undefined && ESCAPED_KEY.test(key)) return { [`$${key}`]: (out as Record<string, unknown>)[key] };
    return out;
  });
  if (blobs.length === 0) return json;
  return frameMessage(json, blobs);
}

/**
 * The binary frame for a message whose JSON already holds its attachment references (`{"$bin": i}` for `blobs[i]`):
 * for senders that build the references themselves (the environment server's observations) and so skip the replacer.
 */
export function frameMessage(json: string, blobs: readonly Uint8Array[]): Uint8Array {
  const head = new TextEncoder().encode(json);
  let size = 4 + head.length;
  for (const b of blobs) size += 4 + b.length;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, head.length, true);
  out.set(head, 4);
  let at = 4 + head.length;
  for (const b of blobs) {
    view.setUint32(at, b.length, true);
    out.set(b, at + 4);
    at += 4 + b.length;
  }
  return out;
}

/** JSON.parse, refusing what is not a message with WireFormatError. */
function parseJson(text: string, size: number, reviver?: (this: unknown, key: string, value: unknown) => unknown): unknown {
  try {
    return JSON.parse(text, reviver);
  } catch (e) {
    if (e instanceof WireFormatError) throw e;
    // Not JSON (SyntaxError), or nested deeper than the reviver's recursion can go (RangeError).
    throw new WireFormatError(`not JSON: ${(e as Error).message}`, size);
  }
}

/** Restores escaped keys, and attachment references from `blobs`. */
function reviver(blobs: Uint8Array[], size: number) {
  return (_key: string, value: unknown): unknown => {
    const key = soleKey(value);
    if (key === BIN_KEY) {
      const i = (value as Record<string, unknown>)[BIN_KEY];
      if (typeof i !== 'number' || !blobs[i]) throw new WireFormatError(`reference to missing attachment ${String(i)}`, size);
      return blobs[i];
    }
    if (key !== undefined && ESCAPED_KEY.test(key)) return { [key.slice(1)]: (value as Record<string, unknown>)[key] };
    return value;
  };
}

export function decodeMessage(data: string | Uint8Array): unknown {
  // Only text holding a "…bin" key needs the (slower, recursive) reviver: a text message has no attachments.
  if (typeof data === 'string') return parseJson(data, data.length, data.includes('bin"') ? reviver([], data.length) : undefined);
  if (data.length < 4) throw new WireFormatError('binary message shorter than its header', data.length);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const jsonLength = view.getUint32(0, true);
  if (4 + jsonLength > data.length) throw new WireFormatError(`JSON part of ${jsonLength} bytes overruns the message`, data.length);
  const blobs: Uint8Array[] = [];
  let at = 4 + jsonLength;
  while (at < data.length) {
    if (at + 4 > data.length) throw new WireFormatError('truncated attachment length', data.length);
    const len = view.getUint32(at, true);
    if (at + 4 + len > data.length) throw new WireFormatError(`attachment of ${len} bytes overruns the message`, data.length);
    blobs.push(data.subarray(at + 4, at + 4 + len));
    at += 4 + len;
  }
  const json = new TextDecoder().decode(data.subarray(4, 4 + jsonLength));
  return parseJson(json, data.length, reviver(blobs, data.length));
}
