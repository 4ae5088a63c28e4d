import type { CheckVerdict } from '../../../../core/api/types.js';

/**
 * Why the checker decided: each condition it tested, held (✓) or not (✗), with what it expected
 * and what it found. Failed conditions come first: they are the reason a researcher is looking.
 */
export function WhyPanel({ verdict }: { verdict: CheckVerdict | null }) {
  if (!verdict) return null;
  const conditions = [...verdict.conditions.filter((c) => !c.ok), ...verdict.conditions.filter((c) => c.ok)];
  return (
    <section className="replay-why" data-testid="replay-why" aria-label="Why the checker decided">
      <h3>Why: {verdict.ok ? 'every condition held' : `${verdict.conditions.filter((c) => !c.ok).length} of ${verdict.conditions.length} conditions failed`}</h3>
      <table>
        <thead><tr><th /><th>Condition</th><th>Expected</th><th>Found</th></tr></thead>
        <tbody>
          {conditions.map((c, i) => (
            <tr key={i} className={c.ok ? 'why-ok' : 'why-failed'} data-testid={`why-condition-${i}`}>
              <td aria-label={c.ok ? 'held' : 'failed'}>{c.ok ? '✓' : '✗'}</td>
              <td>{c.name}</td>
              <td className="mono">{c.expected ?? '—'}</td>
              <td className="mono">{c.found ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
