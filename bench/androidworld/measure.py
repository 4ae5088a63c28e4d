"""Runs AndroidWorld's own task templates against a running SimDroid and tabulates what happens.

AndroidWorld is not vendored: pass its source checkout with --aw (google-research/android_world,
protos compiled). Start a private adb server and SimDroid first (docs/androidworld.md), then:

  python bench/androidworld/measure.py --aw /path/to/android_world --console-port 5700 \
      --grpc-port 8700 --adb-server-port 5737 --json out.json --markdown out.md [--solver ui|harness]

For each template whose apps SimDroid has: params = cls.generate_random_params() (random seeded
with --seed), task.initialize_task(env), task.is_successful(env) before solving (must be 0), the
solver, task.is_successful(env) after (must be 1), task.tear_down(env). Templates whose apps
SimDroid lacks are listed as such. Solvers (each row records its route):
  ui      — our workbench's oracle through the screen alone (our_oracle.py; the default);
  harness — solvers.py: by route ui, ui+intent, data (adb writes or reads of the app's data),
            answer-from-data, or none (the *Verify templates, which start in the goal state).
"""

import argparse
import datetime
import json
import os
import random
import subprocess
import sys
import time
import traceback

# The apps SimDroid simulates, by AndroidWorld's app names (task_eval.app_names).
SIMDROID_APPS = {
    'audio recorder', 'clock', 'contacts', 'pro expense', 'files', 'markor', 'broccoli app',
    'simple calendar pro', 'simple sms messenger', 'settings', 'clipper', 'vlc', 'osmand', 'retro music',
    'simple gallery pro', 'simple draw pro',
    'camera', 'dialer', 'chrome',
}
# Information-retrieval templates declare no app_names; their app is in the name.
IR_PREFIX_APPS = {'SimpleCalendar': 'simple calendar pro', 'Tasks': 'tasks', 'Notes': 'joplin', 'SportsTracker': 'opentracks'}
SIMDROID_IR_APPS = {'simple calendar pro', 'tasks', 'opentracks', 'joplin'}


# Templates without a screen-only solver that are still initialized and checked (before only): a miss explained in KNOWN.
INITIALIZE_ONLY = {
    'MarkorTranscribeVideo',
    # Their goal is text drawn inside a picture that Simple Gallery shows: no text of it in the accessibility tree.
    'ExpenseAddMultipleFromGallery', 'MarkorTranscribeReceipt', 'RecipeAddMultipleRecipesFromImage',
}

# Why a template is known not to pass (shown beside its measured outcome; measuring still runs it).
KNOWN = {
    'MarkorTranscribeVideo': 'the text is drawn in the video\'s frames; SimDroid decodes no video and uiautomator dump carries no pixels',
    'ContactsNewContactDraft': "AndroidWorld's check reads the a11y forest (env.get_state().forest), None under UIAUTOMATOR",
    'ExpenseAddMultipleFromGallery': 'the expenses are text inside a JPEG: no text in the accessibility tree, no OCR here',
    'MarkorTranscribeReceipt': 'the receipt is text inside a PNG: no text in the accessibility tree, no OCR here',
    'RecipeAddMultipleRecipesFromImage': 'the recipes are text inside a JPEG: no text in the accessibility tree, no OCR here',
}


def apps_of(name, cls):
  apps = tuple(getattr(cls, 'app_names', ()) or ())
  if apps:
    return apps
  for prefix, app in IR_PREFIX_APPS.items():
    if name.startswith(prefix):
      return (app,)
  return ()


def missing_apps(name, cls):
  have = SIMDROID_APPS | SIMDROID_IR_APPS
  return [a for a in apps_of(name, cls) if a not in have]


ROUTES = ('ui', 'ui+intent', 'data', 'answer-from-data', 'none')


def aw_commit(args):
  """The commit of the AndroidWorld tree measured: --aw-commit when given; else git's, but only when --aw is
  the top of a git checkout of its own (an exported tree inside another repository would give that one's)."""
  if args.aw_commit:
    return args.aw_commit
  try:
    top = subprocess.run(['git', '-C', args.aw, 'rev-parse', '--show-toplevel'], capture_output=True, text=True).stdout.strip()
    if top and os.path.realpath(top) == os.path.realpath(args.aw):
      return subprocess.run(['git', '-C', args.aw, 'rev-parse', 'HEAD'], capture_output=True, text=True).stdout.strip()
  except OSError:
    pass
  return 'unknown (not a git checkout; pass --aw-commit)'


def load_env(args):
  """AndroidWorld's load_and_setup_env with two things its signature does not take: the adb server
  port (android_env passes -P to adb; AndroidWorld leaves it at 5037) and the UIAUTOMATOR a11y method
  (get_controller hard-codes A11Y_FORWARDER_APP, which installs an APK and forwards a device socket)."""
  from android_env import loader
  from android_env.components import config_classes
  from android_world.env import android_world_controller as awc
  from android_world.env import env_launcher

  def get_controller(console_port=5554, adb_path=awc.DEFAULT_ADB_PATH, grpc_port=8554):
    config = config_classes.AndroidEnvConfig(
        task=config_classes.FilesystemTaskConfig(path=awc._write_default_task_proto()),  # pylint: disable=protected-access
        simulator=config_classes.EmulatorConfig(
            emulator_launcher=config_classes.EmulatorLauncherConfig(
                emulator_console_port=console_port, adb_port=console_port + 1, grpc_port=grpc_port),
            adb_controller=config_classes.AdbControllerConfig(adb_path=adb_path, adb_server_port=args.adb_server_port),
        ),
    )
    return awc.AndroidWorldController(loader.load(config), a11y_method=awc.A11yMethod.UIAUTOMATOR)

  awc.get_controller = get_controller
  return env_launcher.load_and_setup_env(
      console_port=args.console_port, emulator_setup=False, adb_path=args.adb, grpc_port=args.grpc_port)


def first_run(env):
  """The part of AndroidWorld's one-time app setup (setup_device/apps.py, run by emulator_setup=True)
  that applies to SimDroid's built-in apps: it grants Simple Calendar Pro and Audio Recorder their
  permissions, and opens Simple SMS Messenger once, where a fresh device asks whether it may post
  notifications (answered "Allow", as a person setting the phone up would)."""
  from android_world.env import adb_utils
  for package, permissions in (
      ('com.simplemobiletools.calendar.pro', ('READ_CALENDAR', 'WRITE_CALENDAR', 'POST_NOTIFICATIONS')),
      ('com.dimowner.audiorecorder', ('RECORD_AUDIO', 'POST_NOTIFICATIONS'))):
    for p in permissions:
      adb_utils.grant_permissions(package, f'android.permission.{p}', env.controller)
  adb_utils.launch_app('simple sms messenger', env.controller)
  time.sleep(1)
  if any(e.text == 'Allow' for e in env.controller.get_ui_elements()):
    from android_world.env import actuation
    actuation.find_and_click_element('Allow', env.controller, case_sensitive=True)
  adb_utils.close_app('simple sms messenger', env.controller)


def short(e):
  line = f'{type(e).__name__}: {e}'.replace('\n', ' ')
  return line[:300]


def run_template(env, name, cls, seed, solvers, args):
  row = {'template': name, 'apps': list(apps_of(name, cls))}
  random.seed(seed)
  try:
    import numpy as np
    np.random.seed(seed)
  except ImportError:
    pass
  t0 = time.time()
  stage = 'params'
  task = None
  try:
    params = cls.generate_random_params()
    task = cls(params)
    generated_goal = task.goal
    outside = solvers.get(name) and solvers[name].outside(task)
    if outside:
      # The instance needs what SimDroid lacks (an app it has only as a placeholder): not counted as solved.
      row.update(outside=outside, goal=generated_goal, correct=False, route='none')
      return row
    stage = 'initialize'
    task.initialize_task(env)
    row['initializes'] = True
    # AndroidWorld words some goals only here (information retrieval rewrites its dates): the goal a person reads.
    row['goal'] = task.goal
    if task.goal != generated_goal:
      row['goal_generated'] = generated_goal
    stage = 'check before'
    row['before'] = float(task.is_successful(env))
    solver = solvers.get(name)
    if solver is None:
      row['solver'] = None
    else:
      row['solver'] = solver.kind
      stage = 'solve'
      extra = solver.solve(env, task, args)  # pytype: disable=not-callable
      if isinstance(extra, dict):
        row.update(extra)
      stage = 'check after'
      row['after'] = float(task.is_successful(env))
  except Exception as e:  # pylint: disable=broad-except
    row.setdefault('initializes', False)
    row['error'] = f'{stage}: {short(e)}'
    if args.verbose:
      traceback.print_exc()
  finally:
    if task is not None and row.get('initializes'):
      try:
        task.tear_down(env)
      except Exception as e:  # pylint: disable=broad-except
        row['tear_down_error'] = short(e)
  row['seconds'] = round(time.time() - t0, 1)
  # The check must say 0 before solving and 1 after; the System *Verify templates start in their goal state
  # (AndroidWorld's precondition), so their solver does nothing and the check says 1 both times.
  expected_before = 1.0 if name.startswith('System') and name.endswith('Verify') else 0.0
  row['correct'] = bool(row.get('initializes') and row.get('before') == expected_before and row.get('after') == 1.0 and 'tear_down_error' not in row)
  row['route'] = row.get('solver') if row['correct'] else 'none'
  return row


def markdown(rows, meta):
  out = [f"Measured {meta['date']} · AndroidWorld {meta['aw_commit']} · seed {meta['seed']} · solver {meta['solver']}", '',
         '| Template | Apps | Initializes | Route | Check before → after | Correct | Note |', '|---|---|---|---|---|---|---|']
  for r in rows:
    if r.get('missing') or r.get('no_counterpart') or r.get('outside'):
      why = (f"SimDroid lacks {', '.join(r['missing'])}" if r.get('missing') else f"instance outside SimDroid: {r['outside']}" if r.get('outside')
             else 'no solver')
      out.append(f"| {r['template']} | {', '.join(r['apps'])} | — | none | — | ✗ | {why} |")
      continue
    ba = f"{r.get('before', '–')} → {r.get('after', '–')}" if 'before' in r else '–'
    note = '; '.join(x for x in (KNOWN.get(r['template']) if not r['correct'] else None, r.get('error') or r.get('tear_down_error')) if x)
    if r.get('our_error'):
      note = '; '.join(x for x in (note, f"our oracle ({r['ours']}): {r['our_error']}") if x)
    out.append(f"| {r['template']} | {', '.join(r['apps'])} | {'yes' if r.get('initializes') else 'no'} | {r.get('route', '—')} | {ba} | {'✓' if r['correct'] else '✗'} | {note.replace('|', '/')} |")
  return '\n'.join(out) + '\n'


def main():
  ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
  ap.add_argument('--aw', required=True, help='android_world source checkout (the folder holding the android_world package)')
  ap.add_argument('--console-port', type=int, default=5554)
  ap.add_argument('--grpc-port', type=int, default=8554)
  ap.add_argument('--adb', default='/usr/bin/adb')
  ap.add_argument('--adb-server-port', type=int, default=5037)
  ap.add_argument('--seed', type=int, default=0)
  ap.add_argument('--only', default='', help='comma-separated template names')
  ap.add_argument('--json')
  ap.add_argument('--markdown')
  ap.add_argument('--repo', default=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
  ap.add_argument('--solver', choices=('ui', 'harness'), default='ui',
                  help="ui: our workbench's oracle through the screen (awb run --params --no-init); harness: solvers.py, by route")
  ap.add_argument('--aw-commit', default=os.environ.get('AW_COMMIT', ''),
                  help='the AndroidWorld commit measured, when --aw is an exported tree rather than a git checkout of its own')
  ap.add_argument('--verbose', action='store_true')
  args = ap.parse_args()
  sys.path.insert(0, os.path.abspath(args.aw))
  sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
  from absl import logging
  logging.set_verbosity(logging.WARNING)
  from android_world import registry
  import solvers
  chosen = solvers.SOLVERS
  if args.solver == 'ui':
    import our_oracle
    chosen = {n: solvers.Solver('ui', (lambda n: lambda env, task, args: our_oracle.solve(env, task, n, args))(n)) for n in our_oracle.COUNTERPARTS}

  reg = registry.TaskRegistry()
  templates = reg.get_registry(reg.ANDROID_WORLD_FAMILY)
  only = [n for n in args.only.split(',') if n]
  env = load_env(args)
  first_run(env)
  rows = []
  for i, name in enumerate(sorted(templates)):
    if only and name not in only:
      continue
    cls = templates[name]
    missing = missing_apps(name, cls)
    if missing:
      rows.append({'template': name, 'apps': list(apps_of(name, cls)), 'missing': missing, 'correct': False})
      continue
    if name not in chosen and name not in INITIALIZE_ONLY:
      rows.append({'template': name, 'apps': list(apps_of(name, cls)), 'no_counterpart': True, 'correct': False, 'route': 'none'})
      continue
    row = run_template(env, name, cls, args.seed + i, chosen, args)
    print(json.dumps(row), flush=True)
    rows.append(row)
  meta = {'date': datetime.date.today().isoformat(), 'aw_commit': aw_commit(args), 'seed': args.seed, 'solver': args.solver}
  present = [r for r in rows if not r.get('missing')]
  meta['present'] = len(present)
  meta['correct'] = sum(r['correct'] for r in present)
  meta['initializes'] = sum(bool(r.get('initializes')) for r in present)
  meta['by_route'] = {route: sum(1 for r in present if r.get('route') == route) for route in ROUTES}
  print(json.dumps(meta))
  if args.json:
    with open(args.json, 'w') as f:
      json.dump({'meta': meta, 'rows': rows}, f, indent=1)
  if args.markdown:
    with open(args.markdown, 'w') as f:
      f.write(markdown(rows, meta))
  env.close()


if __name__ == '__main__':
  main()
