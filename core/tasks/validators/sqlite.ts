import type { Device } from '../../device/device.js';
import { shellOk } from '../../device/device.js';
import { shellCommand } from '../../device/shell-quote.js';

/**
 * SQL through the device's `sqlite3` binary, as AndroidWorld's checkers read app databases.
 * Values come back through SQLite's quote() so text with separators or newlines parses exactly.
 */
export type SqlValue = string | number | null;

export class SqlOutputError extends Error {
  override name = 'SqlOutputError';
  constructor(readonly output: string, readonly at: number) {
    super(`Unparseable sqlite3 output at ${at}: ${JSON.stringify(output.slice(at, at + 40))}`);
  }
}

/** A SQL literal for a value (strings quoted with '' escaping). */
export function sqlLiteral(v: SqlValue | boolean): string {
  if (v === null) return 'NULL';
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new RangeError(`Cannot write ${v} to SQL`);
    return String(v);
  }
  return `'${v.replace(/'/g, "''")}'`;
}

/** Parses rows of quote()d values separated by `|` (sqlite3's list mode). */
export function parseQuotedRows(out: string, columns: number): SqlValue[][] {
  const rows: SqlValue[][] = [];
  let i = 0;
  const n = out.length;
  while (i < n) {
    if (out[i] === '\n') {
      i++;
      continue;
    }
    const row: SqlValue[] = [];
    for (let c = 0; c < columns; c++) {
      if (out.startsWith("'", i)) {
        let j = i + 1;
        let s = '';
        for (;;) {
          const q = out.indexOf("'", j);
          if (q < 0) throw new SqlOutputError(out, i);
          s += out.slice(j, q);
          if (out[q + 1] === "'") {
            s += "'";
            j = q + 2;
          } else {
            j = q + 1;
            break;
          }
        }
        row.push(s);
        i = j;
      } else if (out.startsWith('NULL', i)) {
        row.push(null);
        i += 4;
      } else if (out.startsWith("X'", i)) {
        const q = out.indexOf("'", i + 2);
        row.push(Buffer.from(out.slice(i + 2, q), 'hex').toString('utf8'));
        i = q + 1;
      } else {
        const m = /^-?[0-9][0-9.eE+-]*/.exec(out.slice(i));
        if (!m) throw new SqlOutputError(out, i);
        row.push(Number(m[0]));
        i += m[0].length;
      }
      if (c < columns - 1) {
        if (out[i] !== '|') throw new SqlOutputError(out, i);
        i++;
      }
    }
    if (i < n && out[i] !== '\n') throw new SqlOutputError(out, i);
    rows.push(row);
  }
  return rows;
}

/** Runs statements that return nothing (inserts, deletes). */
export async function sqlExec(device: Device, db: string, sql: string): Promise<void> {
  await shellOk(device, shellCommand('sqlite3', db, sql));
}

/** SELECTs the given columns (any SQL expressions) and returns typed rows. */
export async function sqlSelect(device: Device, db: string, columns: readonly string[], from: string): Promise<SqlValue[][]> {
  const sql = `SELECT ${columns.map((c) => `quote(${c})`).join(', ')} FROM ${from};`;
  return parseQuotedRows(await shellOk(device, shellCommand('sqlite3', db, sql)), columns.length);
}

/** Rows as objects keyed by column name. Columns must be plain names here. */
export async function sqlObjects<K extends string>(device: Device, db: string, columns: readonly K[], from: string): Promise<Array<Record<K, SqlValue>>> {
  const rows = await sqlSelect(device, db, columns, from);
  return rows.map((r) => Object.fromEntries(columns.map((c, i) => [c, r[i]!])) as Record<K, SqlValue>);
}

/** An INSERT statement for one row. */
export function sqlInsert(table: string, row: Record<string, SqlValue | boolean>): string {
  const cols = Object.keys(row);
  return `INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map((c) => sqlLiteral(row[c]!)).join(', ')});`;
}

export class SqlTypeError extends Error {
  override name = 'SqlTypeError';
  constructor(readonly column: string, readonly value: SqlValue, readonly want: string) {
    super(`Column ${column} holds ${JSON.stringify(value)}, expected ${want}`);
  }
}

/** Row converters: a column that must be a number (integers and reals). */
export function sqlNumber(row: Record<string, SqlValue>, column: string): number {
  const v = row[column];
  if (typeof v !== 'number') throw new SqlTypeError(column, v ?? null, 'a number');
  return v;
}

/** A text column (NULL stays null; numbers stored in a text column are read as their text). */
export function sqlText(row: Record<string, SqlValue>, column: string): string | null {
  const v = row[column];
  return v === null || v === undefined ? null : String(v);
}
