import type { Duplex } from 'node:stream';
import type { DeviceClient } from '@devicefarmer/adbkit';
import type { ShellResult } from '../device.js';

/**
 * Device services opened through the adb server's transport, for what adbkit's API does not
 * offer: the shell protocol v2 (separate stdout and stderr, and the exit code) and `exec:` (raw
 * binary stdout, e.g. screencap). A service request is the host protocol's length-prefixed text;
 * the reply is OKAY, or FAIL with a message.
 */
export class AdbServiceError extends Error {
  override name = 'AdbServiceError';
  constructor(readonly serial: string, readonly service: string, reason: string) {
    super(`${serial}: ${service.split(':')[0]}: ${reason}`);
  }
}

async function readAll(stream: Duplex): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Opens a device service on a fresh transport and returns its raw stream. */
export async function openService(device: DeviceClient, serial: string, service: string): Promise<Duplex> {
  const conn = await device.transport();
  const body = Buffer.from(service, 'utf8');
  conn.write(Buffer.concat([Buffer.from(body.length.toString(16).padStart(4, '0'), 'ascii'), body]));
  const reply = await conn.parser.readAscii(4);
  if (reply === 'OKAY') return conn.parser.raw();
  if (reply === 'FAIL') {
    const len = parseInt(await conn.parser.readAscii(4), 16);
    const msg = (await conn.parser.readBytes(len)).toString('utf8');
    conn.end();
    throw new AdbServiceError(serial, service, msg);
  }
  conn.end();
  throw new AdbServiceError(serial, service, `unexpected reply ${JSON.stringify(reply)}`);
}

/** Shell protocol v2 packet ids (adb's shell_protocol.h). */
const STDOUT = 1;
const STDERR = 2;
const EXIT = 3;

/** Parses shell v2 packets: [id: u8][length: u32 LE][data]. */
export function parseShellV2(data: Buffer): ShellResult & { stdoutBytes: Buffer } {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  let exitCode = -1;
  let i = 0;
  while (i + 5 <= data.length) {
    const id = data[i]!;
    const len = data.readUInt32LE(i + 1);
    const payload = data.subarray(i + 5, i + 5 + len);
    if (id === STDOUT) out.push(payload);
    else if (id === STDERR) err.push(payload);
    else if (id === EXIT && len >= 1) exitCode = payload[0]!;
    i += 5 + len;
  }
  const stdoutBytes = Buffer.concat(out);
  return { stdout: stdoutBytes.toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), exitCode, stdoutBytes };
}

export async function shellV2(device: DeviceClient, serial: string, command: string): Promise<ShellResult & { stdoutBytes: Buffer }> {
  const stream = await openService(device, serial, `shell,v2,raw:${command}`);
  const r = parseShellV2(await readAll(stream));
  if (r.exitCode < 0) throw new AdbServiceError(serial, 'shell,v2', 'the stream ended without an exit status');
  return r;
}

/**
 * A shell command on a device without shell_v2 (old Android): stdout and stderr arrive merged, and
 * the exit code is read from a marker printed after the command.
 */
export async function shellV1(device: DeviceClient, serial: string, command: string): Promise<ShellResult & { stdoutBytes: Buffer }> {
  const marker = '__AWB_EXIT__';
  const stream = await openService(device, serial, `shell:${command}; echo ${marker}$?`);
  const all = await readAll(stream);
  const text = all.toString('utf8').replace(/\r\n/g, '\n');
  const m = new RegExp(`${marker}(\\d+)\\n?$`).exec(text);
  const stdout = m ? text.slice(0, m.index) : text;
  return { stdout, stderr: '', exitCode: m ? Number(m[1]) : -1, stdoutBytes: Buffer.from(stdout, 'utf8') };
}

/** `exec:` — binary-safe stdout (what `adb exec-out` uses). */
export async function exec(device: DeviceClient, serial: string, command: string): Promise<Buffer> {
  return readAll(await openService(device, serial, `exec:${command}`));
}
