/**
 * The WebSocket wire format of bridge messages. A message without bytes is one JSON text frame; a
 * message carrying PNGs (frames, screenshots) is one binary frame, so bytes are never base64'd:
 *   u32 jsonLength · JSON (each Uint8Array replaced by {"$bin": i}) · (u32 length · bytes)*
 * Little-endian. Runs in Node and in the browser (no Buffer).
 */
const BIN_KEY = '$bin';

export class WireFormatError extends Error {
  override name = 'WireFormatError';
  constructor(message: string, readonly size: number) {
    super(`${message} (${size} bytes)`);
  }
}

export function encodeMessage(msg: unknown): string | Uint8Array {
  const blobs: Uint8Array[] = [];
  const json = JSON.stringify(msg, function (this: unknown, _key, value: unknown) {
    // JSON.stringify hands Buffers to replacers already converted by their toJSON; read the holder instead.
    const raw = (this as Record<string, unknown>)[_key];
    if (raw instanceof Uint8Array) {
      blobs.push(raw);
      return { [BIN_KEY]: blobs.length - 1 };
    }
    return value;
  });
  if (blobs.length === 0) return json;
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

export function decodeMessage(data: string | Uint8Array): unknown {
  if (typeof data === 'string') return JSON.parse(data);
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
  return JSON.parse(json, (_key, value: unknown) => {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const keys = Object.keys(value);
      if (keys.length === 1 && keys[0] === BIN_KEY) {
        const i = (value as Record<string, unknown>)[BIN_KEY];
        if (typeof i !== 'number' || !blobs[i]) throw new WireFormatError(`reference to missing attachment ${String(i)}`, data.length);
        return blobs[i];
      }
    }
    return value;
  });
}
