"""Our workbench's own oracle (core/tasks) on AndroidWorld's task instances: the "solved by our oracle" column.

For each AndroidWorld template with a counterpart in our task suite, AndroidWorld initializes its instance
(its params) on the SimDroid; this module maps those params to our template's params and runs
`awb run --task OURS --params JSON --no-init --device emulator-PORT` (our oracle through the workbench's
AdbDevice over the private adb server, as for any emulator); AndroidWorld's is_successful then judges.

The mapping lives here, not in core: it is AndroidWorld's vocabulary. Params our oracle reads come from
AndroidWorld's params (what its goal says); params only our initialize/check read (distractors) are left
empty, or read from the device where our schema needs them (a notebook's notes). Our check's verdict is
kept beside AndroidWorld's, for information only.
"""

import json
import shlex
import subprocess

from android_world.env import adb_utils
from android_world.env import device_constants

MARKOR = device_constants.MARKOR_DATA

# AndroidWorld template -> (our template, params mapper(aw_params, env)).
COUNTERPARTS = {}


def counterpart(ours, *aw_names):
  def register(fn):
    for n in aw_names:
      COUNTERPARTS[n] = (ours, fn)
    return fn
  return register


def shell(env, cmd):
  return adb_utils.issue_generic_request(['shell', cmd], env.controller).generic.output.decode()


def none(p, env):
  return {}


for _sw in ('Wifi', 'Bluetooth'):
  for _dir in ('On', 'Off'):
    # The *Verify templates say the same ("Turn wifi on.") from a device already in the goal state.
    counterpart(f'System{_sw}Turn{_dir}', f'System{_sw}Turn{_dir}', f'System{_sw}Turn{_dir}Verify')(none)
counterpart('SystemBrightnessMax', 'SystemBrightnessMax', 'SystemBrightnessMaxVerify')(none)
counterpart('SystemBrightnessMin', 'SystemBrightnessMin', 'SystemBrightnessMinVerify')(none)


@counterpart('MultiWifiThenOpenApp', 'TurnOnWifiAndOpenApp')
def _wifi_app(p, env):
  return {'app': p['app_name'].title()}  # 'clock' -> our app name 'Clock'


@counterpart('ClockStopwatchRun', 'ClockStopWatchRunning')
def _stopwatch_run(p, env):
  return {'from': 'reset', 'elapsedMs': 0, 'laps': 0}


@counterpart('ClockStopwatchPause', 'ClockStopWatchPausedVerify')
def _stopwatch_pause(p, env):
  return {'elapsedMs': 1000, 'laps': 0}  # read only by our check


@counterpart('ClockTimerEntry', 'ClockTimerEntry')
def _timer(p, env):
  return {k: int(p[k]) for k in ('hours', 'minutes', 'seconds')}


@counterpart('ContactsAddContact', 'ContactsAddContact')
def _contact(p, env):
  first, _, last = p['name'].partition(' ')
  # person.phone is our stored form (ten digits, for our check); the oracle types the goal's number as written.
  digits = ''.join(c for c in p['number'] if c.isdigit())[-10:]
  return {'person': {'first': first, 'last': last, 'name': p['name'], 'phone': digits}, 'number': p['number'], 'others': []}


@counterpart('SmsSendMessage', 'SimpleSmsSend')
def _sms_send(p, env):
  return {'number': p['number'], 'message': p['message'], 'messages': []}


@counterpart('SmsReplyToMostRecent', 'SimpleSmsReplyMostRecent')
def _sms_reply(p, env):
  return {'target': p['number'], 'message': p['message'], 'messages': []}


@counterpart('SmsResendLastMessage', 'SimpleSmsResend')
def _sms_resend(p, env):
  return {'name': p['name'], 'phone': p['number'], 'body': p['message'], 'contacts': [{'name': p['name'], 'phone': p['number']}], 'messages': []}


@counterpart('AudioRecorderRecordAudio', 'AudioRecorderRecordAudio')
def _record(p, env):
  return {'seeded': [], 'askRename': True, 'seconds': 3}


@counterpart('AudioRecorderRecordAudioWithFileName', 'AudioRecorderRecordAudioWithFileName')
def _record_named(p, env):
  return {'seeded': [], 'askRename': True, 'seconds': 3, 'name': p['file_name']}


# --- Markor: the notebook's notes, where our schema wants them, as the device holds them ----------

def notes_on_device(env, sort_by_time=False):
  out = shell(env, f"ls {'-t ' if sort_by_time else ''}{MARKOR}")
  names = [n.strip() for n in out.split('\n') if n.strip()]
  return [n for n in names if shell(env, f'[ -f {shlex.quote(MARKOR + "/" + n)} ] && echo f').strip() == 'f']


def cat(env, name):
  return shell(env, f'cat {shlex.quote(MARKOR + "/" + name)}').replace('\r', '')


@counterpart('MarkorCreateNote', 'MarkorCreateNote')
def _markor_create(p, env):
  return {'file_name': p['file_name'], 'text': p['text'], 'others': []}


@counterpart('MarkorCreateFolder', 'MarkorCreateFolder')
def _markor_folder(p, env):
  return {'folder_name': p['folder_name'], 'folders': [], 'others': []}


@counterpart('MarkorDeleteNote', 'MarkorDeleteNote')
def _markor_delete(p, env):
  return {'file_name': p['file_name'], 'text': '', 'others': []}


@counterpart('MarkorDeleteNewestNote', 'MarkorDeleteNewestNote')
def _markor_newest(p, env):
  names = notes_on_device(env, sort_by_time=True)
  return {'notes': [{'name': n, 'text': cat(env, n), 'age_minutes': 60 * (i + 1)} for i, n in enumerate(names)]}


@counterpart('MarkorDeleteAllNotes', 'MarkorDeleteAllNotes')
def _markor_all(p, env):
  return {'notes': [{'name': n, 'text': cat(env, n)} for n in notes_on_device(env)]}


@counterpart('MarkorEditNote', 'MarkorEditNote')
def _markor_edit(p, env):
  kind = p['edit_type']
  new = {'header': p.get('header'), 'footer': p.get('footer'), 'replace': p.get('replace_text')}[kind]
  return {'file_name': p['file_name'], 'original': cat(env, p['file_name']).strip() or ' ', 'edit_type': kind, 'new_text': new, 'others': []}


@counterpart('MarkorMoveNote', 'MarkorMoveNote')
def _markor_move(p, env):
  return {'file_name': p['file_name'], 'text': cat(env, f"{p['source_folder']}/{p['file_name']}"), 'source_folder': p['source_folder'],
          'destination_folder': p['destination_folder'], 'folders': [], 'root_notes': []}


# --- Files ------------------------------------------------------------------------------------

@counterpart('FilesDeleteFile', 'FilesDeleteFile')
def _files_delete(p, env):
  return {'folder': p['subfolder'], 'target': {'name': p['file_name'], 'size': 1}, 'others': []}


@counterpart('FilesMoveFile', 'FilesMoveFile')
def _files_move(p, env):
  # Ours moves from Download into a sub-folder of Documents; AndroidWorld's source and destination vary.
  dest = p['destination_folder']
  if p['source_folder'] != 'Download' or not dest.startswith('Documents/'):
    raise OutsideOurTemplate(f"moves {p['source_folder']} -> {dest}; ours moves Download -> Documents/<folder>")
  return {'target': {'name': p['file_name'], 'size': 1}, 'downloads': [], 'sub': dest.split('/', 1)[1], 'subs': []}


# --- Pro Expense, Broccoli, Simple Calendar: AndroidWorld's row objects ----------------------------

EXPENSE_CATEGORIES = ['Others', 'Income', 'Food', 'Housing', 'Social', 'Entertainment', 'Transportation', 'Clothes', 'Health Care',
                      'Education', 'Donation']  # Pro Expense's category ids 1..11


def expense(r):
  return {'name': r.name, 'amount': int(r.amount), 'category': EXPENSE_CATEGORIES[int(r.category) - 1], 'note': r.note, 'date': int(r.created_date)}


@counterpart('ExpenseAddSingle', 'ExpenseAddSingle')
@counterpart('ExpenseAddMultiple', 'ExpenseAddMultiple')
def _expense_add(p, env):
  return {'targets': [expense(r) for r in p['row_objects']], 'noise': []}


@counterpart('ExpenseDeleteSingle', 'ExpenseDeleteSingle')
@counterpart('ExpenseDeleteMultiple', 'ExpenseDeleteMultiple', 'ExpenseDeleteMultiple2')
def _expense_delete(p, env):
  return {'targets': [expense(r) for r in p['row_objects']], 'noise': []}


@counterpart('ExpenseDeleteDuplicates', 'ExpenseDeleteDuplicates', 'ExpenseDeleteDuplicates2')
def _expense_dupes(p, env):
  target = p['row_objects'][0]
  near = next((r for r in p.get('noise_row_objects', []) if r.name == target.name and r.amount != target.amount), target)
  return {'target': expense(target), 'near': expense(near), 'noise': []}


def recipe(r):
  return {'title': r.title, 'description': r.description, 'servings': r.servings, 'preparationTime': r.preparationTime,
          'source': r.source or '', 'ingredients': r.ingredients, 'directions': r.directions, 'favorite': bool(r.favorite)}


@counterpart('RecipeAddRecipe', 'RecipeAddSingleRecipe')
def _recipe_add(p, env):
  return {'target': recipe(p['row_objects'][0]), 'noise': []}


@counterpart('RecipeDeleteSingleRecipe', 'RecipeDeleteSingleRecipe', 'RecipeDeleteSingleWithRecipeWithNoise')
@counterpart('RecipeDeleteMultipleRecipes', 'RecipeDeleteMultipleRecipes', 'RecipeDeleteMultipleRecipesWithNoise')
def _recipe_delete(p, env):
  return {'targets': [recipe(r) for r in p['row_objects']], 'noise': []}


@counterpart('RecipeDeleteDuplicateRecipes', 'RecipeDeleteDuplicateRecipes', 'RecipeDeleteDuplicateRecipes2', 'RecipeDeleteDuplicateRecipes3')
def _recipe_dupes(p, env):
  target = recipe(p['row_objects'][0])
  return {'target': target, 'variant': target, 'noise': []}


def event(r):
  return {'title': r.title, 'start': int(r.start_ts) * 1000, 'end': int(r.end_ts) * 1000, 'location': r.location or '',
          'description': r.description or '', 'allDay': False}


def date_of(p):
  return {'year': int(p['year']), 'month': int(p['month']), 'day': int(p['day'])}


@counterpart('CalendarAddEvent', 'SimpleCalendarAddOneEvent')
def _calendar_add(p, env):
  return {'date': date_of(p), 'hour': int(p['hour']), 'durationMins': int(p['duration_mins']), 'title': p['event_title'],
          'description': p['event_description'], 'existing': []}


@counterpart('CalendarDeleteEvent', 'SimpleCalendarDeleteOneEvent')
def _calendar_delete(p, env):
  return {'target': event(p['row_objects'][0]), 'others': []}


@counterpart('CalendarDeleteEventsOnDay', 'SimpleCalendarDeleteEvents')
def _calendar_delete_day(p, env):
  return {'date': date_of(p), 'targets': [event(r) for r in p['row_objects']], 'others': []}


class OutsideOurTemplate(Exception):
  """AndroidWorld's instance lies outside what our counterpart template can express."""


def solve(env, task, name, args):
  """Runs our oracle on the device for AndroidWorld's instance; returns what `awb run --json` said."""
  ours, mapper = COUNTERPARTS[name]
  params = mapper(task.params, env)
  cmd = ['node', 'bin/awb.js', 'run', '--task', ours, '--params', json.dumps(params), '--no-init', '--no-record', '--json',
         '--device', f'emulator-{args.console_port}', '--adb-port', str(args.adb_server_port)]
  r = subprocess.run(cmd, cwd=args.repo, capture_output=True, text=True, timeout=600)
  if r.returncode != 0:
    raise RuntimeError(f'awb run {ours} exited {r.returncode}: {r.stderr.strip()[-400:]}')
  out = json.loads(r.stdout.strip().split('\n')[-1])
  return {'ours': ours, 'our_status': out['status'], 'our_check': out['success'], 'our_steps': out['steps'],
          'our_actions': [a['description'] or json.dumps(a['action']) for a in out['actions']],
          'our_error': (f"{out['error']['name']}: {out['error']['message']}".split('\n')[0][:300] if out.get('error') else None)}
