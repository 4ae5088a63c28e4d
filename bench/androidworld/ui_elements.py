"""Compares the environment server's ui_elements with AndroidWorld's own xml_dump_to_ui_elements, screen by screen.

AndroidWorld is not vendored: pass its checkout with --aw. The screens come from dump_screens.ts (the XML and our
elements for each); every element's every field is compared, and fields AndroidWorld leaves None must be absent here.
"""

import argparse
import dataclasses
import json
import sys


def main() -> None:
  p = argparse.ArgumentParser()
  p.add_argument('--aw', required=True, help='AndroidWorld checkout (google-research/android_world)')
  p.add_argument('screens')
  args = p.parse_args()
  sys.path.insert(0, args.aw)
  from android_world.env import representation_utils  # pylint: disable=import-outside-toplevel

  screens = json.load(open(args.screens, encoding='utf-8'))
  elements = mismatches = 0
  for s in screens:
    theirs = representation_utils.xml_dump_to_ui_elements(s['xml'])
    ours = s['ours']
    if len(theirs) != len(ours):
      mismatches += 1
      print(f"{s['template']}: {len(theirs)} elements there, {len(ours)} here")
      continue
    for a, b in zip(theirs, ours):
      elements += 1
      d = dataclasses.asdict(a)
      wrong = [k for k, v in b.items() if d.get(k) != v]
      extra = [k for k, v in d.items() if k not in b and v is not None]
      if wrong or extra:
        mismatches += 1
        print(f"{s['template']}: differs in {wrong + extra}")
  print(json.dumps({'screens': len(screens), 'elements': elements, 'mismatches': mismatches}))


if __name__ == '__main__':
  main()
