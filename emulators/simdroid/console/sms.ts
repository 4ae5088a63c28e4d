import { SMS_DB } from '../system/providers.js';
import type { ConsoleCommand } from './commands.js';

/**
 * The console's `sms send <phonenumber> <text message>`: an incoming SMS, delivered as the radio
 * would — an unread inbox row in the Telephony provider (its thread made by the provider's
 * trigger), dated by the device clock. Replies as android-emu's console does.
 */
const smsSend: ConsoleCommand = {
  names: 'send',
  abstract: 'send inbound SMS text message',
  description: "'sms send <phonenumber> <message>' allows you to simulate a new inbound sms message\n",
  run: (session, args) => {
    const m = args === null ? null : /^(\S+) +(.*)$/s.exec(args);
    if (!m) {
      session.write("KO: missing argument, try 'sms send <phonenumber> <text message>'\n");
      return false;
    }
    const [, number, text] = m as unknown as [string, string, string];
    if (!/^\+?[0-9]+$/.test(number)) {
      session.write('KO: bad phone number format, must be [+](0-9)*\n');
      return false;
    }
    const dev = session.device;
    const now = dev.clock.now();
    dev.dbs.require(SMS_DB).prepare('INSERT INTO sms (address, body, date, date_sent, type, read, seen) VALUES (?, ?, ?, ?, 1, 0, 0)').run(number, text, now, now);
    dev.changed();
    return true;
  },
};

export const sms: ConsoleCommand = {
  names: 'sms',
  abstract: 'SMS related commands',
  description: 'allows you to simulate an inbound SMS\n',
  sub: [smsSend],
};
