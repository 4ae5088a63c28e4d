import { createPublicKey, publicDecrypt, randomBytes, constants, type KeyObject } from 'node:crypto';
import type { FileSystem } from '../system/fs.js';

/** AUTH message types (protocol.txt). */
export const AUTH_TOKEN = 1;
export const AUTH_SIGNATURE = 2;
export const AUTH_RSAPUBLICKEY = 3;

export const TOKEN_SIZE = 20;

/** Where adbd keeps the public keys of the computers the user allowed. */
export const ADB_KEYS_PATH = '/data/misc/adb/adb_keys';

/** The DER prefix of a SHA-1 DigestInfo: adb signs the token as if it were a SHA-1 digest. */
const SHA1_DIGEST_INFO = Buffer.from('3021300906052b0e03021a05000414', 'hex');

export class AdbKeyFormatError extends Error {
  override name = 'AdbKeyFormatError';
  constructor(readonly key: string, reason: string) {
    super(`not an adb public key (${reason}): ${JSON.stringify(key.slice(0, 60))}`);
  }
}

/**
 * Parses one line of adb_keys (or an RSAPUBLICKEY payload): base64 of libmincrypt's RSAPublicKey
 * struct — u32 word count, u32 n0inv, modulus and R^2 as little-endian words, u32 exponent — then
 * an optional " user@host" comment.
 */
export function parseAdbPublicKey(line: string): KeyObject {
  const text = line.replace(/\0+$/, '').trim();
  const b64 = text.split(/\s+/)[0] ?? '';
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) throw new AdbKeyFormatError(line, 'no base64 key');
  const struct = Buffer.from(b64, 'base64');
  if (struct.length < 12) throw new AdbKeyFormatError(line, `${struct.length} bytes`);
  const words = struct.readUInt32LE(0);
  const bytes = words * 4;
  if (words < 16 || words > 1024 || struct.length !== 4 + 4 + bytes * 2 + 4) {
    throw new AdbKeyFormatError(line, `${words} modulus words in ${struct.length} bytes`);
  }
  const modulus = Buffer.from(struct.subarray(8, 8 + bytes)).reverse();
  const exponent = struct.readUInt32LE(8 + bytes * 2);
  if (exponent !== 3 && exponent !== 65537) throw new AdbKeyFormatError(line, `exponent ${exponent}`);
  const e = Buffer.alloc(4);
  e.writeUInt32BE(exponent);
  const trimmed = e.subarray(e.findIndex((x) => x !== 0));
  return createPublicKey({ key: { kty: 'RSA', n: modulus.toString('base64url'), e: trimmed.toString('base64url') }, format: 'jwk' });
}

/** Whether `signature` is the PKCS#1 v1.5 signature of `token` (as a SHA-1 digest) by `key`. */
export function verifyTokenSignature(key: KeyObject, token: Buffer, signature: Buffer): boolean {
  try {
    const recovered = publicDecrypt({ key, padding: constants.RSA_PKCS1_PADDING }, signature);
    return recovered.equals(Buffer.concat([SHA1_DIGEST_INFO, token]));
  } catch {
    // A signature of the wrong size or padding is simply not a valid signature.
    return false;
  }
}

/**
 * The device side of ADB's RSA authentication, with the keys in the device's own filesystem, as on
 * a phone with ro.adb.secure=1. A new public key is accepted at once, as when the user taps
 * "Always allow from this computer".
 */
export class DeviceKeyStore {
  constructor(private readonly fs: FileSystem) {}

  newToken(): Buffer {
    return randomBytes(TOKEN_SIZE);
  }

  /** Whether a key in adb_keys verifies the host's signature of the token. */
  isAuthorized(token: Buffer, signature: Buffer): boolean {
    for (const line of this.lines()) {
      let key: KeyObject;
      try {
        key = parseAdbPublicKey(line);
      } catch {
        // adbd skips lines it cannot parse; a stray line must not lock the user out.
        continue;
      }
      if (verifyTokenSignature(key, token, signature)) return true;
    }
    return false;
  }

  /** Stores a key the host offered. Throws AdbKeyFormatError when it is not a key. */
  allow(payload: Buffer): void {
    const line = payload.toString('utf8').replace(/\0+$/, '').trim();
    parseAdbPublicKey(line);
    if (this.lines().includes(line)) return;
    this.fs.mkdirp('/data/misc/adb');
    this.fs.appendFile(ADB_KEYS_PATH, `${line}\n`);
  }

  private lines(): string[] {
    const e = this.fs.stat(ADB_KEYS_PATH);
    if (e?.type !== 'file') return [];
    return e.data.toString('utf8').split('\n').map((l) => l.trim()).filter(Boolean);
  }
}
