/**
 * What a media scanner reads from an MP3 file: the ID3v2 title, artist, album, track and year,
 * and the duration. The duration comes from the Xing/Info header's frame count when the encoder
 * wrote one (LAME and ffmpeg do), else from the first frame's bitrate over the audio's size (CBR).
 * Frame header fields: ISO/IEC 11172-3 §2.4.2.3 (MPEG-1) and 13818-3 (MPEG-2, and MPEG-2.5).
 */
export interface AudioInfo {
  title: string | null;
  artist: string | null;
  album: string | null;
  track: number;
  year: number;
  durationMs: number;
}

function synchsafe(b: Buffer, at: number): number {
  return ((b[at]! & 0x7f) << 21) | ((b[at + 1]! & 0x7f) << 14) | ((b[at + 2]! & 0x7f) << 7) | (b[at + 3]! & 0x7f);
}

/** An ID3 text frame's value: an encoding byte, then the text (a trailing NUL dropped). */
function textFrame(b: Buffer): string {
  const enc = b[0];
  const body = b.subarray(1);
  let s: string;
  if (enc === 1 || enc === 2) {
    let data = body;
    let le = enc === 1;
    if (enc === 1 && data.length >= 2) {
      le = !(data[0] === 0xfe && data[1] === 0xff);
      if ((data[0] === 0xff && data[1] === 0xfe) || (data[0] === 0xfe && data[1] === 0xff)) data = data.subarray(2);
    }
    const even = Buffer.from(data.subarray(0, data.length - (data.length % 2)));
    if (!le) even.swap16();
    s = even.toString('utf16le');
  } else {
    s = body.toString(enc === 3 ? 'utf8' : 'latin1');
  }
  return s.replace(/\0+$/, '').split('\0')[0]!;
}

interface Tags { frames: Map<string, string>; end: number }

function id3v2(b: Buffer): Tags {
  const frames = new Map<string, string>();
  if (b.length < 10 || b.toString('latin1', 0, 3) !== 'ID3') return { frames, end: 0 };
  const major = b[3]!;
  const end = 10 + synchsafe(b, 6) + ((b[5]! & 0x10) ? 10 : 0);
  let at = 10;
  while (at + 10 <= Math.min(end, b.length) && major >= 3) {
    const id = b.toString('latin1', at, at + 4);
    if (!/^[A-Z0-9]{4}$/.test(id)) break;
    const size = major >= 4 ? synchsafe(b, at + 4) : b.readUInt32BE(at + 4);
    if (id.startsWith('T') && size > 0) frames.set(id, textFrame(b.subarray(at + 10, at + 10 + size)));
    at += 10 + size;
  }
  return { frames, end };
}

const BITRATES: Record<string, readonly number[]> = {
  v1: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  v2: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const SAMPLE_RATES: Record<number, readonly number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

/** The duration (ms) of the Layer III stream starting at or after `from`, or 0 when no frame is found. */
function mp3DurationMs(b: Buffer, from: number): number {
  for (let at = from; at + 4 <= b.length && at < from + 65536; at++) {
    if (b[at] !== 0xff || (b[at + 1]! & 0xe0) !== 0xe0) continue;
    const version = (b[at + 1]! >> 3) & 3; // 3 MPEG-1, 2 MPEG-2, 0 MPEG-2.5
    const layer = (b[at + 1]! >> 1) & 3; // 1 = Layer III
    const bitrateIndex = b[at + 2]! >> 4;
    const rateIndex = (b[at + 2]! >> 2) & 3;
    if (version === 1 || layer !== 1 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) continue;
    const sampleRate = SAMPLE_RATES[version]![rateIndex]!;
    const samplesPerFrame = version === 3 ? 1152 : 576;
    const mono = (b[at + 3]! >> 6) === 3;
    const side = version === 3 ? (mono ? 17 : 32) : (mono ? 9 : 17);
    const xing = at + 4 + side;
    const tag = b.toString('latin1', xing, xing + 4);
    if ((tag === 'Xing' || tag === 'Info') && (b.readUInt32BE(xing + 4) & 1)) {
      return Math.round((b.readUInt32BE(xing + 8) * samplesPerFrame * 1000) / sampleRate);
    }
    const kbps = BITRATES[version === 3 ? 'v1' : 'v2']![bitrateIndex]!;
    return Math.round(((b.length - at) * 8) / kbps);
  }
  return 0;
}

/** The file's tags and duration; a file that is not MP3 gives no tags and a zero duration. */
export function readAudioInfo(data: Buffer): AudioInfo {
  const { frames, end } = id3v2(data);
  const num = (id: string) => {
    const n = parseInt(frames.get(id) ?? '', 10);
    return Number.isFinite(n) ? n : 0;
  };
  return {
    title: frames.get('TIT2') || null,
    artist: frames.get('TPE1') || null,
    album: frames.get('TALB') || null,
    track: num('TRCK'),
    year: num('TDRC') || num('TYER'),
    durationMs: mp3DurationMs(data, end),
  };
}
