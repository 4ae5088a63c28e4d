/**
 * Matching expected records against stored ones as a multiset: each expected record takes one
 * distinct stored record that `same` accepts. Checkers use it to say "these are all still there,
 * unchanged" and then look at what is left (the agent's additions).
 */
export function withoutMatches<A, E>(actual: readonly A[], expected: readonly E[], same: (a: A, e: E) => boolean): A[] | null {
  const left = [...actual];
  for (const e of expected) {
    const i = left.findIndex((a) => same(a, e));
    if (i < 0) return null;
    left.splice(i, 1);
  }
  return left;
}
