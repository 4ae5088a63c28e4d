import type { Clock } from './clock.js';
import type { Db } from './databases.js';

/**
 * The modem's voice calls, as the emulator's GSM emulation keeps them (android-emu's android_modem:
 * ACall with a direction, a number and a state), driven from the console's `gsm` commands. A call
 * that ends is written to the call log (calllog.db's `calls`) the way Telecom does on disconnect:
 * an inbound call never answered as MISSED, an answered one as INCOMING with the seconds it was
 * active, an outbound one as OUTGOING; dated when it began.
 */
export type CallState = 'active' | 'held' | 'dialing' | 'alerting' | 'incoming' | 'waiting';
export type CallDirection = 'inbound' | 'outbound';

export interface GsmCall {
  number: string;
  direction: CallDirection;
  state: CallState;
  startedAt: number;
  /** When it first became active (null while it never was). */
  answeredAt: number | null;
}

/** android.provider.CallLog.Calls types. */
export const CALL_TYPE = { INCOMING: 1, OUTGOING: 2, MISSED: 3 } as const;

/** The modem holds at most this many calls (android_modem's MAX_CALLS). */
const MAX_CALLS = 4;

export class Telephony {
  calls: GsmCall[] = [];

  constructor(private readonly clock: Clock, private readonly callLog: () => Db) {}

  find(number: string): GsmCall | undefined {
    return this.calls.find((c) => c.number === number);
  }

  /** A new inbound call: ringing, or waiting behind a call in progress. False when it cannot be added. */
  ring(number: string): boolean {
    if (this.find(number) || this.calls.length >= MAX_CALLS) return false;
    const busy = this.calls.some((c) => c.state === 'active' || c.state === 'held');
    this.calls.push({ number, direction: 'inbound', state: busy ? 'waiting' : 'incoming', startedAt: this.clock.now(), answeredAt: null });
    return true;
  }

  /** Moves a call to `state` (accept: active; hold: held). False when there is no call with that number. */
  update(number: string, state: CallState): boolean {
    const call = this.find(number);
    if (!call) return false;
    if (state === 'active') {
      // One call is active at a time: the one in progress goes on hold, as the modem does.
      for (const c of this.calls) if (c !== call && c.state === 'active') c.state = 'held';
      call.answeredAt ??= this.clock.now();
    }
    call.state = state;
    return true;
  }

  /** Ends a call and writes it to the call log. False when there is no call with that number. */
  disconnect(number: string): boolean {
    const call = this.find(number);
    if (!call) return false;
    this.calls = this.calls.filter((c) => c !== call);
    const type = call.direction === 'outbound' ? CALL_TYPE.OUTGOING : call.answeredAt === null ? CALL_TYPE.MISSED : CALL_TYPE.INCOMING;
    const duration = call.answeredAt === null ? 0 : Math.floor((this.clock.now() - call.answeredAt) / 1000);
    this.callLog()
      .prepare('INSERT INTO calls (number, date, duration, type, new, is_read) VALUES (?, ?, ?, ?, ?, ?)')
      .run(call.number, call.startedAt, duration, type, type === CALL_TYPE.MISSED ? 1 : 0, type === CALL_TYPE.MISSED ? 0 : 1);
    return true;
  }

  /** TelephonyManager's call state: 0 idle, 1 ringing, 2 off-hook (a call active, held or dialing). */
  callState(): 0 | 1 | 2 {
    if (this.calls.some((c) => c.state !== 'incoming' && c.state !== 'waiting')) return 2;
    return this.calls.length ? 1 : 0;
  }
}
