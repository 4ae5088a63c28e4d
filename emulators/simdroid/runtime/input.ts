import type { KeyName } from '../../../core/device/device.js';
import { hitPath, type LaidNode } from '../view/layout.js';
import { W, type Handler, type ViewSpec } from '../view/spec.js';
import { KEYBOARD_DP, NAV_BAR_DP } from '../view/theme.js';
import { contentBox, editLayout, offsetAt, wordAt } from '../view/text-layout.js';
import type { Frame, FrameWindow, SystemHandlers } from './frame.js';
import type { WindowManager } from './window-manager.js';
import {
  deleteBackward, dismissSelection, moveCaretInLine, replaceSelection, toolbarEdit, toolbarItems, type ToolbarItem,
} from './text-editing.js';
import { TOUCH_SLOP_DP, TouchStream, type DragScroller } from './touch-stream.js';

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
  private readonly touches = new TouchStream(() => this.frame().scale, (x, y) => this.scrollerAt(x, y), (...g) => this.swipe(...g));

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
    this.dismissToolbarOutside(xPx / scale, yPx / scale);
    const win = this.touchedWindow(xPx / scale, yPx / scale);
    if (win) this.tapIn(win, xPx / scale, yPx / scale);
  }

  /** A touch anywhere but on the floating text toolbar ends the selection, as Android's Editor does. */
  private dismissToolbarOutside(x: number, y: number): void {
    const view = this.wm.topRecord().view;
    if (!view.textToolbar && !view.selection) return;
    // Keys of the soft keyboard type into the selection; they do not end it.
    if (this.frame().windows.some((w) => (w.kind === 'toolbar' || w.kind === 'keyboard') && inside(w.root, x, y))) return;
    dismissSelection(view);
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
    this.dismissToolbarOutside(x, y);
    const win = this.touchedWindow(x, y);
    if (!win) return;
    const path = hitPath(win.root, x, y);
    for (const node of path) {
      if (node.spec.enabled === false) return;
      if (node.spec.cls === W.EditText && node.spec.field !== undefined) {
        this.startSelection(win, path, node, x, y);
        return;
      }
      const h = node.spec.onLongClick;
      if (h) {
        this.run(win.package, h);
        return;
      }
    }
    // No long-click listener: Android performs a click when the finger lifts.
    this.tapIn(win, x, y);
  }

  /**
   * A long press on a text field: the field takes focus and the word under the finger is selected,
   * or — on an empty field or past the end of the text — the caret goes to the end; the floating
   * toolbar opens over it when it has something to offer (Cut/Copy/Paste/Select all).
   */
  private startSelection(win: FrameWindow, path: LaidNode[], node: LaidNode, x: number, y: number): void {
    const field = node.spec.field!;
    const view = win.view;
    view.focus = field;
    this.wm.state.keyboard.visible = true;
    this.revealAboveKeyboard(win, path, node);
    const value = view.fields[field] ?? '';
    const at = value === '' ? null : offsetAt(editLayout(node.spec, value, contentBox(node)), x, y, value.length);
    if (at === null) delete view.selection;
    else view.selection = wordAt(value, at);
    if (toolbarItems(view, this.wm.state.clipboard, node.spec.password ?? false).length > 0) view.textToolbar = true;
    else delete view.textToolbar;
  }

  /** A streamed touch (as MotionEvents: touch-stream.ts), in px; `at` is when, in ms. */
  touchDown(xPx: number, yPx: number, at: number): void {
    this.touches.down(xPx, yPx, at);
  }

  touchMove(xPx: number, yPx: number): void {
    this.touches.move(xPx, yPx);
  }

  touchUp(xPx: number, yPx: number, at: number): void {
    this.touches.up(xPx, yPx, at);
  }

  /** The scrolling list under a point of the window there (not across a modal window's outside), if any. */
  private scrollerAt(x: number, y: number): DragScroller | null {
    const hit = this.windowAt(this.frame(), x, y);
    if (!hit || !('win' in hit)) return null;
    const path = hitPath(hit.win.root, x, y);
    // A drag on a drawing surface draws; it does not scroll the page around it.
    if (path.some((n) => n.spec.onDrag)) return null;
    const node = path.find((n) => n.scroll !== undefined && n.scroll.max > 0);
    return node?.scroll ? { win: hit.win, key: node.scroll.key, offset0: node.scroll.offset, max: node.scroll.max } : null;
  }

  /** A swipe from (x1, y1) to (x2, y2) px; `pathPx` (x y x y …) is the finger's way when it was streamed (a canvas draws it). */
  swipe(x1Px: number, y1Px: number, x2Px: number, y2Px: number, durationMs: number, pathPx?: readonly number[]): void {
    const f = this.frame();
    const [x1, y1, x2, y2] = [x1Px / f.scale, y1Px / f.scale, x2Px / f.scale, y2Px / f.scale];
    const dx = x2 - x1;
    const dy = y2 - y1;
    if (Math.hypot(dx, dy) < TOUCH_SLOP_DP) {
      if (durationMs >= LONG_PRESS_MS) this.longPress(x1Px, y1Px);
      else this.tap(x1Px, y1Px);
      return;
    }
    this.dismissToolbarOutside(x1, y1);
    const win = this.touchedWindow(x1, y1);
    if (!win) return;
    const path = hitPath(win.root, x1, y1);
    const canvas = path.find((n) => n.spec.onDrag !== undefined);
    if (canvas) {
      const r = canvas.rect;
      const way = pathPx ?? [x1Px, y1Px, x2Px, y2Px];
      // Fractions of the canvas, from px: x y x y …
      const points = way.map((v, i) => (i % 2 === 0 ? (v / f.scale - r.x) / Math.max(1e-9, r.w) : (v / f.scale - r.y) / Math.max(1e-9, r.h)));
      const cb = canvas.spec.onDrag!;
      this.run(win.package, () => cb(points));
      return;
    }
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

  /**
   * `input text`: goes to the focused field of the foreground window, filtered by its input type,
   * replacing the selection or going in at the caret. A pasted newline in a one-line field becomes a
   * space (a typed one is the Enter key).
   */
  text(value: string, opts: { paste?: boolean } = {}): void {
    const focus = this.wm.topRecord().view.focus;
    if (focus === null) return;
    const f = this.frame();
    const target = findField(f, focus);
    if (!target) return;
    const accept = ACCEPT[target.spec.accept ?? 'any'];
    let add = '';
    for (const ch of value) {
      if (ch === '\n' && !target.spec.multiline) {
        if (opts.paste) add += accept.test(' ') ? ' ' : '';
        else this.enter();
        continue;
      }
      if (ch === '\n' || accept.test(ch)) add += ch;
    }
    replaceSelection(target.win.view, add);
  }

  private deleteChar(): void {
    deleteBackward(this.wm.topRecord().view);
  }

  /** The floating toolbar's actions on the focused field's selection; a paste is typed, filtered as typing is. */
  private toolbarAction(item: ToolbarItem): void {
    const view = this.wm.topRecord().view;
    if (view.focus === null) return;
    const paste = toolbarEdit(view, this.wm.state, item);
    if (paste !== null) this.text(paste, { paste: true });
  }

  private enter(): void {
    const view = this.wm.topRecord().view;
    if (view.focus === null) return;
    const f = this.frame();
    const target = findField(f, view.focus);
    if (!target) return;
    if (target.spec.multiline) {
      replaceSelection(view, '\n');
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
    const view = this.wm.topRecord().view;
    if (ui.keyboard.visible && view.focus !== null) {
      this.wm.hideKeyboard();
      return;
    }
    // Then Back ends a text selection (its action mode) before anything else.
    if (view.textToolbar || (view.selection && view.selection.start !== view.selection.end)) {
      dismissSelection(view);
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
        return moveCaretInLine(this.wm.topRecord().view, 'end');
      case 'MOVE_HOME':
        return moveCaretInLine(this.wm.topRecord().view, 'home');
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
      textToolbar: (item) => this.toolbarAction(item),
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
