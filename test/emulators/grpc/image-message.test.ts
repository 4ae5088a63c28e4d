import { describe, expect, it } from 'vitest';
import { loadPackageDefinition, type ServiceDefinition } from '@grpc/grpc-js';
import { loadEmulatorProtos } from '../../../emulators/simdroid/grpc/server.js';
import { imageSerializer } from '../../../emulators/simdroid/grpc/image-message.js';

/** The reused-buffer Image serializer writes the same bytes as the proto's own (protobufjs) serializer. */
const control = (loadPackageDefinition(loadEmulatorProtos()) as unknown as { android: { emulation: { control: Record<string, { service: ServiceDefinition }> } } }).android.emulation.control;
const def = control.EmulatorController!.service.getScreenshot!;
const protoSerialize = def.responseSerialize as (v: object) => Buffer;

describe('Image reply serialization', () => {
  it('matches the proto serializer byte for byte for empty, small and multi-byte-length images, and decodes back', () => {
    const ours = imageSerializer(protoSerialize);
    const format = { format: 'RGBA8888', width: 3, height: 70, display: 0, rotation: { rotation: 'PORTRAIT' } };
    // Largest first, then smaller ones in the same buffer: stale bytes past the end must not leak in.
    for (const image of [Buffer.alloc(20_000, 9), Buffer.alloc(3 * 70 * 4, 7), Buffer.from([1, 2, 3]), Buffer.alloc(0)]) {
      const reply = { format, width: 3, height: 70, image, seq: 300, timestampUs: 1_700_000_000_000_000 };
      const bytes = ours(reply);
      expect(bytes.equals(protoSerialize(reply))).toBe(true);
      const back = (def.responseDeserialize as (b: Buffer) => { image: Buffer; seq: number; width: number })(bytes);
      expect(Buffer.from(back.image).equals(image)).toBe(true);
      expect(back).toMatchObject({ seq: 300, width: 3 });
    }
  });
});
