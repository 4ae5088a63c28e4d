import { z } from 'zod';

/**
 * The parameter block every JSON checkpoint of a small network in awb shares (policy, adapter, ProgRM
 * progress model, GUI-Shepherd judge): little-endian float32 bytes in base64, so a round trip is
 * bit-exact and the file stays one readable JSON document.
 */
export const Float32ParamsSchema = z.strictObject({
  dtype: z.literal('float32-le').describe('Element type and byte order'),
  count: z.int().nonnegative().describe('Number of parameters'),
  base64: z.string().describe('The parameter bytes'),
});
export type Float32Params = z.infer<typeof Float32ParamsSchema>;

export function encodeFloat32Params(p: Float32Array): Float32Params {
  const bytes = Buffer.alloc(p.length * 4);
  for (let i = 0; i < p.length; i++) bytes.writeFloatLE(p[i]!, i * 4);
  return { dtype: 'float32-le', count: p.length, base64: bytes.toString('base64') };
}

/**
 * The parameters of a block, or null with the problems: bytes that do not hold `count` floats, or a
 * NaN/Inf parameter (a checkpoint must never put one into a network). The caller checks `count`
 * against its network's shape, which only it knows.
 */
export function decodeFloat32Params(f: Float32Params): { params: Float32Array | null; problems: string[] } {
  const bytes = Buffer.from(f.base64, 'base64');
  if (bytes.length !== f.count * 4) return { params: null, problems: [`params hold ${bytes.length} bytes, expected ${f.count * 4}`] };
  const params = new Float32Array(f.count);
  for (let i = 0; i < params.length; i++) params[i] = bytes.readFloatLE(i * 4);
  const bad = params.findIndex((x) => !Number.isFinite(x));
  return bad >= 0 ? { params: null, problems: [`parameter ${bad} is ${params[bad]}`] } : { params, problems: [] };
}
