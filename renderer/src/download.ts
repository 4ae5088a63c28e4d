import { formatTime } from './time-format.js';

/**
 * Saves bytes the page made (a screenshot, a recorded clip, a chart's CSV or PNG) as a file: the browser's download,
 * which Electron turns into a save to disk too. `data-download` on the body names the last file (for the e2e tests).
 */
export function download(name: string, data: Blob): void {
  const url = URL.createObjectURL(data);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
  document.body.dataset.download = name;
  // The download has taken the URL once the click is handled.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A file name from parts and now: `emulator-5554 2025-03-14 09:26:53` → `emulator-5554-20250314-092653`. */
export function stampedName(prefix: string, ext: string, now = Date.now()): string {
  const safe = prefix.replace(/[^A-Za-z0-9._-]+/g, '_');
  return `${safe}-${formatTime(now).replace(/[-:]/g, '').replace(' ', '-')}.${ext}`;
}
