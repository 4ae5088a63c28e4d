import type { Device } from '../../device/device.js';
import { shellOk } from '../../device/device.js';
import { shellCommand } from '../../device/shell-quote.js';

/**
 * `content query|insert|delete` against a content provider, as AndroidWorld reads contacts and SMS.
 * `content query` prints `Row: N key=value, key=value`; with an explicit projection the keys are
 * known, which makes values containing ", " parse correctly.
 */
export async function contentQuery<K extends string>(
  device: Device,
  uri: string,
  projection: readonly K[],
  opts: { where?: string; sort?: string } = {},
): Promise<Array<Record<K, string | null>>> {
  const argv = ['content', 'query', '--uri', uri, '--projection', projection.join(':')];
  if (opts.where) argv.push('--where', opts.where);
  if (opts.sort) argv.push('--sort', opts.sort);
  const out = await shellOk(device, shellCommand(...argv));
  if (out.trim() === 'No result found.') return [];
  const rows: Array<Record<K, string | null>> = [];
  // Rows start with "Row: N "; values may contain newlines, so split on that marker only.
  const chunks = out.split(/(?:^|\n)Row: \d+ /).filter((c) => c !== '');
  for (const chunk of chunks) {
    const body = chunk.replace(/\n$/, '');
    const row = {} as Record<K, string | null>;
    let pos = 0;
    projection.forEach((key, i) => {
      const marker = i === 0 ? `${key}=` : `, ${key}=`;
      const at = body.indexOf(marker, pos);
      if (at < 0) throw new Error(`content query output lacks column ${key}: ${JSON.stringify(body.slice(0, 200))}`);
      const from = at + marker.length;
      const next = projection[i + 1];
      const end = next === undefined ? body.length : body.indexOf(`, ${next}=`, from);
      const value = body.slice(from, end < 0 ? body.length : end);
      row[key] = value === 'NULL' ? null : value;
      pos = end < 0 ? body.length : end;
    });
    rows.push(row);
  }
  return rows;
}

export type Binding = string | number | boolean | null;

function bind(column: string, v: Binding): string {
  if (v === null) return `${column}:n:`;
  if (typeof v === 'boolean') return `${column}:b:${v}`;
  if (typeof v === 'number') return Number.isInteger(v) ? `${column}:l:${v}` : `${column}:d:${v}`;
  return `${column}:s:${v}`;
}

export async function contentInsert(device: Device, uri: string, values: Record<string, Binding>): Promise<void> {
  const argv = ['content', 'insert', '--uri', uri];
  for (const [k, v] of Object.entries(values)) argv.push('--bind', bind(k, v));
  await shellOk(device, shellCommand(...argv));
}

export async function contentDelete(device: Device, uri: string, where?: string): Promise<void> {
  const argv = ['content', 'delete', '--uri', uri];
  if (where) argv.push('--where', where);
  await shellOk(device, shellCommand(...argv));
}
