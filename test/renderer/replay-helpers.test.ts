import { describe, expect, it } from 'vitest';
import type { StoredStep, Trajectory } from '../../core/api/types.js';
import { actionMarker, deviceSize, pngSize, stepOverlay, summarizeAction } from '../../renderer/src/views/trajectories/overlay.js';
import { parseUiTree } from '../../core/a11y/ui-tree.js';
import { nodeLabel, prettyXml, treeFromUi } from '../../renderer/src/views/trajectories/tree-model.js';

// The tree as getTree delivers it: parsed by core.
const parseTreeXml = (xml: string) => treeFromUi(parseUiTree(xml));
import { fromDateInput, stepDiff, toDateInput } from '../../renderer/src/views/trajectories/format.js';
import { formatBytes, shownText, textSize, utf8Length } from '../../renderer/src/views/trajectories/agent-text.js';

const XML = `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">`
  + `<node index="0" text="" class="android.widget.FrameLayout" bounds="[0,0][1080,2400]">`
  + `<node index="0" text="Save &amp; exit" class="android.widget.Button" clickable="true" bounds="[100,200][500,300]" />`
  + `<node index="1" text="" content-desc="Search" class="android.widget.ImageView" bounds="[600,200][700,300]">`
  + `<node index="0" text="" resource-id="com.app:id/icon" class="android.view.View" bounds="[610,210][690,290]" /></node>`
  + `</node></hierarchy>`;

function step(over: Partial<StoredStep>): StoredStep {
  return {
    index: 0, raw: null, foreground: { package: 'p', activity: 'a' }, timings: { observeMs: 0, policyMs: 0, actMs: 0, settleMs: 0 },
    startedAt: 0, screenshot: null, tree: null, rewards: {}, ...over,
  };
}

describe('reading stored trees', () => {
  it("numbers nodes in document order (what actions call an element index) from core's parse", () => {
    const t = parseTreeXml(XML);
    expect(t.nodes.map((n) => n.ordinal)).toEqual([0, 1, 2, 3]);
    expect(t.roots).toHaveLength(1);
    expect(t.nodes[1]!.attrs.text).toBe('Save & exit');
    expect(t.nodes[3]!.parent).toBe(t.nodes[2]);
    expect(t.nodes[3]!.depth).toBe(2);
    expect(t.nodes[1]!.bounds).toEqual({ left: 100, top: 200, right: 500, bottom: 300 });
    expect(t.nodes.map(nodeLabel)).toEqual(['', 'Save & exit', 'Search', 'icon']);
    expect(prettyXml(t).split('\n')).toHaveLength(8);
    expect(prettyXml(t)).toContain('text="Save &amp; exit"');
  });

});

describe('action overlays', () => {
  const device = { width: 1080, height: 2400 };
  it('marks taps at a point, swipes as lines and scrolls as the drag they become', () => {
    expect(actionMarker({ action_type: 'click', x: 10, y: 20 }, null, device)).toEqual({ x: 10, y: 20 });
    expect(actionMarker({ action_type: 'swipe', start: [1, 2], end: [3, 4] }, null, device)).toEqual({ x: 1, y: 2, x2: 3, y2: 4 });
    // "down" reveals what is below: the finger moves up.
    expect(actionMarker({ action_type: 'scroll', direction: 'down' }, null, device)).toEqual({ x: 540, y: 1200 + 720, x2: 540, y2: 1200 - 720 });
    expect(actionMarker('{"action_type":"long_press","x":5,"y":6}', null, device)).toEqual({ x: 5, y: 6 });
    expect(actionMarker({ action_type: 'navigate_back' }, null, device)).toBeNull();
  });

  it('boxes the target element (from the record, else from the tree by index) and marks only coordinate actions', () => {
    const tree = parseTreeXml(XML);
    const byTarget = stepOverlay(step({ action: { action_type: 'click', index: 1 }, target: { ordinal: 1, bounds: { left: 1, top: 2, right: 3, bottom: 4 }, label: 'Save' } }), tree, device);
    expect(byTarget).toEqual({ boxes: [{ bounds: { left: 1, top: 2, right: 3, bottom: 4 }, kind: 'target', label: 'Save' }], marker: null });
    const byIndex = stepOverlay(step({ action: { action_type: 'click', index: 2 } }), tree, device);
    expect(byIndex.boxes[0]!.bounds).toEqual({ left: 600, top: 200, right: 700, bottom: 300 });
    const point = stepOverlay(step({ action: { action_type: 'click', x: 50, y: 60 } }), tree, device);
    expect(point).toEqual({ boxes: [], marker: { x: 50, y: 60 } });
    expect(stepOverlay(null, tree, device)).toEqual({ boxes: [], marker: null });
  });

  it('measures overlays in the recorded device size, whatever the screenshot size', () => {
    const png = new Uint8Array(24);
    png.set([0x89, 0x50, 0x4e, 0x47], 0);
    new DataView(png.buffer).setUint32(16, 540);
    new DataView(png.buffer).setUint32(20, 1200);
    expect(pngSize(png)).toEqual({ width: 540, height: 1200 });
    const t = { episode: { device: { serial: 's', width: 1080, height: 2400, density: 420 } } } as Trajectory;
    expect(deviceSize(t, null, png)).toEqual({ width: 1080, height: 2400 });
    // Without the device: the tree's root bounds, then the image.
    const noDevice = { episode: { device: null } } as Trajectory;
    expect(deviceSize(noDevice, parseTreeXml(XML), png)).toEqual({ width: 1080, height: 2400 });
    expect(deviceSize(noDevice, null, png)).toEqual({ width: 540, height: 1200 });
  });

  it('names candidates from the tree', () => {
    const tree = parseTreeXml(XML);
    expect(summarizeAction({ action_type: 'click', index: 1 }, tree)).toBe('tap #1 "Save & exit"');
    expect(summarizeAction({ action_type: 'input_text', text: 'Alice', index: 3 }, tree)).toBe('type "Alice" into #3 "icon"');
    expect(summarizeAction({ action_type: 'click', x: 1.4, y: 2 })).toBe('tap (1, 2)');
    expect(summarizeAction('not json')).toBe('not json');
  });
});

describe('comparing episodes and dates', () => {
  it('aligns steps by index and finds the first divergence', () => {
    const a = [step({ description: 'Open Contacts' }), step({ description: 'Tap "Add"' }), step({ description: 'Go back' })];
    const b = [step({ description: 'Open Contacts' }), step({ description: 'Tap "Create"' })];
    const d = stepDiff(a, b);
    expect(d.firstDivergence).toBe(1);
    expect(d.rows.map((r) => r.same)).toEqual([true, false, false]);
    expect(d.rows[2]).toEqual({ index: 2, mine: 'Go back', theirs: null, same: false });
    expect(stepDiff(a.slice(0, 1), b.slice(0, 1)).firstDivergence).toBeNull();
  });

  it('turns date inputs into a half-open range of local days and back', () => {
    const since = fromDateInput('2025-03-14')!;
    const until = fromDateInput('2025-03-14', true)!;
    expect(until - since).toBeGreaterThanOrEqual(23 * 3600_000);
    expect(toDateInput(since)).toBe('2025-03-14');
    expect(toDateInput(until, true)).toBe('2025-03-14');
    expect(fromDateInput('')).toBeNull();
    expect(fromDateInput('2025-3')).toBeNaN();
  });
});

describe('an outside agent\'s prompt and reply as shown', () => {
  it('shows each base64 data URL by its type and decoded size, and counts them', () => {
    const png = `data:image/png;base64,${Buffer.alloc(3000, 7).toString('base64')}`;
    const jpeg = `data:image/jpeg;name=shot.jpg;base64,${Buffer.alloc(1001, 1).toString('base64')}`;
    const raw = `look: ${png} and ${jpeg} and data:text/plain,hello`;
    const shown = shownText(raw);
    expect(shown.text).toBe('look: ‹data:image/png · 3.0 kB› and ‹data:image/jpeg · 1.0 kB› and data:text/plain,hello');
    expect([shown.dataUrls, shown.dataBytes, shown.cut]).toEqual([2, 4001, 0]);
    expect(textSize(raw)).toEqual({ bytes: raw.length, dataUrls: 2, dataBytes: 4001 });
  });

  it('indents JSON messages, leaves other text as written, and cuts at the limit', () => {
    expect(shownText('[{"role":"user","content":"hi"}]').text).toBe('[\n  {\n    "role": "user",\n    "content": "hi"\n  }\n]');
    expect(shownText('[not json] tap Save').text).toBe('[not json] tap Save');
    const long = shownText('x'.repeat(25), 10);
    expect([long.text, long.cut]).toEqual(['x'.repeat(10), 15]);
  });

  it('measures UTF-8 without encoding a copy', () => {
    for (const s of ['plain', 'café', '日本語', 'emoji 🙂 ok']) expect(utf8Length(s)).toBe(Buffer.byteLength(s, 'utf8'));
    expect([formatBytes(999), formatBytes(1500), formatBytes(15_000), formatBytes(2_500_000)]).toEqual(['999 B', '1.5 kB', '15 kB', '2.5 MB']);
  });
});
