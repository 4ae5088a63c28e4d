import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { fieldIssues, formatIssues, issueLines, issuePath, parseIssueLine } from '../../core/util/zod-issues.js';

const Schema = z.strictObject({ endpoint: z.strictObject({ baseUrl: z.string(), retries: z.int().min(0) }), tags: z.array(z.string()) });
const issuesOf = (v: unknown) => {
  const r = Schema.safeParse(v);
  if (r.success) throw new Error('expected issues');
  return r.error.issues;
};

describe('zod issue lines', () => {
  it('dots the path, one line per issue, "; " between them', () => {
    const issues = issuesOf({ endpoint: { baseUrl: 1, retries: -1 }, tags: ['a', 2] });
    expect(issueLines(issues)).toEqual([
      'endpoint.baseUrl: Invalid input: expected string, received number',
      'endpoint.retries: Too small: expected number to be >=0',
      'tags.1: Invalid input: expected string, received number',
    ]);
    expect(formatIssues(issues)).toBe(issueLines(issues).join('; '));
    expect(formatIssues(issues, { separator: ', ' })).toBe(issueLines(issues).join(', '));
  });

  it('an issue at the top: an empty path by default, a label, or the message alone', () => {
    const top = issuesOf('not an object');
    expect(issueLines(top)).toEqual([': Invalid input: expected object, received string']);
    expect(issueLines(top, { root: '(root)' })).toEqual(['(root): Invalid input: expected object, received string']);
    expect(issueLines(top, { root: null })).toEqual(['Invalid input: expected object, received string']);
  });

  it('a prefix names a nested value from its container; dotted paths pass through', () => {
    const issues = issuesOf({ endpoint: { baseUrl: 'x', retries: 0 }, tags: [3] });
    expect(issueLines(issues, { prefix: ['components', 0, 'options'] })).toEqual(['components.0.options.tags.0: Invalid input: expected string, received number']);
    expect(issuePath(['a', 0, 'b'])).toBe('a.0.b');
    expect(formatIssues([{ path: 'temperature', message: 'Too big' }, { path: '', message: 'no such API member' }], { root: '(input)' }))
      .toBe('temperature: Too big; (input): no such API member');
  });

  it('fieldIssues and parseIssueLine give the API\'s { path, message } form', () => {
    const issues = issuesOf({ endpoint: { baseUrl: 'x', retries: 1.5 }, tags: [] });
    expect(fieldIssues(issues)).toEqual([{ path: 'endpoint.retries', message: 'Invalid input: expected int, received number' }]);
    expect(issueLines(issues).map(parseIssueLine)).toEqual(fieldIssues(issues));
    expect(parseIssueLine('no path here')).toEqual({ path: '', message: 'no path here' });
  });
});
