import { describe, expect, it } from 'vitest';
import { pagesFor, rowWindow, scrollToRow } from '../../renderer/src/views/trajectories/virtual.js';

const base = { rowHeight: 28, viewportHeight: 280, overscan: 5 };

describe('episode table windowing', () => {
  it('at the top renders the visible rows plus the overscan below, in a spacer for every row', () => {
    const w = rowWindow({ ...base, scrollTop: 0, rowCount: 10_000 });
    expect(w).toEqual({ first: 0, last: 9 + 5, totalHeight: 280_000, offsetTop: 0 });
  });

  it('mid-table renders overscan on both sides of the rows in view', () => {
    // scrollTop 2800 = row 100 at the top; 280 px shows rows 100..109.
    const w = rowWindow({ ...base, scrollTop: 2_800, rowCount: 10_000 });
    expect([w.first, w.last]).toEqual([95, 114]);
    expect(w.offsetTop).toBe(95 * 28);
    // A partly scrolled row counts as visible at both edges.
    const p = rowWindow({ ...base, scrollTop: 2_800 + 14, rowCount: 10_000 });
    expect([p.first, p.last]).toEqual([95, 115]);
  });

  it('renders the same small number of rows however long the table is', () => {
    for (const rowCount of [100, 10_000, 1_000_000]) {
      const w = rowWindow({ ...base, scrollTop: 50 * 28, rowCount });
      expect(w.last - w.first + 1).toBe(20);
      expect(w.totalHeight).toBe(rowCount * 28);
    }
  });

  it('clamps at the end, and a scroll position past the end shows the last screenful', () => {
    const w = rowWindow({ ...base, scrollTop: 9_995 * 28, rowCount: 10_000 });
    expect(w.last).toBe(9_999);
    const past = rowWindow({ ...base, scrollTop: 1e9, rowCount: 50 });
    expect(past).toEqual({ first: 40 - 5, last: 49, totalHeight: 1_400, offsetTop: 35 * 28 });
    expect(rowWindow({ ...base, scrollTop: -100, rowCount: 50 }).first).toBe(0);
  });

  it('has nothing to render without rows, and refuses a zero row height', () => {
    expect(rowWindow({ ...base, scrollTop: 500, rowCount: 0 })).toEqual({ first: 0, last: -1, totalHeight: 0, offsetTop: 0 });
    expect(() => rowWindow({ ...base, rowHeight: 0, scrollTop: 0, rowCount: 10 })).toThrow(RangeError);
  });

  it('maps a row range onto the pages holding it', () => {
    expect(pagesFor(0, 14, 100)).toEqual([0]);
    expect(pagesFor(95, 114, 100)).toEqual([0, 1]);
    expect(pagesFor(9_990, 9_999, 100)).toEqual([99]);
    expect(pagesFor(0, -1, 100)).toEqual([]);
  });

  it('scrolls the least to bring a row into view', () => {
    expect(scrollToRow(5, 0, 280, 28)).toBe(0); // already visible
    expect(scrollToRow(10, 0, 280, 28)).toBe(11 * 28 - 280); // just below: its bottom at the viewport's
    expect(scrollToRow(3, 500, 280, 28)).toBe(84); // above: at the top
  });
});
