import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';

/**
 * A client for the Android emulator console (telnet-style, on the emulator's even port): it
 * authenticates with the token in ~/.emulator_console_auth_token (empty file: no auth), sends one
 * command and returns its reply lines. Used for snapshot save/load, which reset an AVD in about a
 * second instead of a reboot.
 */
export class ConsoleError extends Error {
  override name = 'ConsoleError';
  constructor(readonly port: number, readonly command: string, reason: string) {
    super(`emulator console :${port}: ${command}: ${reason}`);
  }
}

export function defaultTokenPath(): string {
  return join(homedir(), '.emulator_console_auth_token');
}

export interface ConsoleOptions {
  host?: string;
  port: number;
  tokenPath?: string;
  timeoutMs?: number;
}

/** Runs one console command; resolves with the reply lines before OK, rejects on KO. */
export function consoleCommand(opts: ConsoleOptions, command: string): Promise<string[]> {
  const host = opts.host ?? '127.0.0.1';
  const timeout = opts.timeoutMs ?? 30_000;
  let token = '';
  try {
    token = readFileSync(opts.tokenPath ?? defaultTokenPath(), 'utf8').trim();
  } catch {
    // No token file: the console will say whether it wants one.
  }
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port: opts.port });
    let buffer = '';
    let phase: 'greeting' | 'auth' | 'command' = 'greeting';
    let needsAuth = false;
    const lines: string[] = [];
    const fail = (reason: string) => {
      socket.destroy();
      reject(new ConsoleError(opts.port, command, reason));
    };
    socket.setTimeout(timeout, () => fail(`no reply within ${timeout} ms`));
    socket.on('error', (e) => fail(e.message));
    socket.on('data', (d) => {
      buffer += d.toString('utf8');
      let nl;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl).replace(/\r$/, '');
        buffer = buffer.slice(nl + 1);
        if (line.startsWith('KO')) return fail(line.replace(/^KO:?\s*/, ''));
        if (line !== 'OK') {
          if (phase === 'command') lines.push(line);
          if (phase === 'greeting' && /Authentication required/.test(line)) {
            if (!token) return fail(`authentication required and no token in ${opts.tokenPath ?? defaultTokenPath()}`);
            needsAuth = true;
          }
          continue;
        }
        if (phase === 'greeting' && needsAuth) {
          phase = 'auth';
          socket.write(`auth ${token}\n`);
        } else if (phase === 'greeting' || phase === 'auth') {
          phase = 'command';
          socket.write(`${command}\n`);
        } else {
          socket.end('quit\n');
          resolve(lines);
        }
      }
    });
  });
}
