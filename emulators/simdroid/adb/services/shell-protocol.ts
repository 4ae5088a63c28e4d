/**
 * The shell protocol of `shell,v2:` (AOSP adb/shell_protocol.h): packets of a 1-byte id, a
 * little-endian u32 length and that many bytes, so stdout, stderr and the exit code travel apart
 * over one stream.
 */
export const ShellPacket = {
  stdin: 0,
  stdout: 1,
  stderr: 2,
  exit: 3,
  closeStdin: 4,
  windowSizeChange: 5,
} as const;

export const SHELL_HEADER_SIZE = 5;

/** Output is cut into packets of at most this many bytes (adbd's are smaller still). */
const MAX_PACKET_DATA = 64 * 1024;

/** Packets carrying `data` under `id`, split so none is larger than MAX_PACKET_DATA (one packet when empty). */
export function encodeShellPackets(id: number, data: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  do {
    const part = data.subarray(at, at + MAX_PACKET_DATA);
    const header = Buffer.alloc(SHELL_HEADER_SIZE);
    header.writeUInt8(id, 0);
    header.writeUInt32LE(part.length, 1);
    out.push(Buffer.concat([header, part]));
    at += MAX_PACKET_DATA;
  } while (at < data.length);
  return out;
}

/** The exit packet: one byte, the exit status modulo 256 (what the adb client returns). */
export function exitPacket(code: number): Buffer {
  return encodeShellPackets(ShellPacket.exit, Buffer.from([code & 0xff]))[0]!;
}

/** Largest packet accepted from the host: stdin packets come from its 4 KiB–1 MiB buffers. */
export const MAX_INCOMING_PACKET = 1024 * 1024;

export class ShellPacketError extends Error {
  override name = 'ShellPacketError';
  constructor(readonly length: number) {
    super(`shell protocol packet of ${length} bytes exceeds ${MAX_INCOMING_PACKET}`);
  }
}

/** Reassembles the host's packets from WRTE payloads, which may split or join them anywhere. */
export class ShellPacketReader {
  private buf: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Array<{ id: number; data: Buffer }> {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const out: Array<{ id: number; data: Buffer }> = [];
    while (this.buf.length >= SHELL_HEADER_SIZE) {
      const length = this.buf.readUInt32LE(1);
      if (length > MAX_INCOMING_PACKET) throw new ShellPacketError(length);
      if (this.buf.length < SHELL_HEADER_SIZE + length) break;
      out.push({ id: this.buf[0]!, data: Buffer.from(this.buf.subarray(SHELL_HEADER_SIZE, SHELL_HEADER_SIZE + length)) });
      this.buf = this.buf.subarray(SHELL_HEADER_SIZE + length);
    }
    return out;
  }
}
