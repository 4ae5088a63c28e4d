import { describe, expect, it } from 'vitest';
import { parseRawScreencap, pngFromPng, pngFromRaw, ScreencapChooser } from '../../core/device/adb/screencap.js';
import { encodePng } from '../../core/util/png.js';

function rawCapture(width: number, height: number, format = 1): { raw: Buffer; rgba: Buffer } {
  const rgba = Buffer.alloc(width * height * 4);
  for (let i = 0; i < rgba.length; i++) rgba[i] = i % 4 === 3 ? (format === 2 ? 7 : 255) : (i * 31) % 251;
  const header = Buffer.alloc(16);
  header.writeUInt32LE(width, 0);
  header.writeUInt32LE(height, 4);
  header.writeUInt32LE(format, 8);
  return { raw: Buffer.concat([header, rgba]), rgba };
}

describe('screencap formats', () => {
  it('halves a device PNG exactly as it halves raw pixels', async () => {
    const { raw, rgba } = rawCapture(10, 6);
    const fromRaw = await pngFromRaw(raw, 0.5);
    const fromPng = await pngFromPng(encodePng(rgba, 10, 6), 0.5);
    expect(fromPng.equals(fromRaw)).toBe(true);
    expect(fromRaw.readUInt32BE(16)).toBe(5); // IHDR width
    expect(fromRaw.readUInt32BE(20)).toBe(3);
  });

  it('passes a full-size device PNG through untouched', async () => {
    const png = encodePng(new Uint8Array(4 * 4 * 4).fill(200), 4, 4);
    expect(await pngFromPng(png, 1)).toBe(png);
  });

  it('makes RGBX pixels opaque', () => {
    const { raw } = rawCapture(2, 2, 2);
    const p = parseRawScreencap(raw);
    expect([p.rgba[3], p.rgba[7], p.rgba[11], p.rgba[15]]).toEqual([255, 255, 255, 255]);
  });

  it('refuses what is not a PNG with a RangeError (so the other format is tried)', async () => {
    await expect(pngFromPng(Buffer.from('screencap: permission denied'), 0.5)).rejects.toThrow(RangeError);
  });
});

describe('ScreencapChooser', () => {
  it('uses a fixed format as asked', () => {
    const c = new ScreencapChooser('png');
    expect(c.next(1)).toBe('png');
    expect(c.chosen(0.5)).toBe('png');
    expect(c.canFallBack('png')).toBe(false);
  });

  it('alternates while probing, then keeps the faster by its best time', () => {
    const c = new ScreencapChooser('auto');
    const seen: string[] = [];
    const cost = { raw: [90, 40], png: [30, 35] };
    for (let i = 0; i < 4; i++) {
      const f = c.next(1);
      seen.push(f);
      expect(c.chosen(1)).toBeNull();
      c.record(f, 1, cost[f].shift()!);
    }
    expect(seen).toEqual(['raw', 'png', 'raw', 'png']);
    expect(c.chosen(1)).toBe('png');
    expect(c.next(1)).toBe('png');
    // Half size is timed on its own.
    expect(c.chosen(0.5)).toBeNull();
    for (const [f, ms] of [['raw', 40], ['png', 45], ['raw', 38], ['png', 50]] as const) c.record(f, 0.5, ms);
    expect(c.next(0.5)).toBe('raw');
    expect(c.next(1)).toBe('png');
  });

  it('keeps raw when raw is faster (an emulator with a slow PNG encoder)', () => {
    const c = new ScreencapChooser('auto');
    for (const [f, ms] of [['raw', 120], ['png', 900], ['raw', 100], ['png', 800]] as const) c.record(f, 1, ms);
    expect(c.next(1)).toBe('raw');
  });

  it('stops using a format whose output cannot be read', () => {
    const c = new ScreencapChooser('auto');
    expect(c.canFallBack('raw')).toBe(true);
    c.fail('raw');
    expect(c.next(1)).toBe('png');
    expect(c.chosen(0.5)).toBe('png');
    expect(c.canFallBack('png')).toBe(false);
  });
});
