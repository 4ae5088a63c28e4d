import { SH, type ShellOutput } from '../../shell/run.js';
import { properties } from '../../shell/commands/system.js';
import type { Service, ServiceContext, ServiceFactory, ServiceStream } from '../service.js';
import { ShellPacket, ShellPacketReader, encodeShellPackets, exitPacket } from './shell-protocol.js';
import { readsSessionStdin } from './stdin.js';

/** How the host asked for a shell (`shell[,v2][,raw|pty][,TERM=…]:[command]`, or `exec:command`). */
export interface ShellRequest {
  /** 'none': raw bytes, stderr merged, no exit code; 'v2': the shell protocol. */
  protocol: 'none' | 'v2';
  /** A terminal: output newlines become CRLF, stderr joins stdout, typed input is echoed. */
  pty: boolean;
  /** Empty for an interactive shell. */
  command: string;
}

/** Stdin a session buffers at most before it is cut off (SimDroid keeps files in memory). */
export const MAX_STDIN = 256 * 1024 * 1024;

/** Longest line an interactive session buffers; a longer one ends the session, not the process. */
const MAX_LINE = 1024 * 1024;

const EMPTY = Buffer.alloc(0);

/** Parses a shell or exec service name the way adbd does; null when it is neither. */
export function parseShellService(name: string): ShellRequest | null {
  // adbd runs exec: without the shell protocol, in a raw-mode pty: bytes pass untouched, stderr included.
  if (name.startsWith('exec:')) return { protocol: 'none', pty: false, command: name.slice('exec:'.length) };
  const colon = name.indexOf(':');
  if (!name.startsWith('shell') || colon < 0) return null;
  const head = name.slice('shell'.length, colon);
  if (head !== '' && !head.startsWith(',')) return null;
  const command = name.slice(colon + 1);
  const req: ShellRequest = { protocol: 'none', pty: command === '', command };
  for (const arg of head.split(',')) {
    if (arg === 'v2') req.protocol = 'v2';
    else if (arg === 'raw') req.pty = false;
    else if (arg === 'pty') req.pty = true;
    // TERM=… and unknown arguments are ignored, as adbd does "to allow for future expansion".
  }
  return req;
}

export function shellService(ctx: ServiceContext, req: ShellRequest): ServiceFactory {
  return (stream) => (req.command === '' ? new InteractiveShell(ctx, req, stream) : commandSession(ctx, req, stream));
}

/** Runs one command line, turning an unexpected failure into what a crashed shell would print. */
function runLine(ctx: ServiceContext, line: string, stdin: Buffer): ShellOutput {
  try {
    return ctx.device.shellBytes(line, stdin);
  } catch (e) {
    ctx.log(`shell ${JSON.stringify(line)} threw: ${(e as Error).stack ?? String(e)}`);
    return { stdout: EMPTY, stderr: Buffer.from(`${SH}: ${(e as Error).message}\n`), exitCode: 255 };
  }
}

/** runLine for a one-command session: a `screencap -p` encodes off the event loop, so other streams get answers meanwhile. */
async function runLineAsync(ctx: ServiceContext, line: string, stdin: Buffer): Promise<ShellOutput> {
  try {
    // A one-command session may stay open for a following command (`logcat`), as adbd's does.
    return await ctx.device.shellBytesAsync(line, stdin, { follow: true });
  } catch (e) {
    ctx.log(`shell ${JSON.stringify(line)} threw: ${(e as Error).stack ?? String(e)}`);
    return { stdout: EMPTY, stderr: Buffer.from(`${SH}: ${(e as Error).message}\n`), exitCode: 255 };
  }
}

/** Where a session's output goes: raw bytes, or shell-protocol packets; CRLF on a terminal. */
class ShellWriter {
  constructor(private readonly stream: ServiceStream, private readonly req: ShellRequest) {}

  out(data: Buffer): void {
    if (data.length === 0) return;
    // A pty's output processing (onlcr) turns every LF into CR LF.
    const bytes = this.req.pty ? Buffer.from(data.toString('latin1').replace(/\n/g, '\r\n'), 'latin1') : data;
    if (this.req.protocol === 'v2') for (const p of encodeShellPackets(ShellPacket.stdout, bytes)) this.stream.write(p);
    else this.stream.write(bytes);
  }

  err(data: Buffer): void {
    if (data.length === 0) return;
    // Only a raw process under the shell protocol has a separate stderr.
    if (this.req.protocol === 'v2' && !this.req.pty) for (const p of encodeShellPackets(ShellPacket.stderr, data)) this.stream.write(p);
    else this.out(data);
  }

  result(r: ShellOutput): void {
    this.out(r.stdout);
    this.err(r.stderr);
  }

  exit(code: number): void {
    if (this.req.protocol === 'v2') this.stream.write(exitPacket(code));
    this.stream.end();
  }
}

interface InputEvents {
  data(bytes: Buffer): void;
  /** The host has no more input (close-stdin packet, or the stream closed without the protocol). */
  eof(): void;
}

/** Turns the host's WRTE payloads into stdin bytes and end-of-input, for either protocol. */
class ShellInput {
  private readonly packets: ShellPacketReader | null;

  constructor(req: ShellRequest, private readonly events: InputEvents, private readonly onBadInput: (e: Error) => void) {
    this.packets = req.protocol === 'v2' ? new ShellPacketReader() : null;
  }

  onData(chunk: Buffer): void {
    if (!this.packets) return this.events.data(chunk);
    let packets;
    try {
      packets = this.packets.push(chunk);
    } catch (e) {
      return this.onBadInput(e as Error);
    }
    for (const p of packets) {
      if (p.id === ShellPacket.stdin) this.events.data(p.data);
      else if (p.id === ShellPacket.closeStdin) this.events.eof();
      // Window size changes mean nothing to SimDroid's shell; other ids are ignored like adbd.
    }
  }
}

/** `shell:cmd`, `shell,v2,…:cmd`, `exec:cmd`: run one command line, send its output (and exit code), close. */
function commandSession(ctx: ServiceContext, req: ShellRequest, stream: ServiceStream): Service {
  const writer = new ShellWriter(stream, req);
  // A following command writes until the host closes the stream (adb kills `adb logcat`).
  let stopFollowing: (() => void) | null = null;
  let hungUp = false;
  const run = (stdin: Buffer) => {
    // The command reads the device now; only an encode may finish later. A closed stream drops the output.
    void runLineAsync(ctx, req.command, stdin).then((r) => {
      writer.result(r);
      if (r.follow && !hungUp) stopFollowing = r.follow((d) => writer.out(d));
      else writer.exit(r.exitCode);
    }).catch((e: unknown) => ctx.log(`shell ${JSON.stringify(req.command)}: ${(e as Error).stack ?? String(e)}`));
  };
  const hangUp = () => {
    hungUp = true;
    stopFollowing?.();
    stopFollowing = null;
  };
  // On a pty, input is keystrokes, not a file: the command runs at once.
  if (req.pty || !readsSessionStdin(req.command)) {
    run(EMPTY);
    return { onData: () => {}, onClose: hangUp };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    run(Buffer.concat(chunks, size));
  };
  const input = new ShellInput(req, {
    data: (b) => {
      if (finished) return;
      size += b.length;
      if (size > MAX_STDIN) {
        finished = true;
        writer.err(Buffer.from(`${SH}: stdin: No space left on device\n`));
        writer.exit(1);
        return;
      }
      chunks.push(b);
    },
    eof: finish,
  }, () => stream.end());
  return {
    onData: (c) => input.onData(c),
    // Without the protocol a closed stream is the end of stdin (`adb exec-in`): the command still
    // runs for its side effects. Under v2 it is a hangup: the command never started, and never will.
    onClose: () => {
      if (req.protocol === 'none') finish();
      else finished = true;
      hangUp();
    },
  };
}

/** `shell:` / `shell,v2,pty:` / `shell,v2,raw:` with no command: read lines, run each. */
class InteractiveShell implements Service {
  private line: number[] = [];
  private lastCode = 0;
  private exited = false;
  private readonly writer: ShellWriter;
  private readonly input: ShellInput;
  private readonly prompt: string;

  constructor(private readonly ctx: ServiceContext, private readonly req: ShellRequest, stream: ServiceStream) {
    this.writer = new ShellWriter(stream, req);
    this.input = new ShellInput(req, { data: (b) => this.onInput(b), eof: () => this.onEof() }, () => this.exit(1));
    // mksh's PS1 on Android: host name (ro.product.device), the directory, $ for the shell user.
    this.prompt = `${properties(ctx.device)['ro.product.device']}:/ $ `;
    this.showPrompt();
  }

  onData(chunk: Buffer): void {
    this.input.onData(chunk);
  }

  onClose(): void {
    this.exited = true;
  }

  private onInput(bytes: Buffer): void {
    for (const byte of bytes) {
      if (this.exited) return;
      if (this.line.length >= MAX_LINE) {
        this.writer.err(Buffer.from(`${SH}: line too long\n`));
        return this.exit(1);
      }
      if (!this.req.pty) {
        if (byte === 0x0a) this.runLine();
        else this.line.push(byte);
        continue;
      }
      // A terminal line discipline: echo, erase, interrupt, end-of-file.
      if (byte === 0x0d || byte === 0x0a) {
        // Echoed as a newline, which output processing shows as CR LF.
        this.echo('\n');
        this.runLine();
      } else if (byte === 0x7f || byte === 0x08) {
        if (this.line.length) {
          this.line.pop();
          this.echo('\b \b');
        }
      } else if (byte === 0x03) {
        this.line = [];
        this.echo('^C\n');
        this.showPrompt();
      } else if (byte === 0x04) {
        if (this.line.length === 0) this.exit(this.lastCode);
      } else {
        this.line.push(byte);
        this.writer.out(Buffer.from([byte]));
      }
    }
  }

  private onEof(): void {
    // A pty cannot close just its input (adbd ignores close-stdin there); a pipe can.
    if (this.req.pty || this.exited) return;
    if (this.line.length) this.runLine();
    if (!this.exited) this.exit(this.lastCode);
  }

  private runLine(): void {
    const text = Buffer.from(this.line).toString('utf8').trim();
    this.line = [];
    const exit = /^exit(?:\s+(\d+))?$/.exec(text);
    if (exit) return this.exit(exit[1] === undefined ? this.lastCode : Number(exit[1]));
    if (text !== '') {
      const r = runLine(this.ctx, text, EMPTY);
      this.writer.result(r);
      this.lastCode = r.exitCode;
    }
    this.showPrompt();
  }

  private echo(text: string): void {
    this.writer.out(Buffer.from(text, 'latin1'));
  }

  private showPrompt(): void {
    if (this.req.pty) this.writer.out(Buffer.from(this.prompt, 'utf8'));
  }

  private exit(code: number): void {
    if (this.exited) return;
    this.exited = true;
    this.writer.exit(code);
  }
}
