"""Tabulates measure.py's runs by route: which templates AndroidWorld judged solved, and how, per seed.

  python bench/androidworld/report.py --ui ui-seed0.json ui-seed1.json [--harness h-seed0.json h-seed1.json] > table.md

For each template and seed the route is `ui` when the screen-only solver (our oracle, `--solver ui`)
solved it; otherwise the harness solver's route when that solved it (ui+intent, data,
answer-from-data, or ui/none for its own screen and *Verify solvers); otherwise `none`. The headline
is the screen-only count: templates whose apps SimDroid has that the screen-only solver solved on
every seed given. No AndroidWorld import: it reads the JSON files only.
"""

import argparse
import json
import sys


def load(paths):
  runs = []
  for p in paths:
    with open(p) as f:
      data = json.load(f)
    runs.append((data['meta'], {r['template']: r for r in data['rows']}))
  return runs


def note_of(row):
  if row is None:
    return 'not run'
  if row.get('missing'):
    return f"SimDroid lacks {', '.join(row['missing'])}"
  if row.get('outside'):
    return f"outside SimDroid: {row['outside']}"
  if row.get('correct'):
    return ''
  parts = []
  if 'before' in row:
    parts.append(f"check {row.get('before')} → {row.get('after', '–')}")
  if row.get('error'):
    parts.append(row['error'])
  if row.get('our_error'):
    parts.append(f"our oracle: {row['our_error']}")
  return '; '.join(parts)


def main():
  ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
  ap.add_argument('--ui', nargs='+', required=True, help="measure.py --solver ui JSON files, one per seed")
  ap.add_argument('--harness', nargs='*', default=[], help="measure.py --solver harness JSON files, the same seeds in the same order")
  args = ap.parse_args()
  ui = load(args.ui)
  harness = load(args.harness)
  seeds = [m['seed'] for m, _ in ui]
  names = sorted(set().union(*(rows.keys() for _, rows in ui)))
  present = [n for n in names if not any(rows.get(n, {}).get('missing') for _, rows in ui)]
  out = [f"Seeds {', '.join(map(str, seeds))} · AndroidWorld {ui[0][0]['aw_commit']} · measured {', '.join(sorted({m['date'] for m, _ in ui}))}", '',
         '| Template | ' + ' | '.join(f'Route, seed {s}' for s in seeds) + ' | Note |', '|---|' + '---|' * len(seeds) + '---|']
  screen_only = 0
  per_seed = [0] * len(seeds)
  for n in present:
    routes, notes = [], []
    for i, (_, rows) in enumerate(ui):
      row = rows.get(n)
      if row and row.get('correct'):
        routes.append('ui')
        per_seed[i] += 1
        continue
      h = harness[i][1].get(n) if i < len(harness) else None
      routes.append(h['route'] if h and h.get('correct') else 'none')
      notes.append(f"seed {seeds[i]}: {note_of(row)}")
    if all(r == 'ui' for r in routes):
      screen_only += 1
    out.append(f"| {n} | " + ' | '.join(routes) + f" | {'; '.join(notes).replace('|', '/')} |")
  out += ['', f'**Screen-only: {screen_only} of the {len(present)} templates whose apps SimDroid has solved on every seed** '
          f"({', '.join(f'seed {s}: {c}' for s, c in zip(seeds, per_seed))}); {len(names) - len(present)} templates need apps SimDroid lacks."]
  sys.stdout.write('\n'.join(out) + '\n')


if __name__ == '__main__':
  main()
