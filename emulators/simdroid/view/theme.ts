import type { Color } from './spec.js';

/** Material 3 baseline colour roles, light and dark (Settings › Dark theme switches them). */
export type Palette = Record<Exclude<Color, `#${string}`>, string>;

export const LIGHT: Palette = {
  background: '#FFFFFF',
  surface: '#F7F2FA',
  surfaceVariant: '#E7E0EC',
  onSurface: '#1C1B1F',
  onSurfaceVariant: '#49454F',
  primary: '#6750A4',
  onPrimary: '#FFFFFF',
  primaryContainer: '#EADDFF',
  onPrimaryContainer: '#21005D',
  outline: '#79747E',
  error: '#B3261E',
  scrim: '#000000',
  transparent: 'rgba(0,0,0,0)',
};

export const DARK: Palette = {
  background: '#1C1B1F',
  surface: '#211F26',
  surfaceVariant: '#49454F',
  onSurface: '#E6E1E5',
  onSurfaceVariant: '#CAC4D0',
  primary: '#D0BCFF',
  onPrimary: '#381E72',
  primaryContainer: '#4F378B',
  onPrimaryContainer: '#EADDFF',
  outline: '#938F99',
  error: '#F2B8B5',
  scrim: '#000000',
  transparent: 'rgba(0,0,0,0)',
};

export function resolveColor(c: Color | undefined, palette: Palette, fallback: string): string {
  if (c === undefined) return fallback;
  if (c.startsWith('#')) return c;
  return palette[c as keyof Palette] ?? fallback;
}

function mix(hex: string, toward: number, amount: number): string {
  const n = parseInt(hex.slice(1), 16);
  const ch = (shift: number) => Math.round(((n >> shift) & 255) * (1 - amount) + toward * amount);
  return `#${[16, 8, 0].map((s) => ch(s).toString(16).padStart(2, '0')).join('')}`;
}

/**
 * A palette with an app's accent as its primary colour; the container colours (FAB, selection,
 * tonal buttons) are tints of it, as Material derives them from one seed colour.
 */
export function withAccent(base: Palette, accent: string | undefined, dark: boolean): Palette {
  if (!accent || dark) return base;
  return { ...base, primary: accent, primaryContainer: mix(accent, 255, 0.82), onPrimaryContainer: mix(accent, 0, 0.55) };
}

/** System bar and keyboard sizes in dp (Pixel-like, 3-button navigation). */
export const STATUS_BAR_DP = 24;
export const NAV_BAR_DP = 48;
export const KEYBOARD_DP = 264;
export const APP_BAR_DP = 64;
