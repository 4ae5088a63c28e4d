import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHost } from '../../../emulators/simdroid/host.js';
import { startHost, tempHome } from './helpers.js';

/** The emulator console on the even port, spoken to over a plain socket as telnet would. */
const TOKEN = 'c0nsole-t0ken';
let host: EmulatorHost;
const home = tempHome(TOKEN);

beforeAll(async () => {
  host = await startHost({ authTokenPath: home.tokenPath });
});
afterAll(async () => {
  await host.stop();
  home.remove();
});

class Telnet {
  text = '';
  closed = false;
  private waiters: Array<() => void> = [];
  private constructor(readonly socket: Socket) {
    socket.on('data', (c: Buffer) => {
      this.text += c.toString('latin1');
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => {});
  }

  static open(port: number): Promise<Telnet> {
    return new Promise((resolve, reject) => {
      const s = connect(port, '127.0.0.1', () => resolve(new Telnet(s)));
      s.once('error', reject);
    });
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    w.forEach((f) => f());
  }

  /** Text received until `done` holds (or the console closed); consumed. */
  async until(done: (t: string) => boolean): Promise<string> {
    while (!done(this.text) && !this.closed) await new Promise<void>((r) => this.waiters.push(r));
    const out = this.text;
    this.text = '';
    return out;
  }

  /** Sends a line and returns the reply up to its final OK or KO line. */
  async cmd(line: string): Promise<string> {
    this.socket.write(`${line}\n`);
    return this.until((t) => /(^|\r\n)(OK|KO[^\r]*)\r\n$/.test(t));
  }

  greeting(): Promise<string> {
    return this.until((t) => t.endsWith('OK\r\n'));
  }

  async authed(): Promise<Telnet> {
    await this.greeting();
    expect(await this.cmd(`auth ${TOKEN}`)).toBe("Android Console: type 'help' for a list of commands\r\nOK\r\n");
    return this;
  }

  close(): void {
    this.socket.destroy();
  }
}

describe('authentication', () => {
  it('greets with the auth request and the token file, word for word', async () => {
    const t = await Telnet.open(host.consolePort);
    expect(await t.greeting()).toBe(
      'Android Console: Authentication required\r\n' +
        "Android Console: type 'auth <auth_token>' to authenticate\r\n" +
        `Android Console: you can find your <auth_token> in \r\n'${home.tokenPath}'\r\nOK\r\n`,
    );
    t.close();
  });

  it('refuses commands before auth and a wrong token, then accepts the right one', async () => {
    const t = await Telnet.open(host.consolePort);
    await t.greeting();
    expect(await t.cmd('kill')).toBe("KO: unknown command, try 'help'\r\n");
    expect(await t.cmd('avd snapshot list')).toContain('KO:  bad sub-command\r\n');
    expect(await t.cmd('ping')).toBe('I am alive!\r\nOK\r\n');
    expect(await t.cmd('auth')).toBe('KO: missing authentication token\r\n');
    expect(await t.cmd('auth wrong')).toBe('KO: authentication token does not match ~/.emulator_console_auth_token\r\n');
    expect(await t.cmd(`auth ${TOKEN}`)).toBe("Android Console: type 'help' for a list of commands\r\nOK\r\n");
    expect(await t.cmd('avd status')).toBe('virtual device is running\r\nOK\r\n');
    t.close();
  });

  it('needs no auth when the token file is empty, and creates a token file when there is none', async () => {
    const open = tempHome('');
    const created = join(open.home, 'fresh_token');
    const other = await startHost({ authTokenPath: created });
    try {
      expect(readFileSync(created, 'utf8')).toMatch(/^[A-Za-z0-9+/]{16}$/);
      expect(statSync(created).mode & 0o777).toBe(0o600);
      writeFileSync(created, '');
      const t = await Telnet.open(other.consolePort);
      expect(await t.greeting()).toBe("Android Console: type 'help' for a list of commands\r\nOK\r\n");
      expect(await t.cmd('avd name')).toBe('SimDroid\r\nOK\r\n');
      t.close();
    } finally {
      await other.stop();
      open.remove();
    }
  });
});

describe('commands', () => {
  it('lists its commands with help, and explains one', async () => {
    const t = await (await Telnet.open(host.consolePort)).authed();
    const help = await t.cmd('help');
    expect(help).toMatch(/^Android console commands:\r\n {4}help\|h\|\?\r\n/);
    expect(help).toContain('    avd\r\n');
    expect(help).toContain('    kill\r\n');
    expect(help).toMatch(/\r\nTry 'help <command>' for command-specific help\r\nOK\r\n$/);
    expect(await t.cmd('help avd snapshot')).toMatch(/^allows you to save and restore .*\r\n\r\navailable sub-commands:\r\n {3}avd snapshot list {13}list available state snapshots\r\n/);
    expect(await t.cmd('frobnicate')).toBe("KO: unknown command, try 'help'\r\n");
    expect(await t.cmd('avd')).toMatch(/available sub-commands:[\s\S]*KO: missing sub-command\r\n$/);
    t.close();
  });

  it('saves a snapshot, loads it back after the state changed, lists and deletes it', async () => {
    const t = await (await Telnet.open(host.consolePort)).authed();
    host.device.shellBytes('settings put global console_test saved');
    expect(await t.cmd('avd snapshot save console-snap')).toBe('OK\r\n');
    host.device.shellBytes('settings put global console_test changed; am start -n com.android.settings/.Settings');
    expect(await t.cmd('avd snapshot load console-snap')).toBe('OK\r\n');
    expect(host.device.shellBytes('settings get global console_test').stdout.toString()).toBe('saved\n');
    expect(host.device.wm.foreground().package).toBe('com.google.android.apps.nexuslauncher');
    const list = await t.cmd('avd snapshot list');
    const lines = list.split('\r\n');
    expect(lines[0]).toBe('List of snapshots present on all disks:');
    expect(lines[1]).toBe('ID        TAG                 VM SIZE                DATE       VM CLOCK');
    expect(lines.find((l) => l.includes('console-snap'))).toMatch(/^-- {8}console-snap {8} +\d+(\.\d)?[KMG]? \d{4}-\d\d-\d\d \d\d:\d\d:\d\d {3}\d\d:\d\d:\d\d\.\d{3}$/);
    expect(await t.cmd('avd snapshot del console-snap')).toBe('OK\r\n');
    expect(await t.cmd('avd snapshot list')).not.toContain('console-snap');
    expect(await t.cmd('avd snapshot load console-snap')).toBe("KO: Snapshot 'console-snap' does not exist\r\n");
    expect(await t.cmd('avd snapshot save')).toBe("KO: Argument missing, try 'avd snapshot save <name>'\r\n");
    t.close();
  });

  it('closes the session on quit', async () => {
    const t = await (await Telnet.open(host.consolePort)).authed();
    t.socket.write('quit\nping\n');
    expect(await t.until(() => false)).toBe('');
    expect(t.closed).toBe(true);
  });
});

describe('hostile input', () => {
  const stillServing = async () => {
    const t = await (await Telnet.open(host.consolePort)).authed();
    expect(await t.cmd('ping')).toBe('I am alive!\r\nOK\r\n');
    t.close();
  };

  it('aborts on binary and on HTTP requests', async () => {
    const bin = await Telnet.open(host.consolePort);
    await bin.greeting();
    bin.socket.write(Buffer.from([0xff, 0xfe, 0x00, 0x41, 0x0a]));
    expect(await bin.until(() => false)).toBe('KO: Forbidden binary request. Aborting\r\n');
    const http = await Telnet.open(host.consolePort);
    await http.greeting();
    http.socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n');
    expect(await http.until(() => false)).toBe('KO: Forbidden HTTP request. Aborting\r\n');
    await stillServing();
  });

  it('survives very long lines, garbage and early disconnects', async () => {
    const t = await (await Telnet.open(host.consolePort)).authed();
    expect(await t.cmd('x'.repeat(100_000))).toBe("KO: unknown command, try 'help'\r\n");
    expect(await t.cmd('\t\t ;;; avd snapshot load')).toBe("KO: unknown command, try 'help'\r\n");
    expect(await t.cmd('avd snapshot frobnicate now')).toMatch(/KO: {2}bad sub-command\r\n$/);
    expect(await t.cmd('ping')).toBe('I am alive!\r\nOK\r\n');
    t.close();
    const early = await Telnet.open(host.consolePort);
    early.socket.write('avd snap');
    early.close();
    await stillServing();
  });
});

describe('kill', () => {
  it('says goodbye and stops the whole host', async () => {
    const victim = await startHost({ authTokenPath: home.tokenPath });
    const t = await (await Telnet.open(victim.consolePort)).authed();
    t.socket.write('kill\nquit\n');
    expect(await t.until(() => false)).toBe('OK: killing emulator, bye bye\r\nOK\r\n');
    await victim.stopped;
    await expect(Telnet.open(victim.adbPort)).rejects.toThrow(/ECONNREFUSED/);
    await expect(Telnet.open(victim.consolePort)).rejects.toThrow(/ECONNREFUSED/);
  });
});
