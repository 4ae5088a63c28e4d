import type { UiElement } from './ui-tree.js';

/**
 * The screen's elements as AndroidWorld's agents read them: what its `representation_utils.xml_dump_to_ui_elements`
 * makes of a `uiautomator dump` — every node but the `<hierarchy>` root, in document order (so a position in this list
 * is the `index` AndroidWorld's JSONAction and the workbench's actions take), each with the XML's attributes under
 * AndroidWorld's field names, `bbox` and `bbox_pixels` the same pixel box, `is_visible` true. Fields that AndroidWorld
 * fills only from an accessibility forest (`hint_text`, `is_editable`, `tooltip`, `resource_name`) are absent, as they
 * are None there.
 */
export interface AwBoundingBox {
  x_min: number;
  x_max: number;
  y_min: number;
  y_max: number;
}

export interface AwUiElement {
  text: string;
  content_description: string;
  class_name: string;
  bbox: AwBoundingBox;
  bbox_pixels: AwBoundingBox;
  is_checked: boolean;
  is_checkable: boolean;
  is_clickable: boolean;
  is_enabled: boolean;
  is_focused: boolean;
  is_focusable: boolean;
  is_long_clickable: boolean;
  is_scrollable: boolean;
  is_selected: boolean;
  package_name: string;
  resource_id: string;
  is_visible: true;
}

export function awUiElements(elements: readonly UiElement[]): AwUiElement[] {
  return elements.map(({ node: n }) => {
    const box = { x_min: n.bounds.left, x_max: n.bounds.right, y_min: n.bounds.top, y_max: n.bounds.bottom };
    return {
      text: n.text, content_description: n.contentDesc, class_name: n.className, bbox: box, bbox_pixels: { ...box },
      is_checked: n.checked, is_checkable: n.checkable, is_clickable: n.clickable, is_enabled: n.enabled, is_focused: n.focused,
      is_focusable: n.focusable, is_long_clickable: n.longClickable, is_scrollable: n.scrollable, is_selected: n.selected,
      package_name: n.packageName, resource_id: n.resourceId, is_visible: true,
    };
  });
}
