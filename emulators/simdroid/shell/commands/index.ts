import type { Command } from '../run.js';
import { cat, cp, echo, grep, head, mkdir, mv, rm, stat, tail, touch, wc } from './files.js';
import { find, ls } from './listing.js';
import { am } from './am.js';
import { chmod, restorecon, test } from './test.js';
import { date, service } from './time.js';
import { content, settings, sqlite3 } from './data.js';
import { logcat } from './logcat.js';
import {
  cmd, dumpsys, falseCmd, getprop, id, input, monkey, pm, screencap, sleep, svc, trueCmd, uiautomator, whoami, wm,
} from './system.js';

/** The commands SimDroid's shell knows, by name (as found on an API 33 emulator's PATH). */
export const COMMANDS: Record<string, Command> = {
  '[': test, am, cat, chmod, cmd, content, cp, date, dumpsys, echo, false: falseCmd, find, getprop, grep, head, id, input, logcat, ls, mkdir,
  monkey, mv, pm, restorecon, rm, screencap, service, settings, sleep, sqlite3, stat, svc, tail, test, touch, true: trueCmd, uiautomator, wc,
  whoami, wm,
};
