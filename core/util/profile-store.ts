import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeFileAtomic } from './atomic-write.js';
import { isSettling, type SecretStore } from './secret-store.js';

/**
 * Named profiles in one JSON file, each profile's secret (an endpoint's API key, a trainer's token)
 * in a SecretStore and never in the file: the store behind endpoint profiles
 * (core/policy/vlm/profiles.ts) and trainer profiles (core/remote-jobs/profiles.ts). Each brings
 * its file's layout, its named errors and its secrets' names. The file is read on every call:
 * another process (the CLI beside the app) may have changed it.
 */
export interface ProfileFileFormat<Entry> {
  /** The file's mode. */
  mode: number;
  /** The profile's secret's name in the secret store (secretName in secret-store.ts). */
  secretName(profile: string): string;
  /** The entries by profile name from the file's JSON; throws the owner's named error when it does not validate. */
  decode(json: unknown): Map<string, Entry>;
  /** The file's JSON for these entries. */
  encode(entries: ReadonlyMap<string, Entry>): unknown;
  /** The owner's named error for a file that cannot be read (`e`: the file system's error) or is not JSON (`e`: the parser's). */
  fileError(problem: 'read' | 'json', e: Error): Error;
  /**
   * A secret an older file keeps inside the entry, and the entry without it. Such a secret moves to
   * the secret store the first time the file is read, and the file is written again without it.
   */
  inlineSecret?(entry: Entry): { secret: string; entry: Entry } | undefined;
}

export class ProfileStore<Entry> {
  constructor(readonly path: string, readonly secrets: SecretStore, private readonly format: ProfileFileFormat<Entry>) {}

  /**
   * The entries (none before the first write). An entry keeps an inline secret only while the
   * secret store has not taken it (see moveInlineSecrets): `secret` is then undefined for it.
   */
  read(): Map<string, Entry> {
    const entries = this.readFile();
    this.moveInlineSecrets(entries);
    return entries;
  }

  /** Writes the whole file atomically, creating its folder. */
  write(entries: ReadonlyMap<string, Entry>): void {
    mkdirSync(dirname(this.path), { recursive: true });
    writeFileAtomic(this.path, `${JSON.stringify(this.format.encode(entries), null, 2)}\n`, { mode: this.format.mode });
  }

  secret(profile: string): string | undefined {
    return this.secrets.get(this.format.secretName(profile));
  }

  setSecret(profile: string, secret: string): void {
    this.secrets.set(this.format.secretName(profile), secret);
  }

  deleteSecret(profile: string): void {
    this.secrets.delete(this.format.secretName(profile));
  }

  /** Resolves once the secret store's writes so far are on disk (at once for a store that writes as it goes); rejects if one failed. */
  async settled(): Promise<void> {
    if (isSettling(this.secrets)) await this.secrets.settled();
  }

  private readFile(): Map<string, Entry> {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
      throw this.format.fileError('read', e as Error);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      throw this.format.fileError('json', e as Error);
    }
    return this.format.decode(json);
  }

  /**
   * Gives the secret store the secrets an older file keeps inline, then writes the file without
   * them. A secret the store refuses (the app without a keychain) stays in the file and in use. A
   * store whose writes complete later gets the file written once they did, and the entries stay as
   * read until then: a write that fails never loses the secret, the next read tries again.
   */
  private moveInlineSecrets(entries: Map<string, Entry>): void {
    const split = this.format.inlineSecret;
    if (!split) return;
    const moved = new Map<string, string>();
    for (const [name, entry] of entries) {
      const inline = split(entry);
      if (!inline) continue;
      try {
        if (this.secret(name) !== inline.secret) this.setSecret(name, inline.secret);
      } catch {
        continue;
      }
      moved.set(name, inline.secret);
    }
    if (!moved.size) return;
    if (isSettling(this.secrets)) {
      void this.secrets.settled().then(() => this.dropInlineSecrets(moved), () => {});
      return;
    }
    this.dropInlineSecrets(moved);
    for (const name of moved.keys()) entries.set(name, split(entries.get(name)!)!.entry);
  }

  /** Writes the file again without the moved secrets; read again first, as it may have changed meanwhile. */
  private dropInlineSecrets(moved: ReadonlyMap<string, string>): void {
    const split = this.format.inlineSecret!;
    try {
      const entries = this.readFile();
      let changed = false;
      for (const [name, secret] of moved) {
        const entry = entries.get(name);
        const inline = entry === undefined ? undefined : split(entry);
        if (inline?.secret !== secret || this.secret(name) !== secret) continue;
        entries.set(name, inline.entry);
        changed = true;
      }
      if (changed) this.write(entries);
    } catch {
      // The secret is in the store and still in the file: nothing is lost, and the next read tries again.
    }
  }
}
