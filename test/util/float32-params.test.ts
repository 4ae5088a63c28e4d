import { describe, expect, it } from 'vitest';
import { decodeFloat32Params, encodeFloat32Params, Float32ParamsSchema } from '../../core/util/float32-params.js';

describe('float32 parameter blocks', () => {
  it('round-trip bit for bit, -0 and subnormals included', () => {
    const p = new Float32Array([0, -0, 1.5, -3.25e-3, 1.4e-45, 3.4e38]);
    const block = encodeFloat32Params(p);
    expect(Float32ParamsSchema.parse(block)).toEqual(block);
    expect(block.count).toBe(6);
    const { params, problems } = decodeFloat32Params(JSON.parse(JSON.stringify(block)));
    expect(problems).toEqual([]);
    expect(Buffer.from(params!.buffer)).toEqual(Buffer.from(p.buffer));
  });

  it('refuse bytes that do not hold count floats, and a NaN or Inf parameter', () => {
    const block = encodeFloat32Params(new Float32Array([1, 2, 3]));
    expect(decodeFloat32Params({ ...block, count: 4 })).toEqual({ params: null, problems: ['params hold 12 bytes, expected 16'] });
    expect(decodeFloat32Params(encodeFloat32Params(new Float32Array([1, Number.NaN])))).toEqual({ params: null, problems: ['parameter 1 is NaN'] });
    expect(decodeFloat32Params(encodeFloat32Params(new Float32Array([Number.POSITIVE_INFINITY])))).toEqual({ params: null, problems: ['parameter 0 is Infinity'] });
  });
});
