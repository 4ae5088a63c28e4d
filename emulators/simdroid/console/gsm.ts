import type { CallState } from '../system/telephony.js';
import type { ConsoleCommand, ConsoleSession } from './commands.js';

/**
 * The console's `gsm` voice-call commands, with android-emu's replies (console.cpp: do_gsm_list,
 * do_gsm_call, do_gsm_busy, do_gsm_hold, do_gsm_accept, do_gsm_cancel) acting on SimDroid's modem
 * (system/telephony.ts). `gsm call` is how AndroidWorld makes the phone ring (adb_utils.call_emulator).
 */
const NUMBER = /^\+?[0-9#*]+$/;

/** The argument checks each command starts with; the number, or null after writing the KO line. */
function numberArg(session: ConsoleSession, args: string | null, usage: string, checkFormat: boolean): string | null {
  if (args === null) {
    session.write(`KO: missing argument, try '${usage}'\n`);
    return null;
  }
  if (checkFormat && !NUMBER.test(args)) {
    session.write('KO: bad phone number format, use digits, # and + only\n');
    return null;
  }
  return args;
}

const gsmList: ConsoleCommand = {
  names: 'list',
  abstract: 'list current phone calls',
  description: "'gsm list' lists all inbound and outbound calls and their state\n",
  run: (session) => {
    for (const c of session.device.telephony.calls) {
      const dir = c.direction === 'outbound' ? 'outbound to ' : 'inbound from';
      session.write(`${dir} ${c.number.padEnd(10)} : ${c.state === 'alerting' ? 'ringing' : c.state}\n`);
    }
    return true;
  },
};

const gsmCall: ConsoleCommand = {
  names: 'call',
  abstract: 'create inbound phone call',
  description: "'gsm call <phonenumber>' allows you to simulate a new inbound call\n",
  run: (session, args) => {
    const number = numberArg(session, args, 'gsm call <phonenumber>', true);
    if (number === null) return false;
    if (!session.device.telephony.ring(number)) {
      session.write('KO: could not add inbound call\n');
      return false;
    }
    session.device.changed();
    return true;
  },
};

/** accept and hold: a state change of an existing call. */
function changeState(names: string, abstract: string, description: string, state: CallState, failure: string): ConsoleCommand {
  return {
    names,
    abstract,
    description,
    run: (session, args) => {
      const number = numberArg(session, args, names === 'hold' ? 'gsm out hold <phonenumber>' : `gsm ${names} <phonenumber>`, false);
      if (number === null) return false;
      const tel = session.device.telephony;
      if (!tel.find(number)) {
        session.write(`KO: no current call to/from number '${number}'\n`);
        return false;
      }
      if (!tel.update(number, state)) {
        session.write(`KO: ${failure}\n`);
        return false;
      }
      session.device.changed();
      return true;
    },
  };
}

const gsmAccept = changeState(
  'accept', "change the state of an outbound call to 'active'",
  "'gsm accept <remoteNumber>' change the state of a call to 'active'. this is only possible\nif the call is in the 'waiting' or 'held' state\n",
  'active', 'could not activate this call',
);

const gsmHold = changeState(
  'hold', "change the state of an outbound call to 'held'",
  "'gsm hold <remoteNumber>' change the state of a call to 'held'. this is only possible\nif the call in the 'waiting' or 'active' state\n",
  'held', 'could put this call on hold',
);

const gsmBusy: ConsoleCommand = {
  names: 'busy',
  abstract: 'close waiting outbound call as busy',
  description: "'gsm busy <remoteNumber>' closes an outbound call, reporting\nthe remote phone as busy. only possible if the call is 'waiting'.\n",
  run: (session, args) => {
    const number = numberArg(session, args, 'gsm busy <phonenumber>', false);
    if (number === null) return false;
    const tel = session.device.telephony;
    const call = tel.find(number);
    if (!call || call.direction !== 'outbound') {
      // The real console prints the C pointer here; SimDroid has none to print.
      session.write(`KO: no current outbound call to number '${number}' (call ${call ? '0x1' : '(nil)'})\n`);
      return false;
    }
    tel.disconnect(number);
    session.device.changed();
    return true;
  },
};

const gsmCancel: ConsoleCommand = {
  names: 'cancel',
  abstract: 'disconnect an inbound or outbound phone call',
  description: "'gsm cancel <phonenumber>' allows you to simulate the end of an inbound or outbound call\n",
  run: (session, args) => {
    const number = numberArg(session, args, 'gsm call <phonenumber>', true);
    if (number === null) return false;
    if (!session.device.telephony.disconnect(number)) {
      session.write('KO: could not cancel this number\n');
      return false;
    }
    session.device.changed();
    return true;
  },
};

export const gsm: ConsoleCommand = {
  names: 'gsm',
  abstract: 'GSM related commands',
  description: 'allows you to change GSM-related settings, or to make a new inbound phone call\n',
  sub: [gsmList, gsmCall, gsmBusy, gsmHold, gsmAccept, gsmCancel],
};
