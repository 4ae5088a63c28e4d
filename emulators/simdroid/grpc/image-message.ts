/**
 * The Image reply (emulator_controller.proto: format = 1, width = 2, height = 3, image = 4,
 * seq = 5, timestampUs = 6) serialized without copying the pixels into a message buffer of our own.
 *
 * Why: a full-size RGBA frame is 10 MB. grpc-js frames every reply itself: its serializeMessage
 * takes `serialize(reply)`, allocates the length-prefixed buffer (byteLength + 5) and calls
 * `.copy(output, 5)` on what we returned. So we return the message as its parts (the small fields
 * encoded by the proto serializer, the pixels in place between them in field order) with a `copy`
 * that writes them straight into grpc-js's buffer: the pixels are copied once per reply, not twice
 * (BENCHMARKS.md, gRPC). `toBuffer()` gives the same bytes as one Buffer for any other reader;
 * test/emulators/grpc/image-message.test.ts checks both against the proto's own serializer.
 */
type Serialize = (value: object) => Buffer;

export interface ImageReply {
  format: object;
  width: number;
  height: number;
  image: Buffer;
  seq: number;
  timestampUs: number;
}

/** Field 4, wire type 2 (length-delimited). */
const IMAGE_TAG = (4 << 3) | 2;

function varint(n: number): Buffer {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return Buffer.from(out);
}

/** A serialized Image as its parts: what grpc-js's serializeMessage reads of a Buffer (byteLength, copy). */
export class ImageMessage {
  readonly byteLength: number;
  private readonly parts: Buffer[];

  constructor(head: Buffer, image: Buffer, tail: Buffer) {
    this.parts = [Buffer.concat([head, Buffer.from([IMAGE_TAG]), varint(image.length)]), image, tail];
    this.byteLength = this.parts.reduce((n, p) => n + p.length, 0);
  }

  get length(): number {
    return this.byteLength;
  }

  /** Buffer.copy's contract for a whole-message copy: writes every byte at `targetStart`, returns the count. */
  copy(target: Uint8Array, targetStart = 0): number {
    if (target.length - targetStart < this.byteLength) throw new RangeError(`ImageMessage of ${this.byteLength} bytes does not fit at ${targetStart} in ${target.length}`);
    let at = targetStart;
    for (const p of this.parts) at += p.copy(target, at);
    return at - targetStart;
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.parts, this.byteLength);
  }
}

export function imageSerializer(serialize: Serialize): (reply: ImageReply) => ImageMessage {
  return (reply) => new ImageMessage(
    serialize({ format: reply.format, width: reply.width, height: reply.height }),
    reply.image,
    serialize({ seq: reply.seq, timestampUs: reply.timestampUs }),
  );
}
