import { createCanvas } from '@napi-rs/canvas';
import type { SystemServices } from '../../runtime/app.js';
import { EXTERNAL_STORAGE } from '../../system/fs.js';
import { MEDIA_DB } from '../../system/providers.js';

/**
 * What a shutter press leaves on the device: a file with the camera's name pattern
 * (IMG_yyyyMMdd_HHmmss.jpg, VID_yyyyMMdd_HHmmss.mp4, "_1", "_2"… when that second is taken) and
 * MediaProvider's row for it. Photos go to Pictures and videos to Movies: the folders AndroidWorld's
 * CameraTakePhoto/CameraTakeVideo list (device_constants.PHOTOS_DATA, VIDEOS_DATA) on its emulator.
 */
export const PHOTOS_DIR = `${EXTERNAL_STORAGE}/Pictures`;
export const VIDEOS_DIR = `${EXTERNAL_STORAGE}/Movies`;

export type CaptureKind = 'photo' | 'video';

const KIND = {
  photo: { dir: PHOTOS_DIR, prefix: 'IMG', ext: 'jpg', mime: 'image/jpeg', mediaType: 1 },
  video: { dir: VIDEOS_DIR, prefix: 'VID', ext: 'mp4', mime: 'video/mp4', mediaType: 3 },
} as const;

/** The next free file name for a capture at `ms` (local time), as the camera's file namer does. */
export function captureName(sys: SystemServices, kind: CaptureKind, ms: number): string {
  const k = KIND[kind];
  const stem = `${k.prefix}_${sys.clock.formatLocal(ms, '%Y%m%d_%H%M%S')}`;
  let name = `${stem}.${k.ext}`;
  for (let n = 1; sys.fs.exists(`${k.dir}/${name}`); n++) name = `${stem}_${n}.${k.ext}`;
  return name;
}

/** The viewfinder's synthetic scene as a small JPEG (sky, hills, a sun placed by the capture time). */
export function sceneJpeg(ms: number): Buffer {
  const c = createCanvas(320, 240);
  const g = c.getContext('2d');
  g.fillStyle = '#87CEEB';
  g.fillRect(0, 0, 320, 240);
  g.fillStyle = '#FDD835';
  g.beginPath();
  g.arc(60 + ((ms / 1000) % 200), 60, 24, 0, Math.PI * 2);
  g.fill();
  g.fillStyle = '#43A047';
  g.beginPath();
  g.moveTo(0, 170);
  g.quadraticCurveTo(100, 120, 200, 165);
  g.quadraticCurveTo(270, 190, 320, 150);
  g.lineTo(320, 240);
  g.lineTo(0, 240);
  g.fill();
  return c.encodeSync('jpeg', 85);
}

/** An MP4's leading boxes (ftyp, then mdat sized by the clip's length at ~1 MB/s over 100). */
export function clipMp4(durationMs: number): Buffer {
  const ftyp = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42\0\0\0\0isommp42', 'latin1')]);
  const body = Math.max(16, Math.round(durationMs * 10));
  const mdat = Buffer.alloc(8 + body, 0);
  mdat.writeUInt32BE(8 + body, 0);
  mdat.write('mdat', 4, 'latin1');
  return Buffer.concat([ftyp, mdat]);
}

/** Writes the capture and registers it with MediaProvider; returns the file's path. */
export function saveCapture(sys: SystemServices, kind: CaptureKind, ms: number, durationMs = 0): string {
  const k = KIND[kind];
  const name = captureName(sys, kind, ms);
  const path = `${k.dir}/${name}`;
  const data = kind === 'photo' ? sceneJpeg(ms) : clipMp4(durationMs);
  sys.fs.writeFile(path, data, { parents: true, mtime: ms });
  const secs = Math.floor(ms / 1000);
  sys.db(MEDIA_DB).prepare(
    `INSERT INTO files (_data, _display_name, _size, mime_type, media_type, is_download, date_added, date_modified, title)
     VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?)`,
  ).run(path, name, data.length, k.mime, k.mediaType, secs, secs, name.replace(/\.[^.]+$/, ''));
  return path;
}
