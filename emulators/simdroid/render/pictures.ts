import { createCanvas, ImageData, type Canvas, type SKRSContext2D } from '@napi-rs/canvas';
import { decodeSync } from './decode-sync.js';
import type { ViewSpec } from '../view/spec.js';

/**
 * What an ImageView and a drawing canvas show: a file's picture (PNG, JPEG, WebP… decoded by Skia) drawn
 * to fit the node, and strokes drawn over it. Decoded pictures are kept by key (a file's path), a few at
 * a time, each with the bytes it came from: a file's bytes are an immutable Buffer in SimDroid's
 * filesystem, so the same Buffer means the same picture, and a file rewritten (or a snapshot restored)
 * is decoded again. A gallery grid redrawn after every input decodes each thumbnail once.
 */
const MAX_DECODED = 24;
const decoded = new Map<string, { bytes: Buffer | null; img: Canvas | null }>();

function pictureOf(key: string, read: () => Buffer | null): Canvas | null {
  const bytes = read();
  const hit = decoded.get(key);
  // Most recently used last, so eviction drops the picture unused the longest.
  decoded.delete(key);
  if (hit && hit.bytes === bytes) {
    decoded.set(key, hit);
    return hit.img;
  }
  let img: Canvas | null = null;
  // Bytes Skia cannot decode give no picture: drawn as the broken-picture box below.
  const rgba = bytes && bytes.length > 0 ? decodeSync(bytes) : null;
  if (rgba) {
    img = createCanvas(rgba.width, rgba.height);
    img.getContext('2d').putImageData(new ImageData(rgba.data, rgba.width, rgba.height), 0, 0);
  }
  if (decoded.size >= MAX_DECODED) decoded.delete(decoded.keys().next().value!);
  decoded.set(key, { bytes, img });
  return img;
}

export interface Box { x: number; y: number; w: number; h: number }

function drawImage(g: SKRSContext2D, spec: ViewSpec, box: Box): void {
  const src = spec.image!;
  const img = pictureOf(src.key, src.read);
  if (!img) {
    g.strokeStyle = '#9E9E9E';
    g.lineWidth = 1;
    g.strokeRect(box.x + 0.5, box.y + 0.5, box.w - 1, box.h - 1);
    return;
  }
  const fit = src.fit ?? 'contain';
  const k = fit === 'cover' ? Math.max(box.w / img.width, box.h / img.height) : Math.min(box.w / img.width, box.h / img.height);
  const [w, h] = [img.width * k, img.height * k];
  g.save();
  g.beginPath();
  g.rect(box.x, box.y, box.w, box.h);
  g.clip();
  g.imageSmoothingEnabled = true;
  g.drawImage(img, box.x + (box.w - w) / 2, box.y + (box.h - h) / 2, w, h);
  g.restore();
}

/** Strokes in fractions of the box, drawn with round caps as a paint app draws a finger's path. */
export function drawStrokes(g: SKRSContext2D, strokes: ViewSpec['strokes'], box: Box): void {
  g.save();
  g.lineCap = 'round';
  g.lineJoin = 'round';
  for (const s of strokes ?? []) {
    if (s.points.length < 2) continue;
    g.strokeStyle = s.color;
    g.lineWidth = s.width;
    g.beginPath();
    g.moveTo(box.x + s.points[0]! * box.w, box.y + s.points[1]! * box.h);
    for (let i = 2; i + 1 < s.points.length; i += 2) g.lineTo(box.x + s.points[i]! * box.w, box.y + s.points[i + 1]! * box.h);
    if (s.points.length === 2) g.lineTo(box.x + s.points[0]! * box.w + 0.01, box.y + s.points[1]! * box.h);
    g.stroke();
  }
  g.restore();
}

/** The node's picture, then its strokes, inside its content box. */
export function drawPicture(g: SKRSContext2D, spec: ViewSpec, box: Box): void {
  if (spec.image) drawImage(g, spec, box);
  if (spec.strokes) drawStrokes(g, spec.strokes, box);
}
