import { z } from 'zod';
import type { Device } from '../../../device/device.js';
import { isFileWritable } from '../../../device/device.js';
import type { Rng } from '../../../util/rng.js';
import { clearDir, SDCARD } from '../../validators/files.js';

/**
 * Pictures a task puts on the device: receipts (a JPEG with a shop's name, dated item lines and a
 * total, as AndroidWorld's receipt_generator draws them with PIL) written the way `adb push` writes.
 */
const SHOPS = ['Corner Market', 'Green Grocer', 'City Hardware', 'Book Nook', 'Daily Deli', 'Tech Depot', 'Pet Palace', 'Cafe Aroma'];
const ITEMS = ['Coffee', 'Bread', 'Apples', 'Notebook', 'Batteries', 'Milk', 'Pasta', 'Light bulb', 'Dog food', 'Tea', 'Pens', 'Cheese', 'Soap', 'Rice'];

export const ReceiptLine = z.object({ item: z.string(), amount: z.number() });
export const Receipt = z.object({ shop: z.string(), date: z.string(), lines: z.array(ReceiptLine).min(1) });
export type Receipt = z.infer<typeof Receipt>;

export function drawReceipt(rng: Rng): Receipt {
  const month = rng.int(1, 12);
  const day = rng.int(1, 28);
  return {
    shop: rng.pick(SHOPS),
    date: `2023-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`,
    lines: rng.sample(ITEMS, rng.int(2, 5)).map((item) => ({ item, amount: rng.int(99, 4999) / 100 })),
  };
}

/** The receipt as a white JPEG with black text, one line per item and the total. */
export async function receiptJpeg(r: Receipt): Promise<Buffer> {
  const { createCanvas } = await import('@napi-rs/canvas');
  const lineH = 44;
  const w = 600;
  const h = 200 + (r.lines.length + 2) * lineH;
  const c = createCanvas(w, h);
  const g = c.getContext('2d');
  g.fillStyle = '#FFFFFF';
  g.fillRect(0, 0, w, h);
  g.fillStyle = '#000000';
  g.font = 'bold 34px "DejaVu Sans"';
  g.fillText(r.shop, 40, 70);
  g.font = '26px "DejaVu Sans"';
  g.fillText(`Date: ${r.date}`, 40, 120);
  let y = 190;
  for (const l of r.lines) {
    g.fillText(l.item, 40, y);
    g.fillText(l.amount.toFixed(2), w - 160, y);
    y += lineH;
  }
  const total = r.lines.reduce((s, l) => s + l.amount, 0);
  g.font = 'bold 26px "DejaVu Sans"';
  g.fillText('Total', 40, y + 20);
  g.fillText(total.toFixed(2), w - 160, y + 20);
  return c.encodeSync('jpeg', 90);
}

export const Picture = z.object({ name: z.string().min(1), receipt: Receipt });
export type Picture = z.infer<typeof Picture>;

const ADJECTIVES = ['quick', 'lazy', 'bright', 'quiet', 'brave', 'calm', 'eager', 'fancy', 'gentle', 'happy'];
const NOUNS = ['fox', 'dog', 'river', 'mountain', 'cloud', 'garden', 'forest', 'ocean', 'city', 'meadow'];

/** "receipt_brave_river_2023_07_14.jpg", the shape of AndroidWorld's receipt names. */
function receiptName(rng: Rng): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `receipt_${rng.pick(ADJECTIVES)}_${rng.pick(NOUNS)}_2023_${p(rng.int(1, 10))}_${p(rng.int(1, 28))}.jpg`;
}

/** `count` receipts with distinct file names. */
export function drawPictures(rng: Rng, count: number): Picture[] {
  const names = new Set<string>();
  while (names.size < count) names.add(receiptName(rng));
  return [...names].map((name) => ({ name, receipt: drawReceipt(rng) }));
}

/** A device that cannot take a file's bytes (a shell-only link): pictures need `adb push`'s sync service. */
export class PicturePushError extends Error {
  override name = 'PicturePushError';
  constructor(readonly serial: string, readonly path: string) {
    super(`${serial}: cannot write the picture ${path}: the device takes no file pushes`);
  }
}

export async function pushPicture(device: Device, path: string, bytes: Buffer): Promise<void> {
  if (!isFileWritable(device)) throw new PicturePushError(device.serial, path);
  await device.writeFile(path, bytes);
}

/** Empties a folder of shared storage and writes the pictures into it (newest last). */
export async function pushPictures(device: Device, folder: string, pictures: readonly Picture[]): Promise<void> {
  await clearDir(device, `${SDCARD}/${folder}`);
  for (const pic of pictures) await pushPicture(device, `${SDCARD}/${folder}/${pic.name}`, await receiptJpeg(pic.receipt));
}
