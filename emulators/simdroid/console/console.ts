import type { Socket } from 'node:net';
import type { SimDroid } from '../simdroid.js';
import { readConsoleAuth } from './auth-token.js';
import { HELP_PROMPT, commandHelp, findCommand, mainCommands, preauthCommands, type ConsoleCommand, type ConsoleSession } from './commands.js';

/** The real console's line buffer: a longer line wraps and only its tail is kept. */
const LINE_BUFFER = 4096;

const HTTP_REQUEST_LINE = /^[A-Z]+ \S+ HTTP\/\d\.\d$/;

/** How long a closing session may take to flush its last reply. */
const CLOSE_GRACE_MS = 1000;

export interface ConsoleOptions {
  device: SimDroid;
  /** The file holding the auth token (see auth-token.ts). */
  authTokenPath: string;
  /** What `avd name` answers. */
  avdName: string;
  /** Called after a `kill` reply has been written: stop the emulator. */
  onKill(): void;
  log(message: string): void;
}

/** The emulator console on the even port: a line-oriented text protocol, one session per socket. */
export class EmulatorConsole {
  private readonly sessions = new Set<ConsoleClient>();

  constructor(private readonly opts: ConsoleOptions) {}

  accept(socket: Socket): void {
    const client = new ConsoleClient(socket, this.opts);
    this.sessions.add(client);
    socket.on('close', () => this.sessions.delete(client));
  }

  /** Ends every session once its pending output is flushed. */
  closeAll(): void {
    for (const s of [...this.sessions]) s.close();
    this.sessions.clear();
  }
}

class ConsoleClient implements ConsoleSession {
  commands: readonly ConsoleCommand[];
  private line: number[] = [];
  private finished = false;
  readonly device: SimDroid;
  readonly avdName: string;

  constructor(private readonly socket: Socket, private readonly opts: ConsoleOptions) {
    this.device = opts.device;
    this.avdName = opts.avdName;
    socket.setNoDelay(true);
    socket.on('error', (e) => opts.log(`console client: ${e.message}`));
    socket.on('data', (chunk: Buffer) => this.onBytes(chunk));
    const auth = readConsoleAuth(opts.authTokenPath);
    if (auth.kind === 'unavailable') {
      // The real console drops the client at once when the token file is unusable.
      opts.log(`console: ${auth.reason}; refusing client`);
      this.commands = [];
      this.finished = true;
      socket.destroy();
      return;
    }
    if (auth.kind === 'disabled') {
      this.commands = mainCommands();
      this.write(`${HELP_PROMPT}OK\n`);
    } else {
      this.commands = preauthCommands();
      this.write(
        'Android Console: Authentication required\n' +
          "Android Console: type 'auth <auth_token>' to authenticate\n" +
          `Android Console: you can find your <auth_token> in \n'${opts.authTokenPath}'\nOK\n`,
      );
    }
  }

  write(text: string): void {
    if (this.socket.destroyed || this.socket.writableEnded) return;
    this.socket.write(text.replace(/(?<!\r)\n/g, '\r\n'));
  }

  authenticate(token: string): 'ok' | 'mismatch' | 'unreadable' {
    const auth = readConsoleAuth(this.opts.authTokenPath);
    if (auth.kind === 'unavailable') return 'unreadable';
    if (auth.kind === 'disabled' || auth.token !== token) return 'mismatch';
    this.commands = mainCommands();
    return 'ok';
  }

  quit(): void {
    this.close();
  }

  kill(): void {
    this.finished = true;
    // Let this reply (and its "OK") reach the client before the host tears everything down.
    setImmediate(() => this.opts.onKill());
  }

  close(): void {
    this.finished = true;
    if (this.socket.destroyed) return;
    // Flush the last reply, then close; a client that stops reading cannot hold the host open.
    this.socket.end(() => this.socket.destroy());
    const deadline = setTimeout(() => this.socket.destroy(), CLOSE_GRACE_MS);
    deadline.unref();
    this.socket.once('close', () => clearTimeout(deadline));
  }

  private onBytes(chunk: Buffer): void {
    for (const byte of chunk) {
      if (this.finished) return;
      if (byte === 0x0d) continue;
      if (byte !== 0x0a) {
        if (this.line.length >= LINE_BUFFER - 1) this.line = [];
        this.line.push(byte);
        continue;
      }
      const bytes = Buffer.from(this.line);
      this.line = [];
      try {
        this.execute(bytes);
      } catch (e) {
        // A bug in a command must not take the emulator down; the client hears about it.
        this.opts.log(`console: command ${JSON.stringify(bytes.toString('latin1'))} threw: ${(e as Error).stack ?? String(e)}`);
        this.write(`KO: internal error: ${(e as Error).message}\n`);
      }
    }
  }

  private execute(bytes: Buffer): void {
    // The line is a C string on the real console: it ends at the first NUL.
    const nul = bytes.indexOf(0);
    const raw = nul < 0 ? bytes : bytes.subarray(0, nul);
    let line: string;
    try {
      line = new TextDecoder('utf-8', { fatal: true }).decode(raw);
    } catch {
      this.write('KO: Forbidden binary request. Aborting\n');
      return this.close();
    }
    if (HTTP_REQUEST_LINE.test(line)) {
      this.write('KO: Forbidden HTTP request. Aborting\n');
      return this.close();
    }
    this.dispatch(line);
  }

  /** Finds the command, descending into sub-commands, and runs it, as the real console does. */
  private dispatch(line: string): void {
    const found = findCommand(line, this.commands);
    if (!found) return this.write("KO: unknown command, try 'help'\n");
    let { cmd, args } = found;
    for (;;) {
      if (cmd.run) {
        if (cmd.run(this, args)) this.write('OK\n');
        return;
      }
      if (!cmd.sub) return this.write(`KO: internal error: buggy command table for '${line}'\n`);
      if (args === null) {
        commandHelp(this, cmd, '');
        return this.write('KO: missing sub-command\n');
      }
      const sub = findCommand(args, cmd.sub);
      if (!sub) {
        commandHelp(this, cmd, '');
        return this.write('KO:  bad sub-command\n');
      }
      ({ cmd, args } = sub);
    }
  }
}
