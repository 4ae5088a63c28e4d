import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where the emulator and `adb emu` look for the console token. */
export function defaultAuthTokenPath(): string {
  return join(homedir(), '.emulator_console_auth_token');
}

/** What the token file says about console authentication right now. */
export type ConsoleAuth =
  | { kind: 'required'; token: string }
  /** An empty file: no authentication. */
  | { kind: 'disabled' }
  /** The file cannot be read or created: the real console refuses every client. */
  | { kind: 'unavailable'; reason: string };

function isErrno(e: unknown, code: string): boolean {
  return (e as NodeJS.ErrnoException | null)?.code === code;
}

/**
 * Reads the token file, creating it with a fresh token when missing, as the emulator does: 96
 * random bits in base64, mode 0600, created exclusively so two emulators starting together agree.
 * The file is read again for every client, so editing it takes effect without a restart.
 */
export function readConsoleAuth(path: string): ConsoleAuth {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const token = readFileSync(path, 'utf8').trim();
      return token ? { kind: 'required', token } : { kind: 'disabled' };
    } catch (e) {
      if (!isErrno(e, 'ENOENT')) return { kind: 'unavailable', reason: (e as Error).message };
    }
    try {
      const token = randomBytes(12).toString('base64');
      writeFileSync(path, token, { mode: 0o600, flag: 'wx' });
      return { kind: 'required', token };
    } catch (e) {
      // Someone else created it between our read and write: read theirs.
      if (!isErrno(e, 'EEXIST')) return { kind: 'unavailable', reason: (e as Error).message };
    }
  }
  return { kind: 'unavailable', reason: `${path} keeps disappearing` };
}
