import { constants, createPrivateKey, generateKeyPairSync, privateEncrypt, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHost } from '../../../emulators/simdroid/host.js';
import { ADB_KEYS_PATH, AdbKeyFormatError, parseAdbPublicKey } from '../../../emulators/simdroid/adb/auth.js';
import { AdbCli, freePort, startHost, tempHome } from './helpers.js';
import { CMD, HOST_BANNER, RawAdb, type Msg } from './raw-adb.js';

/** ADB's RSA authentication (auth: 'rsa'): tokens, signatures, and keys stored on the device. */
const SHA1_DIGEST_INFO = Buffer.from('3021300906052b0e03021a05000414', 'hex');

/** The public half of a key in adb's format (libmincrypt RSAPublicKey, base64, comment). */
function adbPublicKey(key: KeyObject, comment = 'test@host'): string {
  const jwk = key.export({ format: 'jwk' }) as { n: string; e: string };
  const nBytes = Buffer.from(jwk.n, 'base64url');
  const n = BigInt(`0x${nBytes.toString('hex')}`);
  const words = nBytes.length / 4;
  const mod32 = 1n << 32n;
  // n0inv = -1 / n mod 2^32, by Newton's iteration on the low word.
  let inv = 1n;
  for (let i = 0; i < 5; i++) inv = (inv * (2n - (n % mod32) * inv)) % mod32;
  const n0inv = (mod32 - ((inv + mod32) % mod32)) % mod32;
  const rr = (1n << BigInt(64 * words)) % n;
  const le = (v: bigint) => Buffer.from(v.toString(16).padStart(words * 8, '0'), 'hex').reverse();
  const struct = Buffer.alloc(4 + 4 + words * 8 + 4);
  struct.writeUInt32LE(words, 0);
  struct.writeUInt32LE(Number(n0inv), 4);
  le(n).copy(struct, 8);
  le(rr).copy(struct, 8 + words * 4);
  struct.writeUInt32LE(Number(BigInt(`0x${Buffer.from(jwk.e, 'base64url').toString('hex')}`)), 8 + words * 8);
  return `${struct.toString('base64')} ${comment}`;
}

function sign(key: KeyObject, token: Buffer): Buffer {
  return privateEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, Buffer.concat([SHA1_DIGEST_INFO, token]));
}

let host: EmulatorHost;
const home = tempHome();

beforeAll(async () => {
  host = await startHost({ authTokenPath: home.tokenPath, auth: 'rsa' });
});
afterAll(async () => {
  await host.stop();
  home.remove();
});

async function challenge(): Promise<{ adb: RawAdb; token: Msg }> {
  const adb = await RawAdb.open(host.adbPort);
  adb.send(CMD.CNXN, 0x01000001, 1024 * 1024, HOST_BANNER);
  const token = await adb.next();
  expect(token).toMatchObject({ command: CMD.AUTH, arg0: 1 });
  expect(token.data.length).toBe(20);
  return { adb, token };
}

describe('adb public keys', () => {
  it('parses the adb format and rejects what is not a key, naming it', () => {
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const parsed = parseAdbPublicKey(`${adbPublicKey(publicKey)}\0`);
    expect(parsed.export({ format: 'jwk' })).toEqual(publicKey.export({ format: 'jwk' }));
    expect(() => parseAdbPublicKey('not-a-key user@host')).toThrow(AdbKeyFormatError);
    expect(() => parseAdbPublicKey(`${Buffer.alloc(40).toString('base64')} x`)).toThrow(/modulus words/);
  });
});

describe('authentication', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });

  it('challenges, refuses an unknown signature with a new token, and accepts a public key like "Always allow"', async () => {
    const { adb, token } = await challenge();
    adb.send(CMD.AUTH, 2, 0, sign(privateKey, token.data));
    const retry = await adb.next();
    expect(retry).toMatchObject({ command: CMD.AUTH, arg0: 1 });
    expect(retry.data.equals(token.data)).toBe(false);
    adb.send(CMD.AUTH, 3, 0, `${adbPublicKey(publicKey)}\0`);
    expect((await adb.next()).command).toBe(CMD.CNXN);
    expect((await adb.run('shell:echo in')).toString()).toBe('in\n');
    // Contains, not equals: an adb server elsewhere on a shared machine may have reconnected to this port and been let in first.
    expect(host.device.fs.readText(ADB_KEYS_PATH).split('\n')).toContain(adbPublicKey(publicKey));
    adb.close();
  });

  it('lets a known key in on its signature alone', async () => {
    const { adb, token } = await challenge();
    adb.send(CMD.AUTH, 2, 0, sign(privateKey, token.data));
    expect((await adb.next()).command).toBe(CMD.CNXN);
    adb.close();
  });

  it('keeps an unauthenticated peer out: streams ignored, a garbage key refused', async () => {
    const { adb, token } = await challenge();
    adb.send(CMD.OPEN, 1, 0, 'shell:echo sneaky\0');
    adb.send(CMD.AUTH, 3, 0, 'garbage key\0');
    adb.send(CMD.AUTH, 2, 0, Buffer.alloc(256, 7));
    const next = await adb.next();
    expect(next).toMatchObject({ command: CMD.AUTH, arg0: 1 });
    expect(next.data.equals(token.data)).toBe(false);
    adb.close();
  });
});

describe('with the real adb', () => {
  it('authorizes adb on first connect, then recognizes its key', async () => {
    const adbHome = tempHome();
    const adb = new AdbCli(await freePort(), adbHome.home);
    try {
      await adb.ok(['start-server']);
      // adb reports "failed to authenticate" while the device holds the key prompt, as with a
      // real phone; the user's "Always allow" (immediate here) then brings the device online.
      expect((await adb.run(['connect', host.address])).out).toMatch(new RegExp(`(connected|failed to authenticate) to ${host.address}`));
      await adb.ok(['-s', host.address, 'wait-for-device']);
      expect((await adb.ok(['devices'])).out).toContain(`${host.address}\tdevice`);
      expect((await adb.ok(['-s', host.address, 'shell', 'echo', 'authorized'])).out).toBe('authorized\n');
      const pub = readFileSync(join(adbHome.home, '.android', 'adbkey.pub'), 'utf8').trim();
      expect(host.device.fs.readText(ADB_KEYS_PATH).split('\n')).toContain(pub);
      // adb's own private key now passes the challenge without offering its public key again.
      const own = createPrivateKey(readFileSync(join(adbHome.home, '.android', 'adbkey')));
      const { adb: raw, token } = await challenge();
      raw.send(CMD.AUTH, 2, 0, sign(own, token.data));
      expect((await raw.next()).command).toBe(CMD.CNXN);
      raw.close();
    } finally {
      await adb.killServer();
      adbHome.remove();
    }
  });
});
