import type { AppEnv, SystemServices } from '../../runtime/app.js';
import type { Rng } from '../../../../core/util/rng.js';
import { SMS_DB } from '../../system/providers.js';
import { SMS_TYPE, contactList } from './db.js';

/**
 * First-boot content: a handful of conversations in the Telephony provider so the app is not
 * empty. Some are with contacts already on the device, the rest with bare numbers; the newest
 * may be unread. Tasks clear these before setting up their own.
 */
const DIALOGUES: ReadonlyArray<ReadonlyArray<string>> = [
  ['Are we still on for lunch tomorrow?', 'Yes! 12:30 at the usual place?', 'Perfect, see you there'],
  ['Can you send me the photos from Saturday?', 'Sure, uploading them tonight'],
  ['Running 10 minutes late, sorry!', 'No worries'],
  ['Happy birthday!! Hope you have a great day', 'Thank you so much!'],
  ['Did you feed the cat?', 'Yes, this morning'],
  ['The package arrived, thanks a lot', 'Glad it made it in one piece'],
  ['What time does the game start?', 'Kick-off is at 7', 'Great, I will bring snacks'],
  ['Call me when you get a chance', 'Will do after my meeting'],
  ['Do you still have my umbrella?', 'I do, I will bring it on Monday'],
  ['Reminder: dentist appointment Thursday at 9 AM'],
];

function randomNumber(rng: Rng): string {
  return `+1${rng.int(201, 989)}${rng.int(200, 999)}${String(rng.int(0, 9999)).padStart(4, '0')}`;
}

export function bootMessages(env: { app: AppEnv; sys: SystemServices; rng: Rng }): void {
  const { sys, rng } = env;
  const db = sys.db(SMS_DB);
  const insert = db.prepare('INSERT INTO sms (address, body, date, date_sent, type, read, seen) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const contacts = rng.shuffle(contactList(sys)).slice(0, 3);
  const count = rng.int(5, 7);
  const addresses = [...contacts.map((c) => c.numbers[0]!), ...Array.from({ length: count - contacts.length }, () => randomNumber(rng))];
  const dialogues = rng.sample(DIALOGUES, count);
  const now = sys.clock.now();
  // Newest conversation first: a few hours ago, then a day or more apart.
  let end = now - rng.int(20, 180) * 60_000;
  addresses.forEach((address, i) => {
    // The newest conversation ends with an unread message from the other side.
    const lines = i === 0 ? dialogues[i]!.slice(0, dialogues[i]!.length - ((dialogues[i]!.length + 1) % 2)) : dialogues[i]!;
    let t = end - (lines.length - 1) * rng.int(2, 30) * 60_000;
    lines.forEach((body, j) => {
      const received = j % 2 === 0;
      const unread = received && i === 0 && j === lines.length - 1;
      insert.run(address, body, t, t, received ? SMS_TYPE.inbox : SMS_TYPE.sent, unread ? 0 : 1, unread ? 0 : 1);
      t += rng.int(2, 30) * 60_000;
    });
    end -= rng.int(18, 60) * 3_600_000;
  });
}
