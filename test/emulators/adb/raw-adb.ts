import { connect, type Socket } from 'node:net';

/**
 * A minimal adb *host* written from protocol.txt, independent of SimDroid's own framing code, to
 * speak (and misspeak) the transport protocol byte by byte.
 */
export const CMD = {
  SYNC: 0x434e5953, CNXN: 0x4e584e43, AUTH: 0x48545541, OPEN: 0x4e45504f,
  OKAY: 0x59414b4f, CLSE: 0x45534c43, WRTE: 0x45545257,
} as const;

export interface Msg {
  command: number;
  arg0: number;
  arg1: number;
  data: Buffer;
}

export const HOST_BANNER = 'host::features=shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir';

export function frame(command: number, arg0: number, arg1: number, data: Buffer | string = Buffer.alloc(0), opts: { magic?: number; checksum?: number; length?: number } = {}): Buffer {
  const payload = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const h = Buffer.alloc(24);
  let sum = 0;
  for (const b of payload) sum = (sum + b) >>> 0;
  h.writeUInt32LE(command >>> 0, 0);
  h.writeUInt32LE(arg0 >>> 0, 4);
  h.writeUInt32LE(arg1 >>> 0, 8);
  h.writeUInt32LE((opts.length ?? payload.length) >>> 0, 12);
  h.writeUInt32LE((opts.checksum ?? sum) >>> 0, 16);
  h.writeUInt32LE((opts.magic ?? (command ^ 0xffffffff)) >>> 0, 20);
  return Buffer.concat([h, payload]);
}

export class RawAdb {
  private buf = Buffer.alloc(0);
  private readonly inbox: Msg[] = [];
  private waiters: Array<() => void> = [];
  private nextLocal = 100;
  readonly closed: Promise<void>;
  isClosed = false;

  private constructor(readonly socket: Socket) {
    socket.on('data', (c: Buffer) => {
      this.buf = Buffer.concat([this.buf, c]);
      while (this.buf.length >= 24) {
        const len = this.buf.readUInt32LE(12);
        if (this.buf.length < 24 + len) break;
        this.inbox.push({ command: this.buf.readUInt32LE(0), arg0: this.buf.readUInt32LE(4), arg1: this.buf.readUInt32LE(8), data: this.buf.subarray(24, 24 + len) });
        this.buf = this.buf.subarray(24 + len);
      }
      this.wake();
    });
    socket.on('error', () => {});
    this.closed = new Promise((resolve) => socket.on('close', () => {
      this.isClosed = true;
      this.wake();
      resolve();
    }));
  }

  static open(port: number): Promise<RawAdb> {
    return new Promise((resolve, reject) => {
      const s = connect(port, '127.0.0.1', () => resolve(new RawAdb(s)));
      s.once('error', reject);
    });
  }

  /** Opens a connection and completes the CNXN handshake. */
  static async online(port: number, opts: { version?: number; maxdata?: number } = {}): Promise<{ adb: RawAdb; cnxn: Msg }> {
    const adb = await RawAdb.open(port);
    adb.write(frame(CMD.CNXN, opts.version ?? 0x01000001, opts.maxdata ?? 1024 * 1024, `${HOST_BANNER}\0`));
    const cnxn = await adb.next();
    if (cnxn.command !== CMD.CNXN) throw new Error(`expected CNXN, got 0x${cnxn.command.toString(16)}`);
    return { adb, cnxn };
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  write(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  send(command: number, arg0: number, arg1: number, data?: Buffer | string): void {
    this.write(frame(command, arg0, arg1, data));
  }

  /** The next message; rejects if the connection closes first. */
  async next(): Promise<Msg> {
    return this.nextWhere(() => true);
  }

  /** The first message (in arrival order) that matches; others stay queued for later. */
  async nextWhere(match: (m: Msg) => boolean): Promise<Msg> {
    for (;;) {
      const i = this.inbox.findIndex(match);
      if (i >= 0) return this.inbox.splice(i, 1)[0]!;
      if (this.isClosed) throw new Error('connection closed');
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }

  /** OPENs a service: the stream, or null when the device refuses it with CLSE. */
  async openStream(service: string | Buffer): Promise<RawStream | null> {
    const local = this.nextLocal++;
    this.send(CMD.OPEN, local, 0, typeof service === 'string' ? `${service}\0` : service);
    const m = await this.nextWhere((x) => x.arg1 === local);
    if (m.command === CMD.CLSE) return null;
    if (m.command !== CMD.OKAY) throw new Error(`unexpected reply 0x${m.command.toString(16)} to OPEN`);
    return new RawStream(this, local, m.arg0);
  }

  /** Opens a service and returns all it writes. */
  async run(service: string): Promise<Buffer> {
    const s = await this.openStream(service);
    if (!s) throw new Error(`${service} refused`);
    return s.readAll();
  }

  close(): void {
    this.socket.destroy();
  }
}

/** One stream's view: its own messages only, each WRTE acknowledged, in order. */
export class RawStream {
  private received: Buffer[] = [];
  closedByDevice = false;

  constructor(private readonly adb: RawAdb, readonly local: number, readonly remote: number) {}

  private async step(opts: { maxPayload?: number } = {}): Promise<'okay' | 'data' | 'close'> {
    const m = await this.adb.nextWhere((x) => x.arg1 === this.local);
    if (m.command === CMD.OKAY) return 'okay';
    if (m.command === CMD.CLSE) {
      this.closedByDevice = true;
      return 'close';
    }
    if (m.command !== CMD.WRTE) throw new Error(`unexpected 0x${m.command.toString(16)} on stream ${this.local}`);
    if (opts.maxPayload !== undefined && m.data.length > opts.maxPayload) throw new Error(`WRTE of ${m.data.length} > ${opts.maxPayload}`);
    this.received.push(m.data);
    this.adb.send(CMD.OKAY, this.local, this.remote);
    return 'data';
  }

  /** WRTEs `data` and waits for the device's OKAY (keeping any output that arrives meanwhile). */
  async write(data: Buffer | string): Promise<void> {
    this.adb.send(CMD.WRTE, this.local, this.remote, data);
    for (;;) {
      const what = await this.step();
      if (what === 'okay') return;
      if (what === 'close') throw new Error(`stream ${this.local} closed while writing`);
    }
  }

  /** Output until the device's CLSE. */
  async readAll(opts: { maxPayload?: number } = {}): Promise<Buffer> {
    while (!this.closedByDevice) await this.step(opts);
    const out = Buffer.concat(this.received);
    this.received = [];
    return out;
  }

  /** Output until `done` says the text so far is complete (the stream stays open). */
  async readUntil(done: (text: string) => boolean): Promise<string> {
    while (!done(Buffer.concat(this.received).toString()) && !this.closedByDevice) await this.step();
    const out = Buffer.concat(this.received).toString();
    this.received = [];
    return out;
  }

  close(): void {
    this.adb.send(CMD.CLSE, this.local, this.remote);
  }
}

/** Shell-protocol packets from a v2 stream's bytes. */
export function shellPackets(bytes: Buffer): Array<{ id: number; data: Buffer }> {
  const out: Array<{ id: number; data: Buffer }> = [];
  let at = 0;
  while (at + 5 <= bytes.length) {
    const len = bytes.readUInt32LE(at + 1);
    out.push({ id: bytes[at]!, data: bytes.subarray(at + 5, at + 5 + len) });
    at += 5 + len;
  }
  return out;
}
