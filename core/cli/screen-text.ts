import type { Observation } from '../device/observation.js';
import { appByPackage } from '../device/app-catalog.js';

/**
 * A screen as text for a person driving an episode from a terminal: the app in front, then the
 * elements worth acting on or reading, with the index an action refers to them by.
 */
export function screenText(obs: Observation): string {
  const app = appByPackage(obs.foreground.package)?.name ?? obs.foreground.package;
  const lines = [`${app} — ${obs.foreground.activity}`];
  for (const e of obs.elements) {
    const n = e.node;
    const label = n.text || n.contentDesc;
    const editable = n.className === 'android.widget.EditText';
    if (!label && !n.clickable && !n.scrollable && !editable) continue;
    const flags = [
      n.clickable ? 'click' : '', n.longClickable && !editable ? 'long' : '', n.scrollable ? 'scroll' : '', editable ? 'edit' : '',
      n.checkable ? (n.checked ? 'on' : 'off') : '', n.focused ? 'focused' : '', n.enabled ? '' : 'disabled',
    ].filter(Boolean);
    const cls = n.className.split('.').pop();
    lines.push(`  [${e.ordinal}] ${cls}${label ? ` ${JSON.stringify(label.length > 60 ? `${label.slice(0, 59)}…` : label)}` : ''}${flags.length ? ` (${flags.join(', ')})` : ''}`);
  }
  return lines.join('\n');
}
