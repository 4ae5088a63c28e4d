import { describe, expect, it } from 'vitest';
import { loadPackageDefinition, type ServiceDefinition } from '@grpc/grpc-js';
import { loadEmulatorProtos } from '../../../emulators/simdroid/grpc/server.js';
import { imageSerializer } from '../../../emulators/simdroid/grpc/image-message.js';

/** The Image serializer's parts write the same bytes as the proto's own (protobufjs) serializer. */
const control = (loadPackageDefinition(loadEmulatorProtos()) as unknown as { android: { emulation: { control: Record<string, { service: ServiceDefinition }> } } }).android.emulation.control;
const def = control.EmulatorController!.service.getScreenshot!;
const protoSerialize = def.responseSerialize as (v: object) => Buffer;

describe('Image reply serialization', () => {
  it('matches the proto serializer byte for byte for empty, small and multi-byte-length images, and decodes back', () => {
    const ours = imageSerializer(protoSerialize);
    const format = { format: 'RGBA8888', width: 3, height: 70, display: 0, rotation: { rotation: 'PORTRAIT' } };
    for (const image of [Buffer.alloc(20_000, 9), Buffer.alloc(3 * 70 * 4, 7), Buffer.from([1, 2, 3]), Buffer.alloc(0)]) {
      const reply = { format, width: 3, height: 70, image, seq: 300, timestampUs: 1_700_000_000_000_000 };
      const expected = protoSerialize(reply);
      const message = ours(reply);
      expect(message.byteLength).toBe(expected.length);
      expect(message.toBuffer().equals(expected)).toBe(true);
      // As grpc-js frames it: a 5-byte prefix, then the message copied in at offset 5.
      const framed = Buffer.alloc(message.byteLength + 5, 0xee);
      expect(message.copy(framed, 5)).toBe(expected.length);
      expect(framed.subarray(0, 5).equals(Buffer.alloc(5, 0xee))).toBe(true);
      expect(framed.subarray(5).equals(expected)).toBe(true);
      const back = (def.responseDeserialize as (b: Buffer) => { image: Buffer; seq: number; width: number })(message.toBuffer());
      expect(Buffer.from(back.image).equals(image)).toBe(true);
      expect(back).toMatchObject({ seq: 300, width: 3 });
    }
  });

  it('refuses to copy into a buffer too small for the message', () => {
    const message = imageSerializer(protoSerialize)({ format: { format: 'RGBA8888' }, width: 1, height: 1, image: Buffer.alloc(4), seq: 0, timestampUs: 0 });
    expect(() => message.copy(Buffer.alloc(message.byteLength + 4), 5)).toThrow(RangeError);
  });
});
