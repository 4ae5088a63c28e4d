import { describe, expect, it } from 'vitest';
import { sharedWatch } from '../../renderer/src/store/shared-watch.js';

describe('sharedWatch', () => {
  it('opens once for the first watcher, closes after the last, and counts a repeated stop once', () => {
    let opened = 0;
    let closed = 0;
    const watch = sharedWatch(() => {
      opened++;
      return () => closed++;
    });
    const a = watch();
    const b = watch();
    expect(opened).toBe(1);
    a();
    a(); // strict-mode double cleanup
    expect(closed).toBe(0);
    b();
    expect(closed).toBe(1);
    const c = watch();
    expect(opened).toBe(2);
    c();
    expect(closed).toBe(2);
  });
});
