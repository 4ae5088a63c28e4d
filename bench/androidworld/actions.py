"""Runs AndroidWorld's own actuation.execute_adb_action on the cases of dump_actions.ts and compares the device input it
would send with what the environment server plans for the same JSONAction on the same screen.

AndroidWorld is not vendored: pass its checkout with --aw. Its adb calls go to a recording stand-in for the
environment (execute_adb_call keeps each AdbRequest), so AndroidWorld's own code decides every tap, swipe, key and
typed word; time.sleep is skipped. Both sides are reduced to the same events: tap, long press, swipe (points and
duration), typed text, clear, key, app launch.
"""

import argparse
import json
import re
import sys
import time


def aw_events(requests):
  from android_env.proto import adb_pb2  # pylint: disable=import-outside-toplevel
  out, typed = [], None
  def flush():
    nonlocal typed
    if typed is not None:
      out.append(['text', typed])
      typed = None
  for r in requests:
    kind = r.WhichOneof('command')
    if kind == 'input_text':
      word = r.input_text.text
      word = '%s'.join(re.sub(r'\\(.)', r'\1', p) for p in word.split('%s')).replace('%s', ' ')
      typed = (typed or '') + word
      continue
    flush()
    if kind == 'tap':
      out.append(['tap', r.tap.x, r.tap.y])
    elif kind == 'press_button':
      out.append(['key', adb_pb2.AdbRequest.PressButton.Button.Name(r.press_button.button)])
    elif kind == 'start_activity':
      pkg, _, act = r.start_activity.full_activity.partition('/')
      out.append(['launch', f'{pkg}/{pkg + act if act.startswith(".") else act}'])
    elif kind == 'generic':
      args = list(r.generic.args)
      if args[:3] == ['shell', 'input', 'swipe']:
        x1, y1, x2, y2 = map(int, args[3:7])
        d = int(args[7]) if len(args) > 7 and args[7] else 300  # `input swipe` without a duration: 300 ms
        out.append(['long_press', x1, y1] if (x1, y1) == (x2, y2) and d == 1000 else ['swipe', x1, y1, x2, y2, d])
      elif args[:3] == ['shell', 'input', 'keycombination']:
        out.append(['clear'])
      else:
        out.append(['generic'] + args)
    else:
      out.append([kind])
  flush()
  return out


def our_events(ours):
  plan = ours.get('plan')
  if plan is None:
    return []
  if isinstance(plan, dict):
    return [['launch', plan['launch']]]
  out = []
  i = 0
  while i < len(plan):
    e = plan[i]
    k = e['kind']
    if k == 'tap':
      out.append(['tap', e['x'], e['y']])
    elif k == 'long_press':
      out.append(['long_press', e['x'], e['y']])
    elif k == 'swipe':
      out.append(['swipe', e['x1'], e['y1'], e['x2'], e['y2'], e['durationMs']])
    elif k == 'text':
      out.append(['text', e['text']])
    elif k == 'key' and e['key'] == 'MOVE_END':
      while i + 1 < len(plan) and plan[i + 1]['kind'] == 'key' and plan[i + 1]['key'] == 'DEL':
        i += 1
      out.append(['clear'])
    elif k == 'key':
      out.append(['key', e['key']])
    i += 1
  return out


def known_difference(theirs, mine, ours, screen):
  """The two differences docs/env-protocol.md states: points on the screen's far edge move one pixel inside, and typing
  with no field focused and none named is refused here (AndroidWorld sends the keys to nothing)."""
  if theirs is not None and mine is not None and len(theirs) == len(mine):
    w, h = screen
    edge = lambda a, b: a == b or (a, b) in ((w, w - 1), (h, h - 1))
    if all(t[0] == m[0] and len(t) == len(m) and all(edge(a, b) for a, b in zip(t[1:], m[1:])) for t, m in zip(theirs, mine)):
      return 'edge'
  if 'NoFocusedFieldError' in str(ours.get('error', '')) and theirs is not None and all(e[0] in ('text', 'key') for e in theirs):
    return 'no-focus'
  return None


def main() -> None:
  p = argparse.ArgumentParser()
  p.add_argument('--aw', required=True)
  p.add_argument('cases')
  args = p.parse_args()
  sys.path.insert(0, args.aw)
  from android_env.proto import adb_pb2  # pylint: disable=import-outside-toplevel
  from android_world.env import actuation, json_action, representation_utils  # pylint: disable=import-outside-toplevel

  class Recorder:
    def __init__(self):
      self.requests = []
    def execute_adb_call(self, request):
      self.requests.append(request)
      return adb_pb2.AdbResponse(status=adb_pb2.AdbResponse.Status.OK)

  time.sleep = lambda s: None
  cases = json.load(open(args.cases, encoding='utf-8'))
  same = differ = 0
  known = {}
  for c in cases:
    a = c['json']
    ours = c['ours']
    rec = Recorder()
    try:
      action = json_action.JSONAction(**a)
      if action.action_type not in ('answer', 'status'):
        elements = representation_utils.xml_dump_to_ui_elements(c['xml'])
        actuation.execute_adb_action(action, elements, tuple(c['screen']), rec)
      theirs = aw_events(rec.requests)
      aw_error = None
    except Exception as e:  # pylint: disable=broad-except
      theirs, aw_error = None, f'{type(e).__name__}: {e}'
    refused = 'refused' in ours or 'error' in ours
    mine = None if refused else our_events(ours)
    if aw_error is not None or refused:
      ok = aw_error is not None and refused
      detail = f'AndroidWorld: {aw_error}; here: {ours.get("refused") or ours.get("error")}'
    else:
      ok = mine == theirs
      detail = f'AndroidWorld: {theirs}; here: {mine}'
    why = None if ok else known_difference(theirs, mine, ours, c['screen'])
    if ok:
      same += 1
    elif why:
      known[why] = known.get(why, 0) + 1
    else:
      differ += 1
      print(f'{json.dumps(a)}: {detail}')
  print(json.dumps({'cases': len(cases), 'same': same, 'known_differences': known, 'differ': differ}))


if __name__ == '__main__':
  main()
