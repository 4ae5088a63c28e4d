import type Database from 'better-sqlite3';
import type { Command } from '../run.js';
import { SETTINGS_NAMESPACES, type SettingsNamespace } from '../../system/settings.js';
import { dirname, normalizePath } from '../../system/fs.js';
import { resolveUri } from '../../system/providers.js';
import type { Db } from '../../system/databases.js';

// ------------------------------------------------------------------ settings

const SETTINGS_USAGE = 'usage:  settings [--user <USER_ID> | current] get namespace key\n        settings [--user <USER_ID> | current] put namespace key value\n        settings [--user <USER_ID> | current] delete namespace key\n        settings [--user <USER_ID> | current] list namespace\n';

export const settings: Command = (argv, io, dev) => {
  const args = argv.slice(1);
  if (args[0] === '--user') args.splice(0, 2);
  const [verb, ns, key, ...rest] = args;
  if (!verb || !ns || !['get', 'put', 'delete', 'list', 'reset'].includes(verb)) {
    io.err(SETTINGS_USAGE);
    return 255;
  }
  if (!(SETTINGS_NAMESPACES as readonly string[]).includes(ns)) {
    io.err(`Invalid namespace '${ns}'\n`);
    return 255;
  }
  const n = ns as SettingsNamespace;
  switch (verb) {
    case 'get':
      if (!key) break;
      io.out(`${dev.settings.get(n, key) ?? 'null'}\n`);
      return 0;
    case 'put': {
      if (!key || rest.length === 0) break;
      // `settings put` takes the value and an optional tag / default flag; only the value matters.
      dev.settings.put(n, key, rest[0]!);
      return 0;
    }
    case 'delete':
      if (!key) break;
      io.out(`Deleted ${dev.settings.delete(n, key) ? 1 : 0} rows\n`);
      return 0;
    case 'list':
      for (const [k, v] of dev.settings.list(n)) io.out(`${k}=${v}\n`);
      return 0;
    case 'reset':
      return 0;
  }
  io.err(SETTINGS_USAGE);
  return 255;
};

// ------------------------------------------------------------------ content

interface ContentArgs {
  uri?: string;
  projection?: string[];
  where?: string;
  sort?: string;
  binds: Array<{ column: string; value: unknown }>;
}

class ContentUsageError extends Error {}

function parseBind(spec: string): { column: string; value: unknown } {
  const m = /^([^:]+):([bsilfdn]):([\s\S]*)$/.exec(spec);
  if (!m) throw new ContentUsageError(`Invalid binding: ${spec}`);
  const column = m[1]!;
  const type = m[2]!;
  const raw = m[3]!;
  switch (type) {
    case 's':
      return { column, value: raw };
    case 'i':
    case 'l':
      if (!/^-?\d+$/.test(raw)) throw new ContentUsageError(`Invalid number in binding: ${spec}`);
      return { column, value: Number(raw) };
    case 'f':
    case 'd':
      if (Number.isNaN(Number(raw))) throw new ContentUsageError(`Invalid number in binding: ${spec}`);
      return { column, value: Number(raw) };
    case 'b':
      return { column, value: raw === 'true' || raw === '1' ? 1 : 0 };
    default:
      return { column, value: null };
  }
}

function parseContentArgs(args: string[]): ContentArgs {
  const out: ContentArgs = { binds: [] };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const next = () => {
      const v = args[++i];
      if (v === undefined) throw new ContentUsageError(`Argument expected after "${a}"`);
      return v;
    };
    switch (a) {
      case '--uri': out.uri = next(); break;
      case '--projection': out.projection = next().split(':'); break;
      case '--where': out.where = next(); break;
      case '--sort': out.sort = next(); break;
      case '--bind': out.binds.push(parseBind(next())); break;
      case '--user': next(); break;
      case '--show-type': next(); break;
      default: throw new ContentUsageError(`Unsupported argument: ${a}`);
    }
  }
  if (!out.uri) throw new ContentUsageError('Content provider URI not specified. Did you specify --uri argument?');
  return out;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
function ident(name: string): string {
  if (!IDENT.test(name)) throw new ContentUsageError(`Invalid column name: ${name}`);
  return name;
}

function formatValue(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (Buffer.isBuffer(v)) return `[B@${v.length.toString(16)}`;
  return String(v);
}

export const content: Command = (argv, io, dev) => {
  const verb = argv[1];
  let args: ContentArgs;
  try {
    if (!verb || !['query', 'insert', 'update', 'delete'].includes(verb)) throw new ContentUsageError(`Unsupported operation: ${verb ?? ''}`);
    args = parseContentArgs(argv.slice(2));
  } catch (e) {
    if (!(e instanceof ContentUsageError)) throw e;
    io.err(`[ERROR] ${e.message}\n`);
    return 1;
  }
  const resolved = resolveUri(args.uri!);
  if (!resolved) {
    const authority = /^content:\/\/([^/]+)/.exec(args.uri!)?.[1] ?? args.uri!;
    io.err(`Error while accessing provider:${authority}\njava.lang.IllegalArgumentException: Unknown URI ${args.uri}\n`);
    return 1;
  }
  const { table, id } = resolved;
  const db = dev.dbs.require(table.db);
  const conds = [table.where, id !== undefined ? `_id = ${id}` : undefined, args.where ? `(${args.where})` : undefined].filter(Boolean);
  const whereSql = conds.length ? ` WHERE ${conds.join(' AND ')}` : '';
  try {
    switch (verb) {
      case 'query': {
        const cols = args.projection ? args.projection.map(ident).join(', ') : '*';
        const order = args.sort ?? table.sort;
        const rows = db.prepare(`SELECT ${cols} FROM ${table.view}${whereSql}${order ? ` ORDER BY ${order}` : ''}`).all() as Array<Record<string, unknown>>;
        if (rows.length === 0) io.out('No result found.\n');
        rows.forEach((r, i) => io.out(`Row: ${i} ${Object.entries(r).map(([k, v]) => `${k}=${formatValue(v)}`).join(', ')}\n`));
        return 0;
      }
      case 'insert': {
        const values = new Map<string, unknown>(Object.entries(table.insertDefaults ?? {}));
        for (const b of args.binds) values.set(ident(b.column), b.value);
        if (!values.has('date') && table.db.endsWith('mmssms.db')) values.set('date', dev.clock.now());
        const cols = [...values.keys()];
        db.prepare(`INSERT INTO ${table.table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`).run(...values.values());
        return 0;
      }
      case 'update': {
        if (args.binds.length === 0) throw new ContentUsageError('Bindings not specified. Did you specify --bind argument(s)?');
        const sets = args.binds.map((b) => `${ident(b.column)} = ?`).join(', ');
        const tableWhere = whereSql.replace(/^ WHERE /, '');
        const r = db.prepare(`UPDATE ${table.table} SET ${sets}${tableWhere ? ` WHERE _id IN (SELECT _id FROM ${table.view} WHERE ${tableWhere})` : ''}`).run(...args.binds.map((b) => b.value));
        if (r.changes === 0 && args.where === undefined && id === undefined) io.out('');
        return 0;
      }
      case 'delete': {
        const tableWhere = whereSql.replace(/^ WHERE /, '');
        db.prepare(`DELETE FROM ${table.table}${tableWhere ? ` WHERE _id IN (SELECT _id FROM ${table.view} WHERE ${tableWhere})` : ''}`).run();
        return 0;
      }
    }
  } catch (e) {
    if (e instanceof ContentUsageError) {
      io.err(`[ERROR] ${e.message}\n`);
      return 1;
    }
    io.err(`Error while accessing provider:${args.uri}\nandroid.database.sqlite.SQLiteException: ${(e as Error).message}\n`);
    return 1;
  }
  return 1;
};

// ------------------------------------------------------------------ sqlite3

interface SqliteOpts {
  header: boolean;
  separator: string;
  mode: 'list' | 'csv' | 'line';
}

function splitStatements(db: Db, sql: string): string[] {
  // Split at semicolons outside quotes; join pieces until SQLite accepts them as one complete
  // statement, which keeps CREATE TRIGGER … BEGIN …; END; together.
  const pieces: string[] = [];
  let cur = '';
  let quote: string | null = null;
  for (const ch of sql) {
    cur += ch;
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"' || ch === '`') quote = ch;
    else if (ch === '[') quote = ']';
    else if (ch === ';') {
      pieces.push(cur);
      cur = '';
    }
  }
  if (cur.trim()) pieces.push(cur);
  const out: string[] = [];
  let acc = '';
  for (const p of pieces) {
    acc += p;
    if (/^\s*;?\s*$/.test(acc)) {
      acc = '';
      continue;
    }
    try {
      db.prepare(acc);
      out.push(acc);
      acc = '';
    } catch (e) {
      if (/incomplete input/.test((e as Error).message)) continue;
      out.push(acc);
      acc = '';
    }
  }
  if (acc.trim()) out.push(acc);
  return out;
}

function cell(v: unknown, realColumn: boolean): string {
  if (v === null || v === undefined) return '';
  if (Buffer.isBuffer(v)) return v.toString('latin1');
  if (typeof v === 'number' && realColumn && Number.isInteger(v)) return `${v}.0`;
  return String(v);
}

function csvCell(s: string): string {
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function printRows(io: Parameters<Command>[1], stmt: Database.Statement, rows: unknown[][], o: SqliteOpts): void {
  const cols = stmt.columns();
  const names = cols.map((c) => c.name);
  const real = cols.map((c) => /REAL|FLOA|DOUB/i.test(c.type ?? ''));
  if (o.mode === 'line') {
    const w = Math.max(...names.map((n) => n.length));
    rows.forEach((r, i) => {
      if (i) io.out('\n');
      r.forEach((v, j) => io.out(`${names[j]!.padStart(w)} = ${cell(v, real[j]!)}\n`));
    });
    return;
  }
  const sep = o.mode === 'csv' ? ',' : o.separator;
  const fmt = (s: string) => (o.mode === 'csv' ? csvCell(s) : s);
  if (o.header) io.out(`${names.map(fmt).join(sep)}\n`);
  for (const r of rows) io.out(`${r.map((v, j) => fmt(cell(v, real[j]!))).join(sep)}\n`);
}

export const sqlite3: Command = (argv, io, dev) => {
  const o: SqliteOpts = { header: false, separator: '|', mode: 'list' };
  const rest: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-header') o.header = true;
    else if (a === '-noheader') o.header = false;
    else if (a === '-separator') o.separator = argv[++i] ?? '|';
    else if (a === '-csv') o.mode = 'csv';
    else if (a === '-line') o.mode = 'line';
    else if (a === '-list') o.mode = 'list';
    else if (['-batch', '-bail', '-readonly'].includes(a)) continue;
    else if (a.startsWith('-') && rest.length === 0) {
      io.err(`sqlite3: Error: unknown option: ${a}\nUse -help for a list of options.\n`);
      return 1;
    } else rest.push(a);
  }
  const [file, ...sqlArgs] = rest;
  if (!file) {
    io.err('sqlite3: Error: no database file given\n');
    return 1;
  }
  const path = normalizePath(file);
  const entry = dev.fs.stat(path);
  if (entry && entry.type !== 'sqlite') {
    io.err(`Error: unable to open database "${file}": file is not a database\n`);
    return 1;
  }
  if (!entry && dev.fs.stat(dirname(path))?.type !== 'dir') {
    io.err(`Error: unable to open database "${file}": unable to open database file\n`);
    return 1;
  }
  const db = dev.dbs.openOrCreate(path);
  const sql = sqlArgs.length ? sqlArgs.join(' ') : io.stdin.toString('utf8');
  for (const statement of splitStatements(db, sql)) {
    let stmt: Database.Statement;
    try {
      stmt = db.prepare(statement);
    } catch (e) {
      io.err(`Parse error: ${(e as Error).message}\n`);
      return 1;
    }
    try {
      if (stmt.reader) printRows(io, stmt, stmt.raw().all() as unknown[][], o);
      else stmt.run();
    } catch (e) {
      io.err(`Runtime error: ${(e as Error).message}\n`);
      return 1;
    }
  }
  return 0;
};
