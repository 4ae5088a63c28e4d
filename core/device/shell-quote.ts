/** Quotes one argument for an Android shell (mksh/toybox): plain words stay bare, others single-quoted. */
export function shellQuote(arg: string): string {
  if (arg !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** Builds a command line from argv. */
export function shellCommand(...argv: string[]): string {
  return argv.map(shellQuote).join(' ');
}
