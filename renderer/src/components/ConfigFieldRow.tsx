import type { ConfigField } from '../../../core/api/types.js';

/**
 * One field of a config form generated from a zod schema's description (ConfigField): its name, its
 * description (with the cited default) and an input of its kind. The Training and Adaptation forms
 * share it; `idPrefix` keeps their test ids apart ('train-…', 'adapt-…').
 */
export function FieldRow({ field, value, error, onChange, idPrefix = 'train', choices }: {
  field: ConfigField; value: string; error: string | undefined; onChange(v: string): void; idPrefix?: string;
  /** Named choices for a text field (e.g. GRPO init's checkpoints): a dropdown, keeping a typed value that is not among them. */
  choices?: Array<{ value: string; label: string; title?: string }>;
}) {
  const id = `${idPrefix}-${field.path}`;
  const name = field.path.split('.').at(-1);
  return (
    <div className={error ? 'training-field invalid' : 'training-field'} title={field.description}>
      <label htmlFor={id}>
        <span className="mono">{name}</span>
        <span className="muted training-field-desc">{field.description}</span>
      </label>
      {choices ? (
        <select id={id} data-testid={id} value={value} onChange={(e) => onChange(e.target.value)}>
          <option value="">{field.nullable ? 'none' : 'default'}</option>
          {value && !choices.some((c) => c.value === value) ? <option value={value}>{value}</option> : null}
          {choices.map((c) => <option key={c.value} value={c.value} title={c.title}>{c.label}</option>)}
        </select>
      ) : <FieldInput id={id} field={field} value={value} onChange={onChange} />}
      {error ? <div className="settings-error" data-testid={`${idPrefix}-error-${field.path}`}>{error}</div> : null}
    </div>
  );
}

function FieldInput({ id, field, value, onChange }: { id: string; field: ConfigField; value: string; onChange(v: string): void }) {
  switch (field.kind) {
    case 'boolean':
      return <input id={id} data-testid={id} type="checkbox" checked={value === 'true'} onChange={(e) => onChange(String(e.target.checked))} />;
    case 'choice':
      return (
        <select id={id} data-testid={id} value={value} onChange={(e) => onChange(e.target.value)}>
          {field.nullable ? <option value="">none</option> : null}
          {(field.options ?? []).map((o) => <option key={String(o)} value={String(o)}>{String(o)}</option>)}
        </select>
      );
    case 'integer':
    case 'number':
    case 'text':
    case 'json': {
      const range = field.min !== undefined || field.max !== undefined ? `${field.min ?? ''}–${field.max ?? ''}` : '';
      const words = field.options?.length ? field.options.join(' | ') : '';
      const hint = [words, range].filter(Boolean).join(' or ');
      return (
        <input
          id={id} data-testid={id} value={value} onChange={(e) => onChange(e.target.value)}
          inputMode={field.kind === 'integer' ? 'numeric' : field.kind === 'number' ? 'decimal' : undefined}
          placeholder={field.nullable ? `none${hint ? ` (or ${hint})` : ''}` : field.optional ? 'default' : hint}
        />
      );
    }
  }
}
