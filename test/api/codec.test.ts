import { describe, expect, it } from 'vitest';
import { decodeMessage, encodeMessage, WireFormatError } from '../../core/api/codec.js';

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

  it('refuses truncated or inconsistent binary messages with a named error', () => {
    const wire = encodeMessage({ v: new Uint8Array([1, 2, 3, 4]) }) as Uint8Array;
    expect(() => decodeMessage(wire.subarray(0, 2))).toThrow(WireFormatError);
    expect(() => decodeMessage(wire.subarray(0, wire.length - 2))).toThrow(/overruns/);
    const lying = wire.slice();
    new DataView(lying.buffer).setUint32(0, 10_000, true);
    expect(() => decodeMessage(lying)).toThrow(WireFormatError);
    const dangling = encodeMessage({ v: { $bin: 3 }, w: new Uint8Array([1]) }) as Uint8Array;
    expect(() => decodeMessage(dangling)).toThrow(/missing attachment/);
  });
});
