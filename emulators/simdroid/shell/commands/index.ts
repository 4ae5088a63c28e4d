import type { Command } from '../run.js';
import { cat, cp, echo, find, grep, head, ls, mkdir, mv, rm, stat, tail, touch, wc } from './files.js';
import { content, settings, sqlite3 } from './data.js';
import {
  am, cmd, date, dumpsys, falseCmd, getprop, id, input, monkey, pm, screencap, sleep, svc, trueCmd, uiautomator, whoami, wm,
} from './system.js';

/** The commands SimDroid's shell knows, by name (as found on an API 33 emulator's PATH). */
export const COMMANDS: Record<string, Command> = {
  am, cat, cmd, content, cp, date, dumpsys, echo, false: falseCmd, find, getprop, grep, head, id, input, ls, mkdir,
  monkey, mv, pm, rm, screencap, settings, sleep, sqlite3, stat, svc, tail, touch, true: trueCmd, uiautomator, wc,
  whoami, wm,
};
