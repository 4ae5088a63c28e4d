/**
 * Windowing for the episode table: with a fixed row height, which rows a scroll position shows is
 * arithmetic, so only those (plus an overscan margin) are rendered and only their pages fetched.
 */
export interface WindowInput {
  scrollTop: number;
  viewportHeight: number;
  rowHeight: number;
  rowCount: number;
  /** Rows rendered beyond each edge, so a fast scroll does not show blanks before the next render. */
  overscan: number;
}

export interface RowWindow {
  /** First and last row to render (inclusive); last < first when there are no rows. */
  first: number;
  last: number;
  /** The spacer's height: every row's, so the scrollbar reflects the whole table. */
  totalHeight: number;
  /** Where the first rendered row sits inside the spacer. */
  offsetTop: number;
}

export function rowWindow({ scrollTop, viewportHeight, rowHeight, rowCount, overscan }: WindowInput): RowWindow {
  if (!(rowHeight > 0)) throw new RangeError(`rowHeight must be positive, got ${rowHeight}`);
  const totalHeight = Math.max(0, rowCount) * rowHeight;
  if (rowCount <= 0) return { first: 0, last: -1, totalHeight: 0, offsetTop: 0 };
  // A scroll position past the end (the table shrank under a filter) shows the last screenful.
  const maxTop = Math.max(0, totalHeight - viewportHeight);
  const top = Math.min(Math.max(0, scrollTop), maxTop);
  const firstVisible = Math.floor(top / rowHeight);
  const lastVisible = Math.max(firstVisible, Math.ceil((top + Math.max(0, viewportHeight)) / rowHeight) - 1);
  const first = Math.max(0, firstVisible - overscan);
  const last = Math.min(rowCount - 1, lastVisible + overscan);
  return { first, last, totalHeight, offsetTop: first * rowHeight };
}

/** The pages (of `pageSize` rows) that hold rows first..last. */
export function pagesFor(first: number, last: number, pageSize: number): number[] {
  if (last < first) return [];
  const out: number[] = [];
  for (let p = Math.floor(first / pageSize); p <= Math.floor(last / pageSize); p++) out.push(p);
  return out;
}

/** The scrollTop that brings a row into view with the least movement (for keyboard navigation). */
export function scrollToRow(row: number, scrollTop: number, viewportHeight: number, rowHeight: number): number {
  const top = row * rowHeight;
  if (top < scrollTop) return top;
  if (top + rowHeight > scrollTop + viewportHeight) return top + rowHeight - viewportHeight;
  return scrollTop;
}
