/**
 * An outside agent's prompt and reply as the replay viewer shows them. Prompts often carry the screenshot as a base64
 * data URL inside the chat messages (megabytes per step): the page shows each one's type and size instead of its
 * bytes, pretty-prints JSON messages, and shows at most `limit` characters; Copy gives the text as recorded.
 */

// The media type and parameters, then the base64 payload (standard or URL-safe alphabet).
const DATA_URL = /data:([\w.+-]+\/[\w.+-]+)?((?:;[\w.+-]+=[\w.+-]*)*);base64,[A-Za-z0-9+/_-]*=*/g;

export interface ShownText {
  /** What to show: data URLs as `‹data:image/png · 1.2 MB›`, JSON indented, cut at the limit. */
  text: string;
  /** Characters left out past the limit (0 when it all shows). */
  cut: number;
  /** UTF-8 size of the text as recorded. */
  bytes: number;
  dataUrls: number;
  /** What the data URLs hold, decoded. */
  dataBytes: number;
}

/** UTF-8 length without encoding a copy (prompts may be megabytes). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    // A surrogate pair is one 4-byte character: 2 per half.
    else if (c >= 0xd800 && c <= 0xdfff) n += 2;
    else n += 3;
  }
  return n;
}

export function formatBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)} kB`;
  return `${(n / 1_000_000).toFixed(1)} MB`;
}

/** Bytes a data URL's base64 payload decodes to. */
function dataUrlBytes(url: string): number {
  const payload = url.length - url.indexOf(',') - 1;
  const padding = url.endsWith('==') ? 2 : url.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((payload * 3) / 4) - padding);
}

/** The size line of a closed section: the text's size and its data URLs', without building what would be shown. */
export function textSize(raw: string): { bytes: number; dataUrls: number; dataBytes: number } {
  let dataUrls = 0;
  let dataBytes = 0;
  for (const m of raw.matchAll(DATA_URL)) {
    dataUrls++;
    dataBytes += dataUrlBytes(m[0]);
  }
  return { bytes: utf8Length(raw), dataUrls, dataBytes };
}

export function shownText(raw: string, limit = 20_000): ShownText {
  let dataUrls = 0;
  let dataBytes = 0;
  let text = raw.replace(DATA_URL, (url: string, type: string | undefined) => {
    const size = dataUrlBytes(url);
    dataUrls++;
    dataBytes += size;
    return `‹data:${type ?? 'text/plain'} · ${formatBytes(size)}›`;
  });
  // Chat messages as JSON read better indented; anything else stays as written.
  if (/^\s*[[{]/.test(text)) {
    try {
      text = JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      // Not JSON after all (a prompt that starts with a bracket): shown as written.
    }
  }
  const cut = Math.max(0, text.length - limit);
  return { text: cut ? text.slice(0, limit) : text, cut, bytes: utf8Length(raw), dataUrls, dataBytes };
}
