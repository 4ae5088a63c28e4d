import type { KeyName } from '../../../core/device/device.js';
import { hitPath, type LaidNode } from '../view/layout.js';
import { W, type Handler, type ViewSpec } from '../view/spec.js';
import { KEYBOARD_DP, NAV_BAR_DP } from '../view/theme.js';
import type { Frame, FrameWindow, SystemHandlers } from './frame.js';
import type { WindowManager } from './window-manager.js';

/** A move shorter than this (dp) is a tap, as Android's touch slop. */
const TOUCH_SLOP_DP = 8;
const LONG_PRESS_MS = 500;

const ACCEPT: Record<NonNullable<ViewSpec['accept']>, RegExp> = {
  any: /[\s\S]/u,
  digits: /[0-9]/,
  number: /[0-9.\-]/,
  phone: /[0-9+\-() *#]/,
};

function inside(n: LaidNode, x: number, y: number): boolean {
  return x >= n.clip.x && x < n.clip.x + n.clip.w && y >= n.clip.y && y < n.clip.y + n.clip.h;
}

function findField(frame: Frame, field: string): { win: FrameWindow; spec: ViewSpec } | undefined {
  for (let i = frame.windows.length - 1; i >= 0; i--) {
    const win = frame.windows[i]!;
    if (win.view.focus !== field) continue;
    const stack: LaidNode[] = [win.root];
    while (stack.length) {
      const n = stack.pop()!;
      if (n.spec.cls === W.EditText && n.spec.field === field) return { win, spec: n.spec };
      stack.push(...n.children);
    }
  }
  return undefined;
}

/**
 * Turns touches, text and keys into calls on the views' handlers, with Android's dispatch rules:
 * the top-most window under the finger gets the touch, modal windows swallow touches outside them,
 * the deepest enabled view with a listener handles it, Back closes the keyboard, then a menu or
 * dialog, then the screen.
 */
export class InputDispatcher {
  /**
   * The finger of a streamed touch (touchDown … touchUp), in px, and the list its moves scroll: undefined until the
   * drag leaves touch slop and its direction is known, null when it scrolls nothing (it ends as a swipe on lifting).
   */
  private finger: {
    x0: number; y0: number; x: number; y: number; at: number; moved: boolean;
    scroll?: { win: FrameWindow; key: string; offset0: number; max: number } | null;
  } | null = null;

  constructor(
    private readonly wm: WindowManager,
    private readonly frame: () => Frame,
  ) {}

  /** Runs an app's handler; an exception crashes that app, never the device. */
  private run(pkg: string, fn: Handler): void {
    try {
      fn();
    } catch (e) {
      this.wm.crash(pkg, e);
    }
  }

  private windowAt(frame: Frame, x: number, y: number): { win: FrameWindow } | { outsideOf: FrameWindow } | null {
    for (let i = frame.windows.length - 1; i >= 0; i--) {
      const win = frame.windows[i]!;
      if (inside(win.root, x, y)) return { win };
      if (win.modal) return { outsideOf: win };
    }
    return null;
  }

  /**
   * Where a touch starting at (x, y) dp goes: the window under it, or — outside a modal window —
   * nowhere, after cancelling that window (a tap outside a dialog dismisses it).
   */
  private touchedWindow(x: number, y: number): FrameWindow | null {
    const hit = this.windowAt(this.frame(), x, y);
    if (!hit) return null;
    if ('win' in hit) return hit.win;
    const cancel = hit.outsideOf.onOutside;
    if (cancel) this.run(hit.outsideOf.package, cancel);
    return null;
  }

  tap(xPx: number, yPx: number): void {
    const scale = this.frame().scale;
    const win = this.touchedWindow(xPx / scale, yPx / scale);
    if (win) this.tapIn(win, xPx / scale, yPx / scale);
  }

  private tapIn(win: FrameWindow, x: number, y: number): void {
    const path = hitPath(win.root, x, y);
    for (const node of path) {
      const s = node.spec;
      if (s.enabled === false) return;
      if (s.cls === W.EditText && s.field !== undefined) {
        win.view.focus = s.field;
        this.wm.state.keyboard.visible = true;
        this.revealAboveKeyboard(win, path, node);
        if (s.onClick) this.run(win.package, s.onClick);
        return;
      }
      if (s.onTapAt) {
        const fx = (x - node.rect.x) / Math.max(1e-9, node.rect.w);
        const fy = (y - node.rect.y) / Math.max(1e-9, node.rect.h);
        const cb = s.onTapAt;
        this.run(win.package, () => cb(fx, fy));
        return;
      }
      if (s.onClick) {
        this.run(win.package, s.onClick);
        return;
      }
      if (s.clickable) return;
    }
  }

  /**
   * adjustResize: a field low in a scrolling form that the keyboard is about to cover scrolls up
   * into view, as Android does; otherwise text typed into it would go to a field off screen.
   */
  private revealAboveKeyboard(win: FrameWindow, path: LaidNode[], field: LaidNode): void {
    if (win.kind !== 'app') return;
    const keyboardTop = this.frame().heightDp - NAV_BAR_DP - KEYBOARD_DP;
    const covered = field.rect.y + field.rect.h - keyboardTop;
    const scroller = path.find((n) => n.scroll !== undefined)?.scroll;
    if (covered > 0 && scroller) win.view.scroll[scroller.key] = scroller.offset + covered + 8;
  }

  longPress(xPx: number, yPx: number): void {
    const scale = this.frame().scale;
    const [x, y] = [xPx / scale, yPx / scale];
    const win = this.touchedWindow(x, y);
    if (!win) return;
    for (const node of hitPath(win.root, x, y)) {
      if (node.spec.enabled === false) return;
      const h = node.spec.onLongClick;
      if (h) {
        this.run(win.package, h);
        return;
      }
    }
    // No long-click listener: Android performs a click when the finger lifts.
    this.tapIn(win, x, y);
  }

  /** A finger goes down (a streamed touch, as MotionEvent ACTION_DOWN); `at` is when, in ms. */
  touchDown(xPx: number, yPx: number, at: number): void {
    this.finger = { x0: xPx, y0: yPx, x: xPx, y: yPx, at, moved: false };
  }

  /**
   * The finger moves: once past touch slop, a vertical drag that starts over a scrolling list scrolls it with the
   * finger, as Android's ScrollView does (the content follows while dragged, not only when lifted).
   */
  touchMove(xPx: number, yPx: number): void {
    const f = this.finger;
    if (!f) return;
    Object.assign(f, { x: xPx, y: yPx });
    const scale = this.frame().scale;
    const [dx, dy] = [(xPx - f.x0) / scale, (yPx - f.y0) / scale];
    if (!f.moved && Math.hypot(dx, dy) < TOUCH_SLOP_DP) return;
    f.moved = true;
    if (f.scroll === undefined) f.scroll = Math.abs(dy) >= Math.abs(dx) ? this.scrollerAt(f.x0 / scale, f.y0 / scale) : null;
    const s = f.scroll;
    if (s) s.win.view.scroll[s.key] = Math.min(s.max, Math.max(0, s.offset0 - dy));
  }

  /** The finger lifts: a drag that scrolled a list is done; anything else is the gesture from down to here (tap, long press, swipe). */
  touchUp(xPx: number, yPx: number, at: number): void {
    const f = this.finger;
    this.finger = null;
    if (!f || f.scroll) return;
    this.swipe(f.x0, f.y0, xPx, yPx, Math.max(0, at - f.at));
  }

  /** The scrolling list under a point of the window there (not across a modal window's outside), if any. */
  private scrollerAt(x: number, y: number): { win: FrameWindow; key: string; offset0: number; max: number } | null {
    const hit = this.windowAt(this.frame(), x, y);
    if (!hit || !('win' in hit)) return null;
    const node = hitPath(hit.win.root, x, y).find((n) => n.scroll !== undefined && n.scroll.max > 0);
    return node?.scroll ? { win: hit.win, key: node.scroll.key, offset0: node.scroll.offset, max: node.scroll.max } : null;
  }

  swipe(x1Px: number, y1Px: number, x2Px: number, y2Px: number, durationMs: number): void {
    const f = this.frame();
    const [x1, y1, x2, y2] = [x1Px / f.scale, y1Px / f.scale, x2Px / f.scale, y2Px / f.scale];
    const dx = x2 - x1;
    const dy = y2 - y1;
    if (Math.hypot(dx, dy) < TOUCH_SLOP_DP) {
      if (durationMs >= LONG_PRESS_MS) this.longPress(x1Px, y1Px);
      else this.tap(x1Px, y1Px);
      return;
    }
    const win = this.touchedWindow(x1, y1);
    if (!win) return;
    const path = hitPath(win.root, x1, y1);
    const vertical = Math.abs(dy) >= Math.abs(dx);
    if (vertical) {
      for (const node of path) {
        if (!node.scroll) continue;
        // Finger up (dy < 0) moves the content up: the offset grows.
        const next = Math.min(node.scroll.max, Math.max(0, node.scroll.offset - dy));
        if (Math.abs(next - node.scroll.offset) >= 0.5) {
          win.view.scroll[node.scroll.key] = next;
          return;
        }
      }
    }
    const dir = vertical ? (dy < 0 ? 'up' : 'down') : dx < 0 ? 'left' : 'right';
    for (const node of path) {
      const h = node.spec.onSwipe;
      if (h) {
        this.run(win.package, () => h(dir));
        return;
      }
    }
  }

  /** `input text`: goes to the focused field of the foreground window, filtered by its input type. */
  text(value: string): void {
    const focus = this.wm.topRecord().view.focus;
    if (focus === null) return;
    const f = this.frame();
    const target = findField(f, focus);
    if (!target) return;
    const accept = ACCEPT[target.spec.accept ?? 'any'];
    let add = '';
    for (const ch of value) {
      if (ch === '\n' && !target.spec.multiline) {
        this.enter();
        continue;
      }
      if (ch === '\n' || accept.test(ch)) add += ch;
    }
    const fields = target.win.view.fields;
    fields[focus] = (target.win.view.allSelected ? '' : (fields[focus] ?? '')) + add;
    delete target.win.view.allSelected;
  }

  private deleteChar(): void {
    const view = this.wm.topRecord().view;
    if (view.focus === null) return;
    const cur = view.fields[view.focus] ?? '';
    view.fields[view.focus] = view.allSelected ? '' : [...cur].slice(0, -1).join('');
    delete view.allSelected;
  }

  private enter(): void {
    const view = this.wm.topRecord().view;
    if (view.focus === null) return;
    const f = this.frame();
    const target = findField(f, view.focus);
    if (!target) return;
    if (target.spec.multiline) {
      view.fields[view.focus] = (view.fields[view.focus] ?? '') + '\n';
      return;
    }
    if (target.spec.onSubmit) {
      this.run(target.win.package, target.spec.onSubmit);
      return;
    }
    // IME action "next": move to the following text field, or "done" when there is none.
    const fieldsInOrder: string[] = [];
    const walk = (n: LaidNode) => {
      if (n.spec.cls === W.EditText && n.spec.field !== undefined && n.spec.enabled !== false) fieldsInOrder.push(n.spec.field);
      n.children.forEach(walk);
    };
    walk(target.win.root);
    const next = fieldsInOrder[fieldsInOrder.indexOf(view.focus) + 1];
    if (next !== undefined) view.focus = next;
    else this.wm.hideKeyboard();
  }

  back(): void {
    const ui = this.wm.state;
    if (ui.keyboard.visible && this.wm.topRecord().view.focus !== null) {
      this.wm.hideKeyboard();
      return;
    }
    const f = this.frame();
    for (let i = f.windows.length - 1; i >= 0; i--) {
      const w = f.windows[i]!;
      if (w.kind === 'prompt') {
        this.answerPrompt(false);
        return;
      }
      if (w.kind === 'menu' || w.kind === 'dialog') {
        if (w.onOutside) this.run(w.package, w.onOutside);
        return;
      }
    }
    const task = this.wm.frontTask();
    const record = this.wm.topRecord();
    const { def, ctx } = this.wm.context(task, record);
    let handled = false;
    if (def.onBack) {
      const onBack = def.onBack;
      this.run(task.package, () => {
        handled = onBack(ctx);
      });
    }
    if (!handled) this.wm.finishTop();
  }

  key(key: KeyName): void {
    if (key !== 'DEL') delete this.wm.topRecord().view.allSelected;
    switch (key) {
      case 'BACK':
      case 'ESCAPE':
        return this.back();
      case 'HOME':
        return this.wm.goHome();
      case 'APP_SWITCH':
        return this.wm.showRecents();
      case 'ENTER':
        return this.enter();
      case 'DEL':
        return this.deleteChar();
      case 'SPACE':
        return this.text(' ');
      case 'TAB':
        return this.enter();
      case 'MOVE_END':
      case 'MOVE_HOME':
        // The caret is always at the end of the text in SimDroid's fields.
        return;
    }
  }

  answerPrompt(allow: boolean): void {
    const p = this.wm.state.prompt;
    if (!p) return;
    (this.wm.state.permissions[p.package] ??= {})['android.permission.POST_NOTIFICATIONS'] = allow ? 'granted' : 'denied';
    this.wm.state.prompt = null;
  }

  systemHandlers(): SystemHandlers {
    // Read the keyboard state at call time: a snapshot restore replaces the state object.
    const kb = () => this.wm.state.keyboard;
    return {
      back: () => this.back(),
      home: () => this.wm.goHome(),
      recents: () => this.wm.showRecents(),
      allowPermission: () => this.answerPrompt(true),
      denyPermission: () => this.answerPrompt(false),
      keyboard: {
        type: (ch) => {
          this.text(ch);
          kb().shift = false;
        },
        del: () => this.deleteChar(),
        enter: () => this.enter(),
        shift: () => {
          kb().shift = !kb().shift;
        },
        symbols: () => {
          kb().symbols = !kb().symbols;
        },
      },
    };
  }
}
