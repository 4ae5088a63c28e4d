import { W, type ViewSpec } from '../../view/spec.js';
import { strip } from '../../view/widgets.js';

/** How the Contacts app shows things: US phone formatting, avatar letters and colours, list sections. */

/**
 * A number as Android's PhoneNumberUtils formats it for the US: "(415) 555-0134" for 10 digits,
 * "+1 415-555-0134" with the country code; anything else as typed.
 */
export function formatPhone(number: string): string {
  const raw = number.trim();
  const d = raw.replace(/\D/g, '');
  if (/[^0-9+\-(). ]/.test(raw)) return raw;
  if (d.length === 10 && !raw.startsWith('+')) return `(${d.slice(0, 3)}) ${d.slice(3, 6)}-${d.slice(6)}`;
  if (d.length === 11 && d.startsWith('1')) return `+1 ${d.slice(1, 4)}-${d.slice(4, 7)}-${d.slice(7)}`;
  return raw;
}

/** The letter a name is filed under: its first letter, or "#" for digits and symbols. */
export function sectionOf(name: string): string {
  const ch = name.trim().charAt(0).toUpperCase();
  return /[A-Z]/.test(ch) ? ch : '#';
}

const AVATAR_COLORS = ['#1A73E8', '#D93025', '#188038', '#E37400', '#9334E6', '#007B83', '#C5221F', '#5F6368'] as const;

/** A stable colour per contact, like Google Contacts' letter tiles. */
export function avatarColor(id: number): `#${string}` {
  return AVATAR_COLORS[Math.abs(id) % AVATAR_COLORS.length]!;
}

export function avatarLetter(name: string): string {
  const ch = name.trim().charAt(0).toUpperCase();
  return /\p{L}/u.test(ch) ? ch : '#';
}

/**
 * A letter tile: an ImageView, as on Android, so it reports no text (a row's label stays the
 * name). The renderer draws a glyph name it does not know as its first letter, which is the tile.
 */
export function letterAvatar(name: string, id: number, size: number, viewId?: string): ViewSpec {
  return strip({
    cls: W.ImageView, id: viewId, w: size, h: size,
    style: { variant: 'avatar', bg: avatarColor(id), icon: avatarLetter(name), iconColor: '#FFFFFF', iconSize: Math.round(size * 0.75) },
  });
}
