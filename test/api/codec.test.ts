import { describe, expect, it } from 'vitest';
import { decodeMessage, encodeMessage, WireFormatError } from '../../core/util/wire-codec.js';

describe('WebSocket wire codec', () => {
  it('sends a message without bytes as JSON text', () => {
    const msg = { t: 'call', id: 1, m: 'listDevices', a: {} };
    const wire = encodeMessage(msg);
    expect(typeof wire).toBe('string');
    expect(decodeMessage(wire)).toEqual(msg);
  });

  it('carries PNG bytes (Buffer or Uint8Array, nested anywhere) as binary attachments', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const other = new Uint8Array([9, 8, 7]);
    const msg = { t: 'ev', id: 4, v: { serial: 's', png, nested: [{ bytes: other }, 5], empty: new Uint8Array(0) } };
    const wire = encodeMessage(msg);
    expect(wire).toBeInstanceOf(Uint8Array);
    // No base64: the wire is JSON header plus the raw bytes.
    expect((wire as Uint8Array).length).toBeLessThan(JSON.stringify(msg).length + 40);
    const back = decodeMessage(wire) as { v: { png: Uint8Array; nested: [{ bytes: Uint8Array }, number]; empty: Uint8Array } };
    expect([...back.v.png]).toEqual([...png]);
    expect([...back.v.nested[0].bytes]).toEqual([9, 8, 7]);
    expect(back.v.nested[1]).toBe(5);
    expect(back.v.empty.length).toBe(0);
  });

  it("never converts bytes through their toJSON (a Buffer's is an array of every byte: a frame's cost)", () => {
    class Tripwire extends Uint8Array {
      toJSON(): never {
        throw new Error('toJSON called');
      }
    }
    const msg = { kind: 'frame', frame: { png: new Tripwire([1, 2, 3]), seq: 4 }, list: [new Tripwire([5]), 'x'], top: new Tripwire([6, 7]) };
    const out = decodeMessage(encodeMessage(msg) as Uint8Array) as { frame: { png: Uint8Array; seq: number }; list: [Uint8Array, string]; top: Uint8Array };
    expect([...out.frame.png]).toEqual([1, 2, 3]);
    expect(out.frame.seq).toBe(4);
    expect([...out.list[0]]).toEqual([5]);
    expect(out.list[1]).toBe('x');
    expect([...out.top]).toEqual([6, 7]);
  });

  it('refuses truncated or inconsistent binary messages with a named error', () => {
    const wire = encodeMessage({ v: new Uint8Array([1, 2, 3, 4]) }) as Uint8Array;
    expect(() => decodeMessage(wire.subarray(0, 2))).toThrow(WireFormatError);
    expect(() => decodeMessage(wire.subarray(0, wire.length - 2))).toThrow(/overruns/);
    const lying = wire.slice();
    new DataView(lying.buffer).setUint32(0, 10_000, true);
    expect(() => decodeMessage(lying)).toThrow(WireFormatError);
    expect(() => decodeMessage(binary('{"v":{"$bin":3}}', [1]))).toThrow(/missing attachment/);
  });

  // Issue 16, found by test/fuzz/bridge.test.ts: a plain object whose one key is "$bin" was written as is,
  // so it read back as an attachment reference: the bytes of another field, or "missing attachment".
  it('carries plain objects whose one key is $bin (or $$bin) unchanged, with or without bytes', () => {
    const bytes = new Uint8Array([1, 2]);
    for (const msg of [
      { v: { $bin: 0 }, png: bytes },
      { v: { $bin: bytes } },
      { v: { $bin: 3 } },
      { v: [{ $$bin: 1 }, { $$$bin: { $bin: 'x' } }], png: bytes },
    ]) expect(decodeMessage(encodeMessage(msg))).toEqual(msg);
  });

  // Issue 16, found by test/fuzz/bridge.test.ts: text that is not JSON threw JSON.parse's SyntaxError, and a
  // binary message nested deeper than the reviver's recursion threw RangeError; both are not a message.
  it('refuses text that is not JSON and nesting too deep to read with WireFormatError', () => {
    expect(() => decodeMessage('')).toThrow(WireFormatError);
    expect(() => decodeMessage('{not json')).toThrow(WireFormatError);
    expect(() => decodeMessage(binary('{"a":', []))).toThrow(WireFormatError);
    const deep = `${'['.repeat(100_000)}1${']'.repeat(100_000)}`;
    expect(() => decodeMessage(binary(deep, []))).toThrow(WireFormatError);
  });
});

/** A binary message written by hand: u32 JSON length, the JSON, then each attachment with its u32 length. */
function binary(json: string, ...attachments: number[][]): Uint8Array {
  const head = new TextEncoder().encode(json);
  const parts = [head, ...attachments.map((a) => new Uint8Array(a))];
  const out = new Uint8Array(parts.reduce((n, p) => n + 4 + p.length, 0));
  const view = new DataView(out.buffer);
  let at = 0;
  for (const p of parts) {
    view.setUint32(at, p.length, true);
    out.set(p, at + 4);
    at += 4 + p.length;
  }
  return out;
}
