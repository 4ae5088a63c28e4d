import { WebPage, type PageEvent } from './page.js';

/**
 * Live pages by the tab that shows them. A tab's state holds the page's URL, its HTML and the events
 * the user gave it; the live page is rebuilt from those whenever the one cached here does not match
 * (after a snapshot was restored, or evicted), so snapshots stay plain data.
 */
export interface PageSource {
  pageId: number;
  url: string;
  html: string;
  events: readonly PageEvent[];
}

interface Entry {
  page: WebPage;
  url: string;
  html: string;
  applied: string[];
}

const MAX_LIVE = 8;
const live = new Map<number, Entry>();
let nextId = 1;

export function newPageId(): number {
  return nextId++;
}

/** The page of a tab, brought up to date with its events. */
export function livePage(src: PageSource, viewportWidth: number): WebPage {
  let e = live.get(src.pageId);
  const events = src.events.map((ev) => JSON.stringify(ev));
  const stale = !e || e.url !== src.url || e.html !== src.html || e.applied.length > events.length || e.applied.some((a, i) => a !== events[i]);
  if (stale) {
    e?.page.close();
    e = { page: new WebPage(src.url, src.html, viewportWidth), url: src.url, html: src.html, applied: [] };
  }
  live.delete(src.pageId);
  live.set(src.pageId, e!);
  for (let i = e!.applied.length; i < events.length; i++) {
    e!.page.apply(src.events[i]!);
    e!.applied.push(events[i]!);
  }
  while (live.size > MAX_LIVE) {
    const [oldest, entry] = live.entries().next().value as [number, Entry];
    entry.page.close();
    live.delete(oldest);
  }
  return e!.page;
}
