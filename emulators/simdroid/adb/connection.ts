import type { Socket } from 'node:net';
import {
  A_AUTH, A_CLSE, A_CNXN, A_OKAY, A_OPEN, A_VERSION, A_VERSION_MIN, A_VERSION_SKIP_CHECKSUM, A_WRTE, AdbProtocolError,
  MAX_PAYLOAD, MAX_PAYLOAD_V1, MessageReader, commandName, encodeHeader, type AdbMessage,
} from './message.js';
import { AUTH_RSAPUBLICKEY, AUTH_SIGNATURE, AUTH_TOKEN, AdbKeyFormatError, type DeviceKeyStore } from './auth.js';
import { AdbStream, type StreamLink } from './stream.js';
import type { ServiceFactory } from './service.js';

/** Service names longer than this are refused: no adb client sends one, and it bounds what we parse. */
export const MAX_SERVICE_NAME = 64 * 1024;

/** Failed signatures tolerated on one connection before it is dropped (a host has a handful of keys). */
const MAX_AUTH_ATTEMPTS = 64;
const EMPTY = Buffer.alloc(0);

export interface ConnectionOptions {
  /** The CNXN identity: "device::ro.product.name=…;…;features=…". */
  banner(): string;
  /** Public-key authentication, or null for none (an emulator with ro.adb.secure=0). */
  keys: DeviceKeyStore | null;
  /** The service for an OPEN, or null to refuse it. */
  resolve(name: string): ServiceFactory | null;
  log(message: string): void;
}

type State = 'connecting' | 'authenticating' | 'online' | 'closed';

/** The OPEN payload as a service name, or null when it is not an acceptable one. */
export function serviceName(data: Buffer): string | null {
  let end = data.length;
  // adbd strips trailing NULs (older clients sent C strings; newer ones need not).
  while (end > 0 && data[end - 1] === 0) end--;
  const raw = data.subarray(0, end);
  if (raw.length === 0 || raw.length > MAX_SERVICE_NAME || raw.includes(0)) return null;
  return raw.toString('utf8');
}

/**
 * adbd's side of one transport connection: the CNXN handshake (with optional AUTH), then OPEN /
 * OKAY / WRTE / CLSE for any number of concurrent streams. Broken framing closes the connection;
 * a bad stream request closes that stream; nothing escapes the socket handlers.
 */
export class AdbConnection {
  private state: State = 'connecting';
  private peerVersion = A_VERSION_MIN;
  private maxData = MAX_PAYLOAD;
  private readonly reader: MessageReader;
  private readonly streams = new Map<number, AdbStream>();
  private nextId = 1;
  private token: Buffer | null = null;
  private authAttempts = 0;
  private readonly link: StreamLink;

  constructor(private readonly socket: Socket, private readonly opts: ConnectionOptions) {
    this.reader = new MessageReader({
      maxPayload: () => this.maxData,
      // Until CNXN tells us otherwise the peer is assumed old, as adbd does.
      checksums: () => this.peerVersion < A_VERSION_SKIP_CHECKSUM,
    });
    this.link = {
      send: (c, a0, a1, d) => this.send(c, a0, a1, d),
      maxPayload: () => this.maxData,
      release: (id) => this.streams.delete(id),
      log: (m) => this.opts.log(m),
    };
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onBytes(chunk));
    socket.on('error', (e) => this.opts.log(`adb connection ${this.peer()}: ${e.message}`));
    socket.on('close', () => this.teardown());
  }

  get closed(): boolean {
    return this.state === 'closed';
  }

  close(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.socket.destroy();
    this.teardown();
  }

  private peer(): string {
    return `${this.socket.remoteAddress ?? '?'}:${this.socket.remotePort ?? '?'}`;
  }

  private onBytes(chunk: Buffer): void {
    if (this.closed) return;
    this.reader.push(chunk);
    // Handling a message may close the connection; whatever follows it is then dropped.
    while (!this.closed) {
      let m: AdbMessage | null;
      try {
        m = this.reader.next();
      } catch (e) {
        const what = e instanceof AdbProtocolError ? e.message : `internal error: ${(e as Error).stack ?? String(e)}`;
        this.opts.log(`adb connection ${this.peer()}: ${what}; closing`);
        return this.close();
      }
      if (!m) return;
      try {
        this.handle(m);
      } catch (e) {
        // A bug in our handling must not take the process down; this connection's state is suspect.
        this.opts.log(`adb connection ${this.peer()}: internal error on ${commandName(m.command)}: ${(e as Error).stack ?? String(e)}`);
        this.close();
      }
    }
  }

  private handle(m: AdbMessage): void {
    switch (m.command) {
      case A_CNXN:
        return this.onConnect(m);
      case A_AUTH:
        return this.onAuth(m);
      case A_OPEN:
      case A_OKAY:
      case A_WRTE:
      case A_CLSE:
        // Stream traffic before the handshake completed is ignored (protocol.txt).
        if (this.state === 'online') this.onStreamMessage(m);
        return;
      default:
        // SYNC is obsolete on the wire and we never offered TLS: the peer is confused.
        this.opts.log(`adb connection ${this.peer()}: unexpected ${commandName(m.command)}; closing`);
        this.close();
    }
  }

  private onConnect(m: AdbMessage): void {
    if (m.arg0 < A_VERSION_MIN || m.arg1 < MAX_PAYLOAD_V1) {
      this.opts.log(`adb connection ${this.peer()}: CNXN version 0x${m.arg0.toString(16)} maxdata ${m.arg1} unsupported; closing`);
      this.close();
      return;
    }
    // A second CNXN restarts the session, as adbd's handle_offline does.
    for (const s of [...this.streams.values()]) s.onRemoteClose();
    this.streams.clear();
    this.peerVersion = Math.min(m.arg0, A_VERSION);
    this.maxData = Math.min(m.arg1, MAX_PAYLOAD);
    if (this.opts.keys) {
      this.state = 'authenticating';
      this.sendToken();
    } else {
      this.goOnline();
    }
  }

  private onAuth(m: AdbMessage): void {
    if (this.state !== 'authenticating' || !this.opts.keys || !this.token) return;
    if (m.arg0 === AUTH_SIGNATURE) {
      if (this.opts.keys.isAuthorized(this.token, m.data)) return this.goOnline();
      if (++this.authAttempts > MAX_AUTH_ATTEMPTS) {
        this.opts.log(`adb connection ${this.peer()}: ${this.authAttempts} failed signatures; closing`);
        return this.close();
      }
      // A fresh token for the host's next key, as adbd does.
      return this.sendToken();
    }
    if (m.arg0 === AUTH_RSAPUBLICKEY) {
      try {
        this.opts.keys.allow(m.data);
      } catch (e) {
        if (!(e instanceof AdbKeyFormatError)) throw e;
        // adbd shows no prompt for a key it cannot read: the host stays unauthorized.
        this.opts.log(`adb connection ${this.peer()}: ${e.message}`);
        return;
      }
      this.goOnline();
    }
  }

  private sendToken(): void {
    this.token = this.opts.keys!.newToken();
    this.send(A_AUTH, AUTH_TOKEN, 0, this.token);
  }

  private goOnline(): void {
    this.state = 'online';
    this.token = null;
    this.send(A_CNXN, A_VERSION, this.maxData, Buffer.from(this.opts.banner(), 'utf8'));
  }

  private onStreamMessage(m: AdbMessage): void {
    if (m.command === A_OPEN) return this.onOpen(m);
    // arg0 is the host's id, arg1 ours; messages for unknown streams are ignored (protocol.txt).
    const stream = this.streams.get(m.arg1);
    if (!stream || m.arg1 === 0) return;
    if (m.command === A_OKAY) {
      if (m.arg0 === stream.hostId) stream.onReady();
    } else if (m.command === A_WRTE) {
      if (m.arg0 !== stream.hostId) return;
      this.send(A_OKAY, stream.localId, stream.hostId);
      stream.onData(m.data);
    } else if (m.arg0 === 0 || m.arg0 === stream.hostId) {
      this.streams.delete(stream.localId);
      stream.onRemoteClose();
    }
  }

  private onOpen(m: AdbMessage): void {
    const hostId = m.arg0;
    // adbd ignores an OPEN without a local id or with a remote id.
    if (hostId === 0 || m.arg1 !== 0) return;
    const name = serviceName(m.data);
    const factory = name === null ? null : this.opts.resolve(name);
    if (!factory) {
      this.send(A_CLSE, 0, hostId);
      return;
    }
    const stream = new AdbStream(this.allocateId(), hostId, this.link);
    this.streams.set(stream.localId, stream);
    this.send(A_OKAY, stream.localId, hostId);
    try {
      stream.attach(factory(stream));
    } catch (e) {
      this.opts.log(`adb connection ${this.peer()}: service ${JSON.stringify(name)} failed to start: ${(e as Error).stack ?? String(e)}`);
      stream.end();
    }
  }

  private allocateId(): number {
    for (;;) {
      const id = this.nextId;
      this.nextId = this.nextId >= 0xffffffff ? 1 : this.nextId + 1;
      if (!this.streams.has(id)) return id;
    }
  }

  private send(command: number, arg0: number, arg1: number, data?: Buffer): void {
    if (this.state === 'closed' || this.socket.destroyed) return;
    // Header and payload go out as two writes: no copy of a 1 MiB payload.
    const checksum = this.peerVersion < A_VERSION_SKIP_CHECKSUM;
    if (!data?.length) {
      this.socket.write(encodeHeader(command, arg0, arg1, EMPTY, checksum));
      return;
    }
    this.socket.cork();
    this.socket.write(encodeHeader(command, arg0, arg1, data, checksum));
    this.socket.write(data);
    this.socket.uncork();
  }

  private teardown(): void {
    this.state = 'closed';
    const streams = [...this.streams.values()];
    this.streams.clear();
    for (const s of streams) s.onRemoteClose();
  }
}
