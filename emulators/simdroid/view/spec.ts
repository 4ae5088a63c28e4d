/**
 * What an activity's render function returns: a declarative description of a screen, rebuilt from
 * state after every input (like a React render). Event handlers are closures created during that
 * render; they mutate the activity's state (plain data), never the view, so the whole device state
 * stays serialisable for snapshots.
 *
 * Sizes are in dp (density-independent pixels, as in Android layouts); layout converts to pixels.
 */
export type Handler = () => void;

/** Android widget classes SimDroid's views report in the accessibility tree. */
export const W = {
  View: 'android.view.View',
  TextView: 'android.widget.TextView',
  Button: 'android.widget.Button',
  ImageButton: 'android.widget.ImageButton',
  ImageView: 'android.widget.ImageView',
  EditText: 'android.widget.EditText',
  CheckBox: 'android.widget.CheckBox',
  Switch: 'android.widget.Switch',
  RadioButton: 'android.widget.RadioButton',
  SeekBar: 'android.widget.SeekBar',
  LinearLayout: 'android.widget.LinearLayout',
  FrameLayout: 'android.widget.FrameLayout',
  RelativeLayout: 'android.widget.RelativeLayout',
  RecyclerView: 'androidx.recyclerview.widget.RecyclerView',
  ListView: 'android.widget.ListView',
  ScrollView: 'android.widget.ScrollView',
  ViewGroup: 'android.view.ViewGroup',
  TabWidget: 'android.widget.TabWidget',
  NumberPicker: 'android.widget.NumberPicker',
  ProgressBar: 'android.widget.ProgressBar',
} as const;

/** A theme colour role, or a literal #rrggbb. */
export type Color =
  | 'background' | 'surface' | 'surfaceVariant' | 'onSurface' | 'onSurfaceVariant' | 'primary' | 'onPrimary'
  | 'primaryContainer' | 'onPrimaryContainer' | 'outline' | 'error' | 'scrim' | 'transparent'
  | `#${string}`;

export type IconName = string;

export interface Style {
  bg?: Color;
  fg?: Color;
  /** Text size in sp. */
  size?: number;
  bold?: boolean;
  textAlign?: 'left' | 'center' | 'right';
  /** Corner radius in dp. */
  radius?: number;
  border?: Color;
  icon?: IconName;
  iconColor?: Color;
  /** Icon size in dp (default 24). */
  iconSize?: number;
  /** Maximum lines drawn (the accessibility text stays whole, as on Android). */
  lines?: number;
  /** Draw a divider line under the node. */
  divider?: boolean;
  /** How a control looks: a filled button, an outlined one, a text button, a floating action button… */
  variant?: 'filled' | 'tonal' | 'outlined' | 'text' | 'fab' | 'chip' | 'tab' | 'avatar' | 'card' | 'slider' | 'appicon';
  /** A SeekBar's or ProgressBar's fill, 0..1. */
  progress?: number;
  elevation?: boolean;
}

/**
 * A picture a node shows (an ImageView's bitmap): bytes read when the frame is drawn, decoded again only
 * when the bytes under its key (a file's path) are another Buffer, drawn to fit the node's content box.
 */
export interface ImageSource {
  key: string;
  read: () => Buffer | null;
  /** 'contain' (default) shows the whole image; 'cover' fills the box and crops (thumbnails). */
  fit?: 'contain' | 'cover';
}

/** A line drawn on a canvas: points as fractions 0..1 of the node's box, x0 y0 x1 y1 …; width in dp. */
export interface Stroke {
  color: `#${string}`;
  width: number;
  points: readonly number[];
}

export type Insets = number | [top: number, right: number, bottom: number, left: number];

export interface ViewSpec {
  cls: string;
  /** Short name (prefixed with the app's package) or a full `pkg:id/name`. */
  id?: string;
  text?: string;
  desc?: string;
  /** EditText only: shown (and reported as text) while the field is empty. */
  hint?: string;
  /** EditText only: the key of the form field this text box edits (window state `fields`). */
  field?: string;
  multiline?: boolean;
  password?: boolean;
  /** EditText only: characters accepted; others typed are dropped (like an Android inputType). */
  accept?: 'any' | 'digits' | 'number' | 'phone';

  clickable?: boolean;
  longClickable?: boolean;
  checkable?: boolean;
  checked?: boolean;
  focusable?: boolean;
  enabled?: boolean;
  selected?: boolean;

  onClick?: Handler;
  onLongClick?: Handler;
  /** EditText: Enter pressed in a single-line field (search, "done"). */
  onSubmit?: Handler;
  /** A tap with its position inside the node as fractions 0..1 (sliders, grids). */
  onTapAt?: (fx: number, fy: number) => void;
  /**
   * A fling on this node: horizontal ones (tab pagers, dismissible cards), and vertical ones that
   * no scroll container below the finger could take (the launcher's swipe up to the app drawer).
   */
  onSwipe?: (direction: 'left' | 'right' | 'up' | 'down') => void;

  /**
   * A drag across this node (a drawing canvas): the finger's way as fractions 0..1 of the node's box,
   * x y x y … from where it went down to where it lifted (a streamed touch gives every point it moved
   * by; `input swipe` its two ends). It takes the gesture before scrolling and flings.
   */
  onDrag?: (points: readonly number[]) => void;
  /** ImageView: the picture shown. */
  image?: ImageSource;
  /** Lines drawn over the node (a drawing canvas). */
  strokes?: readonly Stroke[];

  /** Children are stacked vertically ('column'), side by side ('row') or on top of each other ('stack'). */
  layout?: 'column' | 'row' | 'stack';
  children?: ViewSpec[];
  /** Makes a column a vertical scroll container whose offset is kept in window state under this key. */
  scrollKey?: string;

  /** Height in dp, or 'fill' to take the space left in a column. Default: the content's height. */
  h?: number | 'fill';
  /** Width in dp, or 'wrap' for the content's width (rows only). Default: share of the row by weight. */
  w?: number | 'wrap';
  weight?: number;
  pad?: Insets;
  /** Space between children, dp. */
  gap?: number;
  /** A positioned child of a stack (floating action buttons, overlays). */
  place?: { h: 'left' | 'center' | 'right'; v: 'top' | 'center' | 'bottom'; margin?: number; w?: number; hgt?: number };
  style?: Style;
}

export function insets(p: Insets | undefined): [number, number, number, number] {
  if (p === undefined) return [0, 0, 0, 0];
  return typeof p === 'number' ? [p, p, p, p] : p;
}
