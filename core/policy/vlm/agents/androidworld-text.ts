import type { AwBoundingBox, AwUiElement } from '../../../a11y/androidworld-elements.js';
import { lenientJsonValue } from '../lenient.js';
import { PromptTemplateError } from '../prompt-template.js';
import { pythonJson } from './python-json.js';

/**
 * The text AndroidWorld's agents write from a screen and a reply, as their Python writes it (android_world/agents:
 * t3a.py, m3a.py, m3a_utils.py), so a request built here is the one they build. The elements are
 * core/a11y/androidworld-elements.ts's (exactly AndroidWorld's xml_dump_to_ui_elements), each formatted as:
 * - T3A: `UI element <i>: <repr of the UIElement dataclass>` (str(ui_element));
 * - M3A: `UI element <i>: {"index": <i>, "text": "…", …}` with the fields its _generate_ui_element_description picks;
 * each line only for an element m3a_utils.validate_ui_element keeps (visible, a box on the screen).
 */

/** Python's repr(str): quotes as Python picks them, escapes as it writes them (str.isprintable decides). */
export function pythonRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (c < 0x20 || c === 0x7f) out += `\\x${hex(c, 2)}`;
    else if (c < 0x7f || isPrintable(ch)) out += ch;
    else if (c <= 0xff) out += `\\x${hex(c, 2)}`;
    else if (c <= 0xffff) out += `\\u${hex(c, 4)}`;
    else out += `\\U${hex(c, 8)}`;
  }
  return out + quote;
}

const hex = (c: number, width: number) => c.toString(16).padStart(width, '0');
/** Python's str.isprintable for one character: not a control, format, surrogate, private-use, unassigned or separator (but space). */
const NOT_PRINTABLE = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]$/u;
const isPrintable = (ch: string) => ch === ' ' || !NOT_PRINTABLE.test(ch);

const pyValue = (v: string | boolean | number | null | undefined): string =>
  v === null || v === undefined ? 'None' : typeof v === 'boolean' ? (v ? 'True' : 'False') : typeof v === 'number' ? String(v) : pythonRepr(v);
const boxRepr = (b: AwBoundingBox) => `BoundingBox(x_min=${b.x_min}, x_max=${b.x_max}, y_min=${b.y_min}, y_max=${b.y_max})`;

/** str(ui_element): the dataclass repr, every field in UIElement's order (None for those the XML dump leaves unset). */
export function uiElementRepr(e: AwUiElement): string {
  const fields: Array<[string, string]> = [
    ['text', pyValue(e.text)], ['content_description', pyValue(e.content_description)], ['class_name', pyValue(e.class_name)],
    ['bbox', boxRepr(e.bbox)], ['bbox_pixels', boxRepr(e.bbox_pixels)], ['hint_text', 'None'], ['is_checked', pyValue(e.is_checked)],
    ['is_checkable', pyValue(e.is_checkable)], ['is_clickable', pyValue(e.is_clickable)], ['is_editable', 'None'], ['is_enabled', pyValue(e.is_enabled)],
    ['is_focused', pyValue(e.is_focused)], ['is_focusable', pyValue(e.is_focusable)], ['is_long_clickable', pyValue(e.is_long_clickable)],
    ['is_scrollable', pyValue(e.is_scrollable)], ['is_selected', pyValue(e.is_selected)], ['is_visible', pyValue(e.is_visible)],
    ['package_name', pyValue(e.package_name)], ['resource_name', 'None'], ['tooltip', 'None'], ['resource_id', pyValue(e.resource_id)], ['metadata', 'None'],
  ];
  return `UIElement(${fields.map(([k, v]) => `${k}=${v}`).join(', ')})`;
}

/** m3a_utils.validate_ui_element: visible, and a box that is not empty and reaches onto the screen. */
export function validUiElement(e: AwUiElement, screen: { width: number; height: number }): boolean {
  const b = e.bbox_pixels;
  return !(b.x_min >= b.x_max || b.x_min >= screen.width || b.x_max <= 0 || b.y_min >= b.y_max || b.y_min >= screen.height || b.y_max <= 0);
}

/** t3a._generate_ui_elements_description_list_full. */
export function t3aElementsText(elements: readonly AwUiElement[], screen: { width: number; height: number }): string {
  return elements.map((e, i) => (validUiElement(e, screen) ? `UI element ${i}: ${uiElementRepr(e)}\n` : '')).join('');
}

/** m3a._generate_ui_element_description: the text fields it has (written as they are, unescaped), then the flags. */
export function m3aElementText(e: AwUiElement, index: number): string {
  const tf = (v: boolean) => (v ? 'True' : 'False');
  let d = `UI element ${index}: {"index": ${index}, `;
  if (e.text) d += `"text": "${e.text}", `;
  if (e.content_description) d += `"content_description": "${e.content_description}", `;
  // hint_text and tooltip: None from a uiautomator dump, so never written.
  d += `"is_clickable": ${tf(e.is_clickable)}, "is_long_clickable": ${tf(e.is_long_clickable)}, "is_editable": False, `;
  if (e.is_scrollable) d += '"is_scrollable": True, ';
  if (e.is_focusable) d += '"is_focusable": True, ';
  d += `"is_selected": ${tf(e.is_selected)}, "is_checked": ${tf(e.is_checked)}, `;
  return `${d.slice(0, -2)}}`;
}

/** m3a._generate_ui_elements_description_list. */
export function m3aElementsText(elements: readonly AwUiElement[], screen: { width: number; height: number }): string {
  return elements.map((e, i) => (validUiElement(e, screen) ? `${m3aElementText(e, i)}\n` : '')).join('');
}

/**
 * m3a_utils.parse_reason_action_output: the reason is what lies between the first `Reason:` and the last `Action:`,
 * the action what follows the first `Action:` (each stripped; null when empty or absent), and an action holding a
 * `{…}` (up to its first `}`) that reads as a Python literal is rewritten as json.dumps writes it. AndroidWorld reads
 * the literal with ast.literal_eval; here the workbench's lenient JSON reader reads it, refusing JSON's
 * true/false/null (Python names, which literal_eval refuses).
 */
export function parseReasonAction(output: string): { reason: string | null; action: string | null } {
  const reason = /Reason:([\s\S]*)Action:/.exec(output)?.[1]?.trim() || null;
  let action = /Action:([\s\S]*)/.exec(output)?.[1]?.trim() || null;
  if (action) {
    const extracted = pythonLiteralObject(action);
    if (extracted !== undefined) action = pythonJson(extracted, { ensureAscii: true });
  }
  return { reason, action };
}

/** m3a_utils.extract_json: the first `{…}` (non-greedy) of the text read as a Python literal, undefined when it does not read. */
function pythonLiteralObject(text: string): unknown {
  const m = /\{[\s\S]*?\}/.exec(text);
  if (!m) return undefined;
  if (/^(?:[^'"]|'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*")*?\b(?:true|false|null)\b/.test(m[0])) return undefined;
  const r = lenientJsonValue(m[0]);
  return r.ok && r.value !== null && typeof r.value === 'object' && !Array.isArray(r.value) ? r.value : undefined;
}

/**
 * agent_utils.extract_json, which turns the action into a JSONAction: the first `{…}` on one line (non-greedy) read as
 * a Python literal, else as JSON (here: the lenient reader, which reads both); undefined when neither reads.
 */
export function agentJsonObject(text: string): Record<string, unknown> | undefined {
  const m = /\{.*?\}/.exec(text);
  if (!m) return undefined;
  const r = lenientJsonValue(m[0]);
  return r.ok && r.value !== null && typeof r.value === 'object' && !Array.isArray(r.value) ? r.value as Record<string, unknown> : undefined;
}

/** A Python `str.format` template filled with named values (`{{` and `}}` are braces); an unknown name throws, as Python's KeyError. */
export function pythonFormat(label: string, template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{\{|\}\}|\{([A-Za-z_]\w*)\}/g, (m, name: string | undefined) => {
    if (m === '{{') return '{';
    if (m === '}}') return '}';
    const v = values[name!];
    if (v === undefined) throw new PromptTemplateError(label, `the template names {${name}}, which AndroidWorld's agent does not fill (it fills ${Object.keys(values).map((k) => `{${k}}`).join(', ')})`);
    return v;
  });
}
