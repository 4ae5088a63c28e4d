/**
 * A tagged MP3 file of a given length for seeding a music library: an ID3v2.4 tag (TIT2 title,
 * TPE1 artist) and an MPEG-1 Layer III frame (128 kbit/s, 44.1 kHz, mono) whose Info header
 * (the Xing header's CBR form) gives the stream's frame count, which is how players and media
 * scanners read a duration without decoding. No audio frames follow: the file is a few hundred
 * bytes whatever its length, and a scanner reads it as a song of that length.
 * Frame header layout: ISO/IEC 11172-3 §2.4.1.3; Xing/Info header: flags word, then the frame count.
 */
const SAMPLES_PER_FRAME = 1152;
const SAMPLE_RATE = 44100;
/** 128 kbit/s at 44.1 kHz without padding: floor(144 * 128000 / 44100). */
const FRAME_BYTES = 417;
const MONO_SIDE_INFO = 17;

function synchsafe(n: number): Buffer {
  return Buffer.from([(n >> 21) & 0x7f, (n >> 14) & 0x7f, (n >> 7) & 0x7f, n & 0x7f]);
}

function textFrame(id: string, value: string): Buffer {
  const body = Buffer.concat([Buffer.from([3]), Buffer.from(value, 'utf8'), Buffer.from([0])]);
  return Buffer.concat([Buffer.from(id, 'latin1'), synchsafe(body.length), Buffer.from([0, 0]), body]);
}

export function mp3File(o: { title: string; artist: string; durationMs: number }): Buffer {
  const frames = Buffer.concat([textFrame('TIT2', o.title), textFrame('TPE1', o.artist)]);
  const tag = Buffer.concat([Buffer.from('ID3', 'latin1'), Buffer.from([4, 0, 0]), synchsafe(frames.length), frames]);
  const frame = Buffer.alloc(FRAME_BYTES);
  // Sync, MPEG-1, Layer III, no CRC | bitrate index 9 (128k), 44.1 kHz, no padding | mono.
  frame.set([0xff, 0xfb, 0x90, 0xc0], 0);
  const info = 4 + MONO_SIDE_INFO;
  frame.write('Info', info, 'latin1');
  frame.writeUInt32BE(1, info + 4); // flags: the frame count field is present
  frame.writeUInt32BE(Math.round((o.durationMs * SAMPLE_RATE) / (SAMPLES_PER_FRAME * 1000)), info + 8);
  return Buffer.concat([tag, frame]);
}
