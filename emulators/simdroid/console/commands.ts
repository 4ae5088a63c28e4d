import type { SimDroid } from '../simdroid.js';
import { avdSnapshot, avdStatus } from './avd.js';
import { gsm } from './gsm.js';
import { sms } from './sms.js';

/**
 * The emulator console's commands, in the shape of the real console's table (android-emu
 * console.cpp): names separated by '|', a one-line abstract, optional help text, and either a
 * handler or sub-commands. A handler returns true for success, which the session answers with
 * "OK"; on failure it has written its own "KO: …" line.
 */
export interface ConsoleCommand {
  names: string;
  abstract: string;
  description?: string;
  run?: (session: ConsoleSession, args: string | null) => boolean;
  sub?: readonly ConsoleCommand[];
}

/** What commands can do to the session and the emulator they belong to. */
export interface ConsoleSession {
  /** Writes console output; LF becomes CR LF as on the real console. */
  write(text: string): void;
  /** The command table in force (before or after authentication). */
  readonly commands: readonly ConsoleCommand[];
  readonly device: SimDroid;
  readonly avdName: string;
  /** Checks a token against the token file and, when it matches, unlocks the full command set. */
  authenticate(token: string): 'ok' | 'mismatch' | 'unreadable';
  /** Ends this session after the current line. */
  quit(): void;
  /** Stops the whole emulator (both ports) once this reply is out. */
  kill(): void;
}

export const HELP_PROMPT = "Android Console: type 'help' for a list of commands\n";

/** The command matching the start of `input`, and the arguments after it (null when none). */
export function findCommand(input: string, table: readonly ConsoleCommand[]): { cmd: ConsoleCommand; args: string | null } | null {
  const space = input.indexOf(' ');
  const rest = space < 0 ? '' : input.slice(space).replace(/^ +/, '');
  const args = rest === '' ? null : rest;
  for (const cmd of table) {
    for (const name of cmd.names.split('|')) {
      const next = input[name.length];
      if (input.startsWith(name) && (next === undefined || next === ' ')) return { cmd, args };
    }
  }
  return null;
}

/** A command's help: its description (or abstract) and its sub-commands. */
export function commandHelp(session: ConsoleSession, cmd: ConsoleCommand, prefix: string): void {
  session.write(cmd.description ?? `${cmd.abstract}\n`);
  if (!cmd.sub) return;
  session.write('\navailable sub-commands:\n');
  for (const s of cmd.sub) session.write(`   ${prefix} ${s.names.padEnd(15)}  ${s.abstract}\n`);
  session.write('\n');
}

function listCommands(session: ConsoleSession): void {
  session.write('Android console commands:\n');
  for (const c of session.commands) session.write(`    ${c.names}\n`);
  session.write("\nTry 'help-verbose' for more description\nTry 'help <command>' for command-specific help\n");
}

const help: ConsoleCommand = {
  names: 'help|h|?',
  abstract: 'print a list of commands',
  run: (session, args) => {
    if (args === null) {
      listCommands(session);
      return true;
    }
    let table = session.commands;
    let rest: string | null = args;
    for (;;) {
      const found = findCommand(rest, table);
      if (!found) {
        listCommands(session);
        session.write('\nKO: unknown command\n');
        return false;
      }
      if (found.args === null || !found.cmd.sub) {
        commandHelp(session, found.cmd, args);
        return true;
      }
      table = found.cmd.sub;
      rest = found.args;
    }
  },
};

const helpVerbose: ConsoleCommand = {
  names: 'help-verbose',
  abstract: 'print a list of commands with descriptions',
  run: (session) => {
    session.write('Android console command help:\n\n');
    for (const c of session.commands) session.write(`    ${c.names.padEnd(15)}  ${c.abstract}\n`);
    session.write("\ntry 'help <command>' for command-specific help\n");
    return true;
  },
};

const ping: ConsoleCommand = {
  names: 'ping',
  abstract: 'check if the emulator is alive',
  run: (session) => {
    session.write('I am alive!\n');
    return true;
  },
};

const quit: ConsoleCommand = {
  names: 'quit|exit',
  abstract: 'quit control session',
  run: (session) => {
    session.quit();
    return false;
  },
};

const kill: ConsoleCommand = {
  names: 'kill',
  abstract: 'kill the emulator instance',
  run: (session) => {
    session.write('OK: killing emulator, bye bye\n');
    session.kill();
    return true;
  },
};

const auth: ConsoleCommand = {
  names: 'auth',
  abstract: 'user authentication for the emulator console',
  description: "use 'auth <auth_token>' to get extended console functionality\n",
  run: (session, args) => {
    if (args === null) {
      session.write('KO: missing authentication token\n');
      return false;
    }
    switch (session.authenticate(args)) {
      case 'ok':
        session.write(HELP_PROMPT);
        return true;
      case 'unreadable':
        session.write('KO: unable to read ~/.emulator_console_auth_token\n');
        return false;
      case 'mismatch':
        session.write('KO: authentication token does not match ~/.emulator_console_auth_token\n');
        return false;
    }
  },
};

const avdName: ConsoleCommand = {
  names: 'name',
  abstract: 'query virtual device name',
  description: "'avd name' will return the name of this virtual device\n",
  run: (session) => {
    session.write(`${session.avdName}\n`);
    return true;
  },
};

function avd(sub: readonly ConsoleCommand[]): ConsoleCommand {
  return {
    names: 'avd',
    abstract: 'control virtual device execution',
    description: 'allows you to control (e.g. start/stop) the execution of the virtual device\n',
    sub,
  };
}

/** Commands accepted before `auth`; the rest answer "KO: unknown command", as on the real console. */
export function preauthCommands(): readonly ConsoleCommand[] {
  return [help, helpVerbose, ping, avd([avdName]), auth, quit];
}

/** The full set, once authenticated (or when the token file is empty). */
export function mainCommands(): readonly ConsoleCommand[] {
  return [help, helpVerbose, ping, kill, quit, avd([avdStatus, avdName, avdSnapshot]), gsm, sms];
}
