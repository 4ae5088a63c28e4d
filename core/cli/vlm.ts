import { z } from 'zod';
import { getTemplate } from '../tasks/registry.js';
import { VlmFormatError } from '../policy/vlm/errors.js';
import type { ParseContext } from '../policy/vlm/format.js';
import { vlmFormat } from '../policy/vlm/formats/index.js';
import { COORDINATE_SPACES, modelFrame, type Size } from '../policy/vlm/geometry.js';
import { parseReplies } from '../policy/vlm/replay.js';
import { intArg, parseFlags, UsageError } from './args.js';
import type { Io } from './main.js';
import { vlmRequest } from './vlm-request.js';

export const VLM_USAGE = 'awb vlm parse --format F --screen WxH [--image WxH] [--coordinates SPACE] [--min-pixels N] [--max-pixels N] [--task T]  (replies on stdin)\n'
  + 'awb vlm request (--preset P | --format F) --task T [--seed S] [--step K] [the --policy vlm flags]';

/** `WIDTHxHEIGHT` in pixels, e.g. 1080x2400. */
export const sizeArg = () => z.string().regex(/^[1-9]\d{0,5}x[1-9]\d{0,5}$/, 'must be WIDTHxHEIGHT in pixels, e.g. 1080x2400')
  .transform((s): Size => {
    const [width, height] = s.split('x').map(Number) as [number, number];
    return { width, height };
  });

const pixels = (flag: string) => intArg(flag).pipe(z.number().min(1));

const ParseFlags = z.object({
  format: z.string({ error: 'required (androidworld, ui-tars, mobilerl, qwen-mobile-use)' }),
  screen: sizeArg().optional(),
  image: sizeArg().optional(),
  coordinates: z.enum(COORDINATE_SPACES).optional(),
  'min-pixels': pixels('--min-pixels').optional(),
  'max-pixels': pixels('--max-pixels').optional(),
  task: z.string().optional(),
});

/** All of stdin (the Io's lines joined); the array form of replies may span lines. */
async function readAll(io: Io): Promise<string> {
  if (!io.readLine) throw new UsageError('awb vlm parse reads the replies on stdin, and there is none here');
  const lines: string[] = [];
  for (let l = await io.readLine(); l !== null; l = await io.readLine()) lines.push(l);
  return lines.join('\n');
}

/**
 * `awb vlm parse`: each reply on stdin through the format's parser, without a device: one JSON line
 * per reply with the action the workbench would execute (device pixels), or the format error. The
 * geometry is the flags': --screen is the device, --image the screenshot sent (default the
 * half-scale one `awb run` sends); the model's frame follows from the coordinate space.
 */
async function parse(argv: string[], io: Io): Promise<number> {
  const { values: v, positionals } = parseFlags(argv, {
    format: { type: 'string' }, screen: { type: 'string' }, image: { type: 'string' }, coordinates: { type: 'string' },
    'min-pixels': { type: 'string' }, 'max-pixels': { type: 'string' }, task: { type: 'string' },
  }, ParseFlags);
  if (positionals.length) throw new UsageError(`Unexpected ${JSON.stringify(positionals[0])}: the replies are read from stdin\n${VLM_USAGE}`);
  if (!v.screen) throw new UsageError(`--screen WxH is required (the device's size, e.g. 1080x2400 for SimDroid)\n${VLM_USAGE}`);
  const format = vlmFormat(v.format);
  if (v['min-pixels'] !== undefined && v['max-pixels'] !== undefined && v['min-pixels'] > v['max-pixels']) {
    throw new UsageError(`--min-pixels ${v['min-pixels']} is more than --max-pixels ${v['max-pixels']}`);
  }
  const expectsAnswer = v.task === undefined ? undefined : getTemplate(v.task).kind === 'information_retrieval';
  const ctx: ParseContext = {
    screen: v.screen, image: v.image ?? { width: Math.round(v.screen.width / 2), height: Math.round(v.screen.height / 2) },
    coordinates: v.coordinates ?? format.defaultCoordinates, expectsAnswer,
    ...(v['min-pixels'] !== undefined ? { minPixels: v['min-pixels'] } : {}),
    ...(v['max-pixels'] !== undefined ? { maxPixels: v['max-pixels'] } : {}),
  };
  const replies = parseReplies(await readAll(io), 'stdin');
  const frame = modelFrame(ctx);
  io.err(`${format.id}: screen ${ctx.screen.width}x${ctx.screen.height}, image ${ctx.image!.width}x${ctx.image!.height}${v.image ? '' : ' (half scale, as awb run sends)'}, `
    + `coordinates ${ctx.coordinates} (the model's frame ${frame.width}x${frame.height}); ${replies.length} repl${replies.length === 1 ? 'y' : 'ies'}`);
  replies.forEach((reply, index) => {
    try {
      const parsed = format.parse(reply, ctx);
      io.out(JSON.stringify({ index, action: parsed.action, ...(parsed.thought ? { thought: parsed.thought } : {}) }));
    } catch (e) {
      // A reply that is not an action is a result here, as it is a recorded step in an episode.
      if (!(e instanceof VlmFormatError)) throw e;
      io.out(JSON.stringify({ index, error: { name: e.name, message: e.message } }));
    }
  });
  return 0;
}

/** `awb vlm parse | request`: what a model's replies mean, and what the VLM policy sends it (docs/policy-vlm.md). */
export async function vlmCommand(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'parse':
      return parse(rest, io);
    case 'request':
      return vlmRequest(rest, io);
    default:
      throw new UsageError(VLM_USAGE);
  }
}
