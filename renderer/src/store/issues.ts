/**
 * A refused call's problems as the forms show them: each next to its field, as a sentence with the
 * field's name in front of the server's plain wording (core/util/plain-issues.ts words zod's problems
 * "must be a whole number ≥ 1, got 0"; the CLI prints them after the path).
 */

/** A field's name as words: `batchSize` → "Batch size"; the last named key of a dotted path (`loss.clipEps` → "Clip eps"). */
export function fieldLabel(path: string): string {
  const key = path.split('.').filter((k) => k !== '' && !/^\d+$/.test(k)).at(-1);
  if (!key) return 'The input';
  const words = key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * A field's problem as a sentence for the place next to the field: "Batch size must be a whole
 * number ≥ 1, got 0"; a message that is not a predicate ("a SHA-256 hex digest") after a colon.
 */
export function issueSentence(path: string, message: string): string {
  if (path === '') return message.charAt(0).toUpperCase() + message.slice(1);
  return /^(must|is|has|does|cannot|should) /.test(message) ? `${fieldLabel(path)} ${message}` : `${fieldLabel(path)}: ${message}`;
}

/** A validation error's problems by field path, each as the sentence shown next to its field; null for an error without them. */
export function issuesOf(e: unknown): Record<string, string> | null {
  const issues = (e as { issues?: Array<{ path: string; message: string }> } | null)?.issues;
  if (!Array.isArray(issues) || issues.length === 0) return null;
  const out: Record<string, string> = {};
  for (const i of issues) {
    const text = issueSentence(i.path, i.message);
    out[i.path] = out[i.path] ? `${out[i.path]}; ${text}` : text;
  }
  return out;
}
