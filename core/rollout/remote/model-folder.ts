import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { INFERENCE_FILES, readModelConfig } from '../../policy/transformer/model.js';
import { WorkbenchError } from '../../util/errors.js';
import { readTar, TarEntryError, TarWriter } from '../../util/tar.js';

/**
 * A transformer policy's model folder (core/policy/transformer/model.ts) as it crosses the rollout wire (wire.ts): one
 * tar archive (core/util/tar.ts, node-tar's headers) of the files inference reads, with mtime 0 and a fixed order, so
 * equal folders give equal bytes and the archive's sha256 names the model. The server checks an archive before any
 * worker reads it (unpackModelFolder): its size, that every entry is a plain file name in the folder, that the files
 * inference needs are there and config.json is one this workbench reads.
 */

/** The largest archive a server accepts: under the frame bound (wire.ts), above a MiniLM-sized text encoder's ~110 MB. */
export const MAX_MODEL_ARCHIVE = 240 * 1024 * 1024;

/** A model folder the driver cannot pack, or an archive a server refuses; one line naming the folder and what is wrong. */
export class ModelArchiveError extends WorkbenchError {
  override name = 'ModelArchiveError';
  constructor(readonly folder: string, readonly problem: string) {
    super(`Model folder ${JSON.stringify(folder)}: ${problem}`);
  }
}

export interface PackedModelFolder {
  /** The folder's name (its last path segment), which the server keeps for messages. */
  name: string;
  sha256: string;
  bytes: Buffer;
}

/**
 * Packed folders by path, with what their files looked like then: a job per rollout does not re-read and re-hash the
 * weights. Only the last few stay (a GRPO run packs a new folder each iteration).
 */
const packed = new Map<string, { signature: string; folder: PackedModelFolder }>();
const KEEP_PACKED = 3;

/**
 * The folder's inference files as one archive. Packed again only when a file's size, mtime or inode changed, so a
 * GRPO iteration's jobs cost one pack of that iteration's model. A missing file or an archive over `maxBytes` throws.
 */
export function packModelFolder(dir: string, maxBytes = MAX_MODEL_ARCHIVE): PackedModelFolder {
  let signature = '';
  for (const f of INFERENCE_FILES) {
    try {
      const st = statSync(join(dir, f));
      signature += `${f}:${st.size}:${st.mtimeMs}:${st.ino};`;
    } catch {
      throw new ModelArchiveError(dir, `no ${f}`);
    }
  }
  let folder = packed.get(dir)?.signature === signature ? packed.get(dir)!.folder : null;
  if (!folder) {
    const tar = new TarWriter(null, 0);
    for (const f of INFERENCE_FILES) tar.add(f, readFileSync(join(dir, f)));
    folder = { name: basename(dir), sha256: tar.finish().sha256, bytes: tar.bytes() };
    packed.delete(dir);
    packed.set(dir, { signature, folder });
    for (const old of packed.keys()) if (packed.size > KEEP_PACKED) packed.delete(old);
  }
  if (folder.bytes.length > maxBytes) throw new ModelArchiveError(dir, `its archive of ${folder.bytes.length} bytes is over the ${maxBytes} bytes a rollout server accepts`);
  return folder;
}

/** A plain file name: no folder part, nothing that climbs out ('..'), nothing absolute. */
const FILE_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

/**
 * Checks an archive and writes its files into `dir` (made here; it must not exist): the whole folder appears at once
 * (written beside it, then renamed), or not at all.
 */
export function unpackModelFolder(label: string, bytes: Uint8Array, dir: string, maxBytes = MAX_MODEL_ARCHIVE): void {
  if (bytes.length > maxBytes) throw new ModelArchiveError(label, `its archive of ${bytes.length} bytes is over the ${maxBytes} bytes this server accepts`);
  let files: Map<string, Buffer>;
  try {
    files = readTar(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
  } catch (e) {
    throw new ModelArchiveError(label, e instanceof TarEntryError ? `not a readable tar archive (${e.message})` : (e as Error).message);
  }
  for (const name of files.keys()) {
    if (!FILE_NAME.test(name)) throw new ModelArchiveError(label, `entry ${JSON.stringify(name)} is not a file name inside the folder`);
  }
  const missing = INFERENCE_FILES.filter((f) => !files.has(f));
  if (missing.length) throw new ModelArchiveError(label, `the archive lacks ${missing.join(', ')}`);
  const staging = `${dir}.part`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    for (const [name, data] of files) writeFileSync(join(staging, name), data);
    try {
      readModelConfig(staging);
    } catch (e) {
      throw new ModelArchiveError(label, (e as Error).message.replace(/^Bad transformer policy model \S+: /, ''));
    }
    renameSync(staging, dir);
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw e;
  }
}
