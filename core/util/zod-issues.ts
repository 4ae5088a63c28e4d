/**
 * Problems found by a zod schema, as the one-line text the named errors carry: `path: message`, the
 * path dotted (`endpoint.baseUrl: Invalid URL`). Also takes problems whose path is already dotted
 * (the API's `{ path, message }` issues). No zod import: the renderer's bundle may include this.
 */
export interface IssueLike {
  /** Keys from the top of the value ([] at the top), or a dotted path ('' at the top). */
  readonly path: readonly PropertyKey[] | string;
  readonly message: string;
}

/** A problem at a field as the API and the forms carry it: a dotted path ('' at the top) and a message. */
export interface FieldIssue {
  path: string;
  message: string;
}

export interface IssueLineOptions {
  /**
   * How a problem at the top (an empty path) reads: a label in its place (`(root): …`), null for the
   * message alone, or (omitted) an empty path (`: …`).
   */
  root?: string | null;
  /** Keys before each issue's own path: the issues of a value nested in a larger one. */
  prefix?: readonly PropertyKey[];
}

/** A path dotted: `['components', 0, 'options']` → `components.0.options`. */
export function issuePath(path: readonly PropertyKey[] | string, prefix: readonly PropertyKey[] = []): string {
  const keys = typeof path === 'string' ? (path ? [path] : []) : path;
  return [...prefix, ...keys].map(String).join('.');
}

/** One line per issue. */
export function issueLines(issues: readonly IssueLike[], opts: IssueLineOptions = {}): string[] {
  return issues.map((i) => {
    const path = issuePath(i.path, opts.prefix);
    if (path) return `${path}: ${i.message}`;
    if (opts.root === null) return i.message;
    return `${opts.root ?? ''}: ${i.message}`;
  });
}

/** The issues on one line, `; ` between them (or `separator`). */
export function formatIssues(issues: readonly IssueLike[], opts: IssueLineOptions & { separator?: string } = {}): string {
  return issueLines(issues, opts).join(opts.separator ?? '; ');
}

/** zod's issues as FieldIssues (the API's and the forms' shape). */
export function fieldIssues(issues: readonly IssueLike[]): FieldIssue[] {
  return issues.map((i) => ({ path: issuePath(i.path), message: i.message }));
}

/** A `path: message` line (issueLines') back into its field and message; a line without a path is a message at the top. */
export function parseIssueLine(line: string): FieldIssue {
  const at = line.indexOf(': ');
  return at > 0 ? { path: line.slice(0, at), message: line.slice(at + 2) } : { path: '', message: line };
}
