import type { InputEvent, KeyName } from '../../../core/device/device.js';

/**
 * The emulator's KeyboardEvent onto SimDroid's input. Key codes are translated to Linux evdev codes
 * first, as the emulator does (XKB = evdev + 8; USB = HID page << 16 | usage), then through
 * Android's Generic.kl; DOM key values ("Enter", "Backspace", "GoHome", a character) follow the
 * W3C names the emulator accepts.
 */
export const KEY_CODE_TYPES = ['Usb', 'Evdev', 'XKB', 'Win', 'Mac'] as const;
export type KeyCodeType = (typeof KEY_CODE_TYPES)[number];
export const KEY_EVENT_TYPES = ['keydown', 'keyup', 'keypress'] as const;
export type KeyEventType = (typeof KEY_EVENT_TYPES)[number];

export class KeyInputError extends Error {
  override name = 'KeyInputError';
  constructor(readonly field: string, readonly value: unknown, detail: string) {
    super(`key event ${field} ${JSON.stringify(value)}: ${detail}`);
  }
}

/** evdev codes of the keys SimDroid handles (linux/input-event-codes.h) → Android key (Generic.kl). */
const EVDEV_KEYS: ReadonlyMap<number, KeyName> = new Map([
  [1, 'ESCAPE'], [14, 'DEL'], [15, 'TAB'], [28, 'ENTER'], [57, 'SPACE'], [96, 'ENTER'],
  [102, 'MOVE_HOME'], [107, 'MOVE_END'], [158, 'BACK'], [172, 'HOME'], [580, 'APP_SWITCH'],
]);

/** evdev codes of the letter and digit rows → the character typed (no modifier state is kept). */
const EVDEV_CHARS: ReadonlyMap<number, string> = new Map([
  ...[...'1234567890'].map((c, i) => [2 + i, c] as const),
  ...[...'qwertyuiop'].map((c, i) => [16 + i, c] as const),
  ...[...'asdfghjkl'].map((c, i) => [30 + i, c] as const),
  ...[...'zxcvbnm'].map((c, i) => [44 + i, c] as const),
  [12, '-'], [13, '='], [51, ','], [52, '.'], [53, '/'],
]);

/** USB HID keyboard-page usages (0x07) and consumer-page controls (0x0C) → evdev. */
function usbToEvdev(code: number): number | undefined {
  const page = code >>> 16;
  const usage = code & 0xffff;
  if (page === 0x0c) return ({ 0x223: 172, 0x224: 158 } as Record<number, number>)[usage];
  if (page !== 0x07) return undefined;
  if (usage >= 0x04 && usage <= 0x1d) {
    const letter = String.fromCharCode(97 + usage - 0x04);
    return [...EVDEV_CHARS].find(([, c]) => c === letter)?.[0];
  }
  if (usage >= 0x1e && usage <= 0x27) return 2 + usage - 0x1e;
  return ({ 0x28: 28, 0x29: 1, 0x2a: 14, 0x2b: 15, 0x2c: 57, 0x4a: 102, 0x4d: 107, 0x58: 96 } as Record<number, number>)[usage];
}

/** W3C key values → Android key. */
const DOM_KEYS: Readonly<Record<string, KeyName>> = {
  Enter: 'ENTER', Backspace: 'DEL', Tab: 'TAB', Escape: 'ESCAPE', Home: 'MOVE_HOME', End: 'MOVE_END',
  GoBack: 'BACK', BrowserBack: 'BACK', GoHome: 'HOME', BrowserHome: 'HOME', AppSwitch: 'APP_SWITCH',
};

function evdevFor(codeType: KeyCodeType, keyCode: number): number | undefined {
  switch (codeType) {
    case 'Evdev':
      return keyCode;
    case 'XKB':
      return keyCode - 8;
    case 'Usb':
      return usbToEvdev(keyCode);
    case 'Win':
    case 'Mac':
      throw new KeyInputError('codeType', codeType, 'SimDroid translates Usb, Evdev and XKB key codes only');
  }
}

export interface KeyboardEventRequest {
  codeType: KeyCodeType;
  eventType: KeyEventType;
  keyCode: number;
  key: string;
  text: string;
}

/**
 * The input a KeyboardEvent causes: none for a key-up (SimDroid acts once per press, on the way
 * down), else a key or text. Only one of keyCode, key and text is read, in that order.
 */
export function keyboardInput(e: KeyboardEventRequest): InputEvent | null {
  if (e.text) return { kind: 'text', text: e.text };
  if (e.eventType === 'keyup') return null;
  if (e.keyCode) {
    const evdev = evdevFor(e.codeType, e.keyCode);
    const key = evdev === undefined ? undefined : EVDEV_KEYS.get(evdev);
    if (key) return { kind: 'key', key };
    const ch = evdev === undefined ? undefined : EVDEV_CHARS.get(evdev);
    if (ch) return { kind: 'text', text: ch };
    throw new KeyInputError('keyCode', e.keyCode, `no Android key SimDroid handles for this ${e.codeType} code`);
  }
  if (e.key) {
    const key = DOM_KEYS[e.key];
    if (key) return { kind: 'key', key };
    if ([...e.key].length === 1) return e.key === ' ' ? { kind: 'key', key: 'SPACE' } : { kind: 'text', text: e.key };
    throw new KeyInputError('key', e.key, 'not a key value SimDroid handles (e.g. "Enter", "Backspace", "GoHome", "GoBack", or one character)');
  }
  throw new KeyInputError('keyCode/key/text', '', 'one of them must be set');
}
