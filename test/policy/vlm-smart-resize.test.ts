import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { PYTHON, PythonEnvMissingError } from '../python-env.js';
import { QWEN_MAX_PIXELS, QWEN_MIN_PIXELS, smartResize, SmartResizeError } from '../../core/policy/vlm/geometry.js';

/**
 * Our smartResize against qwen_vl_utils.smart_resize (the package Qwen2.5-VL's own code resizes with),
 * every case in one Python process. Sizes: phones, tablets, foldables, landscape, odd sizes, exact
 * halves (the rounding is Python's, half to even), tiny and huge, the 200:1 aspect limit; bounds:
 * the defaults, UI-TARS-1.5's, MobileRL's and a few that force the min and max branches.
 */
const SIZES: Array<[number, number]> = [
  [1080, 2400], [1080, 1920], [1440, 3120], [720, 1600], [1170, 2532], [1284, 2778], [1080, 2340], [1344, 2992],
  [540, 1200], [360, 800], [1600, 2560], [2048, 2732], [1800, 2880], [2208, 1840], [2400, 1080], [1920, 1080],
  [2560, 1600], [1000, 1000], [999, 999], [1, 1], [28, 28], [14, 14], [42, 42], [70, 70], [70, 1120], [98, 154],
  [126, 182], [1110, 2390], [1111, 2399], [1093, 2407], [3, 500], [10, 2000], [5000, 25], [1, 200], [1, 201],
  [4000, 3000], [8000, 6000], [12000, 9000], [7680, 4320], [16384, 16384], [100, 10000], [28, 5600], [57, 911],
  [333, 777], [1234, 567], [4321, 1234], [2, 3], [30000, 150], [1082, 2402], [1078, 2398], [642, 1386], [266, 574],
];
const BOUNDS: Array<[number | undefined, number | undefined]> = [
  [undefined, undefined], [78_400, 12_845_056], [65_536, 500_000], [3136, 1_003_520], [256 * 28 * 28, 1280 * 28 * 28], [3136, 3136], [200_000, 100_000],
];

type Outcome = [number, number] | 'error';

function pythonOutcomes(cases: Array<[number, number, number | undefined, number | undefined]>): Outcome[] {
  // The package's own smart_resize and helpers, taken out of its module: importing qwen_vl_utils
  // imports torch and torchvision (~15 s on CI's 2 cores), which smart_resize does not use.
  const script = [
    'import ast, importlib.util, json, math, os, sys',
    "path = os.path.join(importlib.util.find_spec('qwen_vl_utils').submodule_search_locations[0], 'vision_process.py')",
    'tree = ast.parse(open(path).read())',
    "wanted = {'smart_resize', 'round_by_factor', 'floor_by_factor', 'ceil_by_factor'}",
    'keep = [n for n in tree.body if (isinstance(n, ast.FunctionDef) and n.name in wanted) or (isinstance(n, ast.Assign) and all(isinstance(t, ast.Name) and t.id.isupper() for t in n.targets))]',
    "ns = {'math': math, 'Optional': __import__('typing').Optional, 'Tuple': __import__('typing').Tuple, 'os': __import__('os')}",
    'for node in keep:',
    '    try:',
    "        exec(compile(ast.Module(body=[node], type_ignores=[]), path, 'exec'), ns)",
    '    except NameError:',
    '        pass  # a constant built from something else (video backends): smart_resize does not read it',
    "assert wanted <= ns.keys(), 'qwen_vl_utils.vision_process no longer defines ' + str(wanted - ns.keys())",
    "smart_resize = ns['smart_resize']",
    'out = []',
    'for h, w, lo, hi in json.load(sys.stdin):',
    '    try:',
    '        rh, rw = smart_resize(h, w, factor=28, min_pixels=lo, max_pixels=hi)',
    "        out.append('error' if rh == 0 or rw == 0 else [rw, rh])",
    '    except (ValueError, AssertionError, ZeroDivisionError):',
    "        out.append('error')",
    'print(json.dumps(out))',
  ].join('\n');
  // Not requirePython(): it imports torch, transformers and peft (~20 s), none of which this needs.
  if (!existsSync(PYTHON)) throw new PythonEnvMissingError(PYTHON, 'no such file');
  return JSON.parse(execFileSync(PYTHON, ['-c', script], { input: JSON.stringify(cases), encoding: 'utf8' })) as Outcome[];
}

function ours(w: number, h: number, lo: number | undefined, hi: number | undefined): Outcome {
  try {
    const r = smartResize({ width: w, height: h }, lo ?? QWEN_MIN_PIXELS, hi ?? QWEN_MAX_PIXELS);
    return [r.width, r.height];
  } catch (e) {
    if (e instanceof SmartResizeError) return 'error';
    throw e;
  }
}

describe('smartResize against qwen_vl_utils.smart_resize', () => {
  it(`gives the same size (or both refuse) for ${SIZES.length} screen sizes × ${BOUNDS.length} pixel bounds`, () => {
    const cases = SIZES.flatMap(([w, h]) => BOUNDS.map(([lo, hi]) => [h, w, lo, hi] as [number, number, number | undefined, number | undefined]));
    const theirs = pythonOutcomes(cases);
    const mismatches = cases.flatMap(([h, w, lo, hi], i) => {
      const mine = ours(w, h, lo, hi);
      return JSON.stringify(mine) === JSON.stringify(theirs[i]) ? [] : [`${w}x${h} [${lo}, ${hi}]: ours ${JSON.stringify(mine)}, qwen_vl_utils ${JSON.stringify(theirs[i])}`];
    });
    expect(mismatches).toEqual([]);
    // The set exercises every branch: a refusal, halves rounded to even, and both area bounds.
    expect(theirs.filter((o) => o === 'error').length).toBeGreaterThan(0);
    expect(ours(1120, 70, undefined, undefined)).toEqual([1120, 56]);
  });
});
