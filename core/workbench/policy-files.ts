import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { WorkbenchError } from '../util/errors.js';
import { CHECKPOINT_FILE_NAME, type CheckpointSessionPolicy, type PolicyInfo } from '../api/types.js';

/**
 * Builtin policies registered in `<data folder>/policies/` (`awb jobs register` copies a remote job's
 * policy.json there; an exported .onnx can be put next to it) as step-through session policies,
 * `checkpoint:<file name>`. A page names a file by its bare name only: anything that is not a plain
 * file directly in that folder (a path, `..`, a symlink, a subfolder) is refused, so the workbench
 * never reads a file the page chose elsewhere.
 */
export class CheckpointPolicyError extends WorkbenchError {
  override name = 'CheckpointPolicyError';
  constructor(readonly file: string, reason: string) {
    super(`Policy file ${JSON.stringify(file)}: ${reason}`);
  }
}

export const policiesDir = (dataDir: string) => join(dataDir, 'policies');

/** A plain file (not a symlink) directly in the folder. */
function isPlainFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false; // missing: not listed, refused by checkpointPath
  }
}

/** The registered policy files, by name, as session policies. */
export function listCheckpointPolicies(dataDir: string): Array<Pick<PolicyInfo, 'name' | 'description'>> {
  const dir = policiesDir(dataDir);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  return names.filter((n) => CHECKPOINT_FILE_NAME.test(n) && isPlainFile(join(dir, n))).sort().map((n) => ({
    name: `checkpoint:${n}` as CheckpointSessionPolicy,
    description: n.endsWith('.onnx')
      ? `Builtin policy exported to ONNX (policies/${n}), scored in ONNX Runtime, greedy`
      : `Builtin policy checkpoint policies/${n}, greedy`,
  }));
}

/** The file's path, after checking that it is a bare name of a plain file in `<data folder>/policies/`. */
export function checkpointPath(dataDir: string, file: string): string {
  if (!CHECKPOINT_FILE_NAME.test(file)) {
    throw new CheckpointPolicyError(file, 'expected the bare name of a .json or .onnx file in <data folder>/policies/ (no folders, no "..")');
  }
  const path = join(policiesDir(dataDir), file);
  if (!isPlainFile(path)) throw new CheckpointPolicyError(file, `not a file in ${policiesDir(dataDir)}`);
  return path;
}
