import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LAYERS } from '../../eslint/layers.js';

/** docs/architecture.md draws the layer order; the lint rule owns it. They must not drift apart. */
describe('docs/architecture.md', () => {
  const doc = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');

  it('draws the layers in exactly the order eslint/layers.js enforces', () => {
    const marker = doc.indexOf('checked against LAYERS in eslint/layers.js');
    expect(marker, 'the diagram marker comment').toBeGreaterThan(-1);
    const block = /```text\n([\s\S]*?)```/.exec(doc.slice(marker));
    expect(block, 'the diagram block after the marker').not.toBeNull();
    // One row per line, top = highest; folders on one row share a rank.
    const drawn = block![1]!
      .split('\n')
      .map((line) => line.match(/\b(?:core|emulators)\/[a-z0-9-]+/g) ?? [])
      .filter((row) => row.length > 0)
      .reverse();
    expect(drawn).toEqual(LAYERS.map((rank) => [...rank]));
  });

  it('describes every layer in its table', () => {
    for (const folder of LAYERS.flat()) expect(doc, folder).toContain(`| \`${folder}\` |`);
  });
});
