import { createRequire } from 'node:module';
import vm from 'node:vm';
import type * as HappyDom from 'happy-dom';
import type { Element as DomElement, Window } from 'happy-dom';
import { canvasAdapter } from './canvas.js';

/**
 * A loaded web page: the document in happy-dom's DOM, its inline scripts run for real in the
 * window's own VM context (as classic scripts: their top-level functions and variables are globals,
 * so `onclick="handleButtonClick()"` finds them), canvases drawn by Skia. Pages are AndroidWorld's
 * local task files; nothing is fetched (external scripts, styles and images are not loaded).
 *
 * What the user did to the page is a list of plain events, so a page can be rebuilt from its HTML
 * and that list (a device snapshot holds only those).
 */
export type PagePath = number[];

export type PageEvent =
  | { kind: 'click'; path: PagePath; values: Record<string, string> }
  /** A finger dragged over an element: points in CSS px of its box, which is `box` (width, height) on screen. */
  | { kind: 'stroke'; path: PagePath; points: Array<[number, number]>; box: [number, number] };

/** A page's script error, as Chrome's console would log it. */
export class PageScriptError extends Error {
  override name = 'PageScriptError';
  constructor(readonly url: string, readonly reason: unknown) {
    super(`${url}: ${reason instanceof Error ? reason.message : String(reason)}`);
  }
}

let happyDom: typeof HappyDom | undefined;

/**
 * happy-dom, loaded when the first page is: importing it takes most of a second, which a SimDroid
 * that never opens Chrome (most tests, most episodes) should not pay. Node ≥ 20.19 requires ES modules.
 */
function domLibrary(): typeof HappyDom {
  try {
    happyDom ??= createRequire(import.meta.url)('happy-dom') as typeof HappyDom;
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_REQUIRE_ESM') throw new Error(`Chrome's pages need Node 20.19 or later (require of ES modules); this is ${process.version}`);
    throw e;
  }
  return happyDom;
}

const SCRIPT = /<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi;

/** Splits a document into its markup and its inline classic scripts, in document order. */
export function splitScripts(html: string): { markup: string; scripts: string[] } {
  const scripts: string[] = [];
  const markup = html.replace(SCRIPT, (_m, attrs: string, code: string) => {
    // External (src=) and module scripts are not run: nothing is fetched, and the pages are classic scripts.
    if (!/\bsrc\s*=/i.test(attrs) && !/type\s*=\s*["']?module/i.test(attrs)) scripts.push(code);
    return '';
  });
  return { markup, scripts };
}

export class WebPage {
  readonly window: Window;
  readonly errors: PageScriptError[] = [];
  private applied = 0;

  constructor(readonly url: string, html: string, viewportWidth: number) {
    this.window = new (domLibrary().Window)({
      url,
      width: viewportWidth,
      height: 2000,
      settings: {
        enableJavaScriptEvaluation: true,
        suppressInsecureJavaScriptEnvironmentWarning: true,
        disableJavaScriptFileLoading: true,
        handleDisabledFileLoadingAsSuccess: true,
        navigation: { disableMainFrameNavigation: true, disableChildFrameNavigation: true, disableChildPageNavigation: true, disableFallbackToSetURL: true },
        canvasAdapter,
      },
    });
    const { markup, scripts } = splitScripts(html);
    this.window.document.write(markup);
    for (const code of scripts) this.run(code);
    this.window.document.dispatchEvent(new this.window.Event('DOMContentLoaded', { bubbles: true }));
    this.window.dispatchEvent(new this.window.Event('load'));
  }

  get document() {
    return this.window.document;
  }

  get title(): string {
    return this.document.title;
  }

  private run(code: string): void {
    try {
      new vm.Script(code, { filename: this.url }).runInContext(this.window as unknown as vm.Context);
    } catch (e) {
      this.errors.push(new PageScriptError(this.url, e));
    }
  }

  /** The element at a path of child indices from <body>, or null when the page has changed under it. */
  at(path: PagePath): DomElement | null {
    let el: DomElement | null = this.document.body as unknown as DomElement;
    for (const i of path) {
      el = el?.children[i] ?? null;
      if (!el) return null;
    }
    return el;
  }

  /** How many events this page has taken. */
  get eventCount(): number {
    return this.applied;
  }

  apply(e: PageEvent): void {
    this.applied++;
    const target = this.at(e.path);
    switch (e.kind) {
      case 'click': {
        for (const [p, v] of Object.entries(e.values)) {
          const input = this.at(p.split('.').map(Number));
          if (input && 'value' in input) (input as unknown as { value: string }).value = v;
        }
        if (target) this.guard(() => (target as unknown as { click(): void }).click());
        return;
      }
      case 'stroke': {
        if (target) this.guard(() => this.stroke(target, e.points, e.box));
        return;
      }
    }
  }

  private guard(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.errors.push(new PageScriptError(this.url, err));
    }
  }

  /**
   * A finger's path over an element, as Chrome turns a touch drag into events: touchstart, a
   * touchmove at each point, touchend (no mouse events follow a drag). The element's box is at the
   * page's origin, as getBoundingClientRect reports it (the DOM has no layout of its own).
   */
  private stroke(target: DomElement, points: ReadonlyArray<[number, number]>, box: [number, number]): void {
    const w = this.window;
    const [bw, bh] = box;
    const rect = { x: 0, y: 0, left: 0, top: 0, width: bw, height: bh, right: bw, bottom: bh, toJSON: () => ({}) };
    Object.defineProperty(target, 'getBoundingClientRect', { value: () => rect, configurable: true });
    const fire = (type: 'touchstart' | 'touchmove' | 'touchend', x: number, y: number) => {
      const t = { clientX: x, clientY: y, pageX: x, pageY: y, screenX: x, screenY: y, identifier: 0, target };
      const ev = new w.Event(type, { bubbles: true, cancelable: true });
      const down = type === 'touchend' ? [] : [t];
      Object.defineProperties(ev, { touches: { value: down }, targetTouches: { value: down }, changedTouches: { value: [t] } });
      target.dispatchEvent(ev as never);
    };
    if (points.length === 0) return;
    fire('touchstart', ...points[0]!);
    for (const p of points.slice(1)) fire('touchmove', ...p);
    fire('touchend', ...points[points.length - 1]!);
  }

  close(): void {
    void this.window.happyDOM.close();
  }
}
