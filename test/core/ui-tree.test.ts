import { describe, expect, it } from 'vitest';
import {
  flattenUiTree, hitTest, parseUiTree, serializeUiTree, UiXmlError, elementLabel, type UiTree,
} from '../../core/a11y/ui-tree.js';
import { device, tap } from '../helpers/simdroid.js';

const SAMPLE = `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.example" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][1080,2400]"><node NAF="true" index="0" text="" resource-id="com.example:id/go" class="android.widget.ImageButton" package="com.example" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[10,10][110,110]" /><node index="1" text="Tom &amp; Jerry &quot;&lt;3&quot;&#10;line 2" resource-id="" class="android.widget.TextView" package="com.example" content-desc="" checkable="false" checked="true" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,200][1080,300]" /></node></hierarchy>`;

describe('uiautomator XML', () => {
  it('parses the 17 attributes, NAF, entities and nesting', () => {
    const t = parseUiTree(SAMPLE);
    expect(t.roots).toHaveLength(1);
    const [btn, label] = t.roots[0]!.children;
    expect(btn).toMatchObject({ naf: true, clickable: true, resourceId: 'com.example:id/go', bounds: { left: 10, top: 10, right: 110, bottom: 110 } });
    expect(label!.text).toBe('Tom & Jerry "<3"\nline 2');
    expect(label!.checked).toBe(true);
  });

  it('round-trips byte for byte', () => {
    expect(serializeUiTree(parseUiTree(SAMPLE))).toBe(SAMPLE);
  });

  it("round-trips SimDroid's own dumps, structurally and textually", async () => {
    const d = device();
    await d.shell('am start -n com.android.settings/.Settings');
    const xml = d.uiXml();
    const tree = parseUiTree(xml);
    expect(serializeUiTree(tree)).toBe(xml);
    expect(tree).toEqual(d.uiTreeSync() satisfies UiTree);
    d.close();
  });

  it('accepts whitespace between tags (pretty-printed dumps)', () => {
    const pretty = SAMPLE.replace(/></g, '>\n  <');
    expect(parseUiTree(pretty)).toEqual(parseUiTree(SAMPLE));
  });

  it.each([
    ['<hierarchy><node index="0" bounds="[0,0][1,1]">', 'Unterminated'],
    ['<hierarchy><node bounds="[0,0]" /></hierarchy>', 'Malformed bounds'],
    ['<hierarchy></node></hierarchy>', 'Unexpected </node>'],
    ['<foo/>', 'Expected <hierarchy>'],
    ['<hierarchy><node text="&bogus;" /></hierarchy>', 'Unknown entity'],
    ['<hierarchy></hierarchy>trailing', 'Trailing content'],
  ])('rejects malformed input %#', (xml, message) => {
    expect(() => parseUiTree(xml)).toThrow(UiXmlError);
    expect(() => parseUiTree(xml)).toThrow(message);
  });
});

describe('tree queries', () => {
  it('hit-tests the top-most window and the last overlapping sibling', () => {
    const d = device();
    d.shellBytes('am start -n com.android.settings/.SubSettings --es page about');
    tap(d, { text: 'Device name' });
    const els = flattenUiTree(d.uiTreeSync());
    // The centre of the screen is covered by the rename dialog, which must win over the list below.
    const hit = hitTest(els, 540, 1100)!;
    let root = hit;
    while (root.parent) root = root.parent;
    const rootIndex = els.filter((e) => e.depth === 0).indexOf(root);
    expect(rootIndex).toBe(1);
    expect(elementLabel(els.find((e) => e.node.resourceId === 'android:id/alertTitle')!)).toBe('Device name');
    d.close();
  });

  it('numbers elements in document order', () => {
    const els = flattenUiTree(parseUiTree(SAMPLE));
    expect(els.map((e) => e.ordinal)).toEqual([0, 1, 2]);
    expect(els[2]!.parent).toBe(els[0]);
  });
});
