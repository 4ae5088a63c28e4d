/**
 * ADB transport messages (AOSP adb/protocol.txt): a 24-byte little-endian header — command, arg0,
 * arg1, data_length, data_crc32 (a byte sum, despite the name), magic = command ^ 0xffffffff —
 * then data_length bytes of payload.
 */

export const A_SYNC = 0x434e5953;
export const A_CNXN = 0x4e584e43;
export const A_AUTH = 0x48545541;
export const A_OPEN = 0x4e45504f;
export const A_OKAY = 0x59414b4f;
export const A_CLSE = 0x45534c43;
export const A_WRTE = 0x45545257;
export const A_STLS = 0x534c5453;

const KNOWN = new Set([A_SYNC, A_CNXN, A_AUTH, A_OPEN, A_OKAY, A_CLSE, A_WRTE, A_STLS]);

export const A_VERSION_MIN = 0x01000000;
/** From this version on, neither side computes or checks the payload checksum. */
export const A_VERSION_SKIP_CHECKSUM = 0x01000001;
export const A_VERSION = 0x01000001;

/** What adbd accepts per message since Android 9; the peer's CNXN may lower it. */
export const MAX_PAYLOAD = 1024 * 1024;
/** What every adb accepted before CNXN negotiated more (protocol.txt). */
export const MAX_PAYLOAD_V1 = 4096;

export const HEADER_SIZE = 24;

export interface AdbMessage {
  command: number;
  arg0: number;
  arg1: number;
  data: Buffer;
}

/** The 4-letter name of a command ("CNXN"), or its hex value when it is not printable. */
export function commandName(command: number): string {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(command >>> 0);
  return /^[A-Z0-9]{4}$/.test(b.toString('latin1')) ? b.toString('latin1') : `0x${(command >>> 0).toString(16).padStart(8, '0')}`;
}

/** The "crc32" field: the sum of the payload bytes, modulo 2^32. */
export function payloadChecksum(data: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < data.length; i++) sum += data[i]!;
  return sum >>> 0;
}

/**
 * The 24-byte header for a message. The checksum is only summed for a peer older than
 * A_VERSION_SKIP_CHECKSUM (newer ones ignore it, and summing a 1 MiB WRTE costs milliseconds).
 */
export function encodeHeader(command: number, arg0: number, arg1: number, data: Uint8Array, checksum = true): Buffer {
  const out = Buffer.alloc(HEADER_SIZE);
  out.writeUInt32LE(command >>> 0, 0);
  out.writeUInt32LE(arg0 >>> 0, 4);
  out.writeUInt32LE(arg1 >>> 0, 8);
  out.writeUInt32LE(data.length, 12);
  out.writeUInt32LE(checksum ? payloadChecksum(data) : 0, 16);
  out.writeUInt32LE((command ^ 0xffffffff) >>> 0, 20);
  return out;
}

export function encodeMessage(command: number, arg0: number, arg1: number, data: Buffer = Buffer.alloc(0), checksum = true): Buffer {
  return Buffer.concat([encodeHeader(command, arg0, arg1, data, checksum), data]);
}

export type ProtocolViolation = 'bad-magic' | 'unknown-command' | 'payload-too-large' | 'bad-checksum';

/** The peer broke the framing: the connection cannot be trusted any more and is closed. */
export class AdbProtocolError extends Error {
  override name = 'AdbProtocolError';
  constructor(readonly violation: ProtocolViolation, readonly value: number, detail: string) {
    super(`${violation}: ${detail}`);
  }
}

export interface ReaderLimits {
  /** Largest payload accepted right now. */
  maxPayload(): number;
  /** Whether the payload checksum must be verified (the peer's protocol version is below A_VERSION_SKIP_CHECKSUM). */
  checksums(): boolean;
}

/**
 * Cuts a byte stream into messages. The header is validated before any payload is buffered, so a
 * hostile length never makes us wait for (or allocate) more than the negotiated maximum.
 */
export class MessageReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private header: { command: number; arg0: number; arg1: number; length: number; checksum: number } | null = null;

  constructor(private readonly limits: ReaderLimits) {}

  /** Adds received bytes; take messages out with next(). */
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
  }

  /**
   * The next complete message, or null until more bytes arrive. One at a time, so the limits in
   * force (which a CNXN changes) apply to each message as it is handled. Throws AdbProtocolError.
   */
  next(): AdbMessage | null {
    if (!this.header) {
      if (this.buffered < HEADER_SIZE) return null;
      this.header = this.parseHeader(this.take(HEADER_SIZE));
    }
    if (this.buffered < this.header.length) return null;
    const h = this.header;
    this.header = null;
    const data = this.take(h.length);
    if (this.limits.checksums() && payloadChecksum(data) !== h.checksum) {
      throw new AdbProtocolError('bad-checksum', h.checksum, `${commandName(h.command)} payload sums to ${payloadChecksum(data)}, header says ${h.checksum}`);
    }
    return { command: h.command, arg0: h.arg0, arg1: h.arg1, data };
  }

  private parseHeader(b: Buffer) {
    const command = b.readUInt32LE(0);
    const length = b.readUInt32LE(12);
    const magic = b.readUInt32LE(20);
    if (magic !== (command ^ 0xffffffff) >>> 0) {
      throw new AdbProtocolError('bad-magic', magic, `magic 0x${magic.toString(16)} does not match command ${commandName(command)}`);
    }
    if (!KNOWN.has(command)) throw new AdbProtocolError('unknown-command', command, `unknown command ${commandName(command)}`);
    const max = this.limits.maxPayload();
    if (length > max) throw new AdbProtocolError('payload-too-large', length, `${commandName(command)} carries ${length} bytes, more than ${max}`);
    return { command, arg0: b.readUInt32LE(4), arg1: b.readUInt32LE(8), length, checksum: b.readUInt32LE(16) };
  }

  private take(n: number): Buffer {
    if (n === 0) return Buffer.alloc(0);
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.buffered);
    const head = all.subarray(0, n);
    const rest = all.subarray(n);
    this.chunks = rest.length ? [rest] : [];
    this.buffered = rest.length;
    // Copy so a retained payload does not pin a large receive buffer.
    return Buffer.from(head);
  }
}
