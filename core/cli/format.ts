/** Output helpers for the CLI: aligned tables, a progress bar on stderr (TTY only), percentages. */
export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  return rows.map((r) => r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]!))).join('  ')).join('\n');
}

export function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}

export interface Progress {
  tick(label: string): void;
  done(): void;
}

export function progressBar(total: number, stream: NodeJS.WriteStream = process.stderr): Progress {
  let n = 0;
  const start = Date.now();
  const enabled = stream.isTTY === true && total > 1;
  const draw = (label: string) => {
    const width = 28;
    const filled = Math.round((n / total) * width);
    const elapsed = (Date.now() - start) / 1000;
    const eta = n ? (elapsed / n) * (total - n) : 0;
    stream.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${n}/${total} ${elapsed.toFixed(0)}s eta ${eta.toFixed(0)}s ${label.slice(0, 40).padEnd(40)}`);
  };
  return {
    tick(label) {
      n++;
      if (enabled) draw(label);
    },
    done() {
      if (enabled) stream.write('\n');
    },
  };
}
