import { describe, expect, it } from 'vitest';
import type { UiNode } from '../../core/api/types.js';
import { flattenTree } from '../../renderer/src/views/live/tree-model.js';
import { copyText, coveredBy, nodeAction } from '../../renderer/src/views/live/node-copy.js';

function node(cls: string, b: [number, number, number, number], extra: Partial<UiNode> = {}, children: UiNode[] = []): UiNode {
  return {
    index: 0, text: '', resourceId: '', className: cls, packageName: 'app', contentDesc: '', checkable: false, checked: false, clickable: false,
    enabled: true, focusable: false, focused: false, scrollable: false, longClickable: false, password: false, selected: false,
    bounds: { left: b[0], top: b[1], right: b[2], bottom: b[3] }, naf: false, children, ...extra,
  };
}

/** An app window with a list of two "OK" rows and a field, a dialog window over its lower half, and the status bar. */
const nodes = flattenTree({
  rotation: 0,
  roots: [
    node('android.widget.FrameLayout', [0, 0, 1080, 2400], {}, [
      node('android.widget.ListView', [0, 100, 1080, 2000], { scrollable: true, resourceId: 'app:id/list' }, [
        node('android.widget.TextView', [0, 100, 1080, 300], { text: 'OK', clickable: true }),
        node('android.widget.TextView', [0, 1500, 1080, 1700], { text: 'OK', clickable: true }),
      ]),
      node('android.widget.EditText', [0, 2000, 1080, 2200], { resourceId: 'app:id/name', text: 'Say "hi" it\'s' }),
    ]),
    node('android.widget.FrameLayout', [100, 1200, 980, 1900], { packageName: 'app' }, [node('android.widget.Button', [600, 1700, 900, 1850], { text: 'Cancel', clickable: true })]),
    node('android.widget.FrameLayout', [0, 0, 1080, 63], { packageName: 'com.android.systemui' }),
  ],
});
const [, list, ok1, ok2, field] = nodes;

describe('copying a node as Appium Inspector does', () => {
  it('as the action a person means on it, in the workbench’s JSON and as AndroidWorld’s json.dumps writes it', () => {
    expect(nodeAction(ok1!)).toEqual({ action_type: 'click', index: 2 });
    expect(nodeAction(list!)).toEqual({ action_type: 'scroll', direction: 'down', index: 1 });
    expect(copyText(nodes, field!, 'workbench')).toBe('{"action_type":"input_text","text":"TEXT","index":4}');
    expect(copyText(nodes, field!, 'androidworld')).toBe('{"action_type": "input_text", "text": "TEXT", "index": 4}');
  });

  it('as a selector: resource-id, UiAutomator and XPath by a unique attribute, else by position', () => {
    expect(copyText(nodes, list!, 'resource-id')).toBe('app:id/list');
    expect(copyText(nodes, ok1!, 'resource-id')).toBeNull();
    expect(copyText(nodes, list!, 'uiautomator')).toBe('new UiSelector().resourceId("app:id/list")');
    // Two "OK" rows: neither text is unique, so the class and its instance (and the XPath's positions from the root).
    expect(copyText(nodes, ok2!, 'uiautomator')).toBe('new UiSelector().className("android.widget.TextView").instance(1)');
    expect(copyText(nodes, ok2!, 'xpath')).toBe('/hierarchy/node[1]/node[1]/node[2]');
    expect(copyText(nodes, nodes[6]!, 'xpath')).toBe('//node[@text="Cancel"]');
    // Both quote kinds in a text: XPath 1.0 has no escapes, so concat().
    expect(copyText(nodes, field!, 'xpath')).toBe('//node[@resource-id="app:id/name"]');
    expect(copyText([field!], { ...field!, node: { ...field!.node, resourceId: '' } }, 'xpath')).toBe(`//node[@text=concat("Say ", '"', "hi", '"', " it's")]`);
  });

  it('warns when another window covers the node at its centre (a dialog, the status bar), not when it is on top', () => {
    expect(coveredBy(nodes, ok2!)?.ordinal).toBe(5); // under the dialog
    expect(coveredBy(nodes, ok1!)).toBeNull(); // above it
    expect(coveredBy(nodes, nodes[6]!)).toBeNull(); // the dialog's own button
  });
});
