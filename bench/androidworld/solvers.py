"""The harness's other solvers (`measure.py --solver harness`), keyed by AndroidWorld's class name.

Each brings the device to the goal from what a person reads in the goal (never the task's checker,
and no param the goal does not state), by one of these routes (the table's "Route" column):
  ui               — through the screens only, with AndroidWorld's own actuation helpers;
  ui+intent        — a pre-filled intent (AndroidWorld's send_sms and add_contact tools) and taps;
  data             — through the device's data with adb: files (push/rm/mv/cat), databases (sqlite3 or
                     AndroidWorld's sqlite_utils), settings (`settings put`), providers, the clipboard;
  answer-from-data — an answer computed from the app's data (answers.py);
  none             — a *Verify template: initialize_task already leaves the goal state.
The screen-only solver for every template is our workbench's oracle (our_oracle.py, `--solver ui`).
"""

import dataclasses
import os
import re
import shlex
import tempfile

from android_world.env import actuation
from android_world.env import adb_utils
from android_world.env import device_constants
from android_world.env import json_action
from android_world.env import tools

import answers

MARKOR = device_constants.MARKOR_DATA
EXPENSE_DB = '/data/data/com.arduia.expense/databases/accounting.db'
CLOCK = 'com.google.android.deskclock/com.android.deskclock.DeskClock'


# Apps SimDroid installs only as a placeholder screen ("Nothing here yet"): an instance that opens one is outside SimDroid.
# None of TurnOnWifiAndOpenApp's apps is one any more: camera and the dialer are simulated since issue 36.
PLACEHOLDER_APPS = set()


def outside_simdroid(task):
  """Why an instance lies outside SimDroid (whatever the route), or None. TurnOnWifiAndOpenApp counts only for apps SimDroid really has."""
  if type(task).__name__ == 'TurnOnWifiAndOpenApp' and task.params.get('app_name') in PLACEHOLDER_APPS:
    return f"opens the {task.params['app_name']} app, which SimDroid has only as a placeholder"
  return None


@dataclasses.dataclass(frozen=True)
class Solver:
  kind: str  # 'ui' | 'ui+intent' | 'data' | 'answer-from-data' | 'none'
  solve: object
  outside: object = outside_simdroid


SOLVERS: dict[str, Solver] = {}


def solver(kind, *names):
  def register(fn):
    for n in names:
      SOLVERS[n] = Solver(kind, fn)
    return fn
  return register


def shell(env, cmd):
  return adb_utils.issue_generic_request(['shell', cmd], env.controller).generic.output.decode()


def sql_text(s):
  return "'" + str(s).replace("'", "''") + "'"


def sqlite(env, db, sql):
  return shell(env, f'sqlite3 {db} {shlex.quote(sql)}')


def push_text(env, remote, text):
  with tempfile.NamedTemporaryFile('w', delete=False, suffix='.txt') as f:
    f.write(text)
  try:
    adb_utils.issue_generic_request(['push', f.name, remote], env.controller)
  finally:
    os.unlink(f.name)


def click(env, text):
  actuation.find_and_click_element(text, env.controller)


# --- Settings ---------------------------------------------------------------------------------

@solver('data', 'SystemWifiTurnOn')
def _wifi_on(env, task, args):
  shell(env, 'settings put global wifi_on 1')


@solver('data', 'SystemWifiTurnOff')
def _wifi_off(env, task, args):
  shell(env, 'settings put global wifi_on 0')


@solver('data', 'SystemBluetoothTurnOn')
def _bt_on(env, task, args):
  shell(env, 'settings put global bluetooth_on 1')


@solver('data', 'SystemBluetoothTurnOff')
def _bt_off(env, task, args):
  shell(env, 'settings put global bluetooth_on 0')


@solver('data', 'SystemBrightnessMax')
def _bright_max(env, task, args):
  shell(env, 'settings put system screen_brightness 255')


@solver('data', 'SystemBrightnessMin')
def _bright_min(env, task, args):
  shell(env, 'settings put system screen_brightness 1')


@solver('none', 'SystemWifiTurnOnVerify', 'SystemWifiTurnOffVerify', 'SystemBluetoothTurnOnVerify',
        'SystemBluetoothTurnOffVerify', 'SystemBrightnessMaxVerify', 'SystemBrightnessMinVerify')
def _verify(env, task, args):
  pass


@solver('data', 'TurnOffWifiAndTurnOnBluetooth')
def _wifi_off_bt_on(env, task, args):
  shell(env, 'settings put global wifi_on 0')
  shell(env, 'settings put global bluetooth_on 1')


@solver('data', 'TurnOnWifiAndOpenApp')
def _wifi_on_open(env, task, args):
  shell(env, 'settings put global wifi_on 1')
  adb_utils.launch_app(task.params['app_name'], env.controller)


# --- Clock (AndroidWorld checks the screen) ---------------------------------------------------

@solver('ui', 'ClockStopWatchRunning')
def _stopwatch_run(env, task, args):
  shell(env, f'am start -n {CLOCK}')
  click(env, 'Stopwatch')
  click(env, 'Start')


@solver('ui', 'ClockStopWatchPausedVerify')
def _stopwatch_paused(env, task, args):
  shell(env, f'am start -n {CLOCK}')
  click(env, 'Stopwatch')


@solver('ui', 'ClockTimerEntry')
def _timer(env, task, args):
  p = task.params
  shell(env, f'am start -n {CLOCK}')
  click(env, 'Timer')
  digits = f"{p['hours']:02d}{p['minutes']:02d}{p['seconds']:02d}".lstrip('0')
  for d in digits:
    click(env, d)


# --- Contacts and SMS -------------------------------------------------------------------------

@solver('ui+intent', 'ContactsAddContact')
def _add_contact(env, task, args):
  from android_world.utils import contacts_utils  # pylint: disable=g-import-not-at-top
  contacts_utils.add_contact(task.params['name'], task.params['number'], env.controller)


def send_sms(env, number, message):
  tools.AndroidToolController(env.controller).send_sms(number, message)


@solver('ui+intent', 'SimpleSmsSend', 'SimpleSmsReply')
def _sms_send(env, task, args):
  send_sms(env, task.params['number'], task.params['message'])


@solver('data', 'SimpleSmsReplyMostRecent')
def _sms_reply_recent(env, task, args):
  out = shell(env, 'content query --uri content://sms/inbox --projection address:body')
  recent = re.search(r'address=([^,]*),', out).group(1)  # row 0: the newest text
  send_sms(env, recent, task.params['message'])


@solver('data', 'SimpleSmsResend')
def _sms_resend(env, task, args):
  # The goal names the contact only: the number is the contact's, the text the last one sent to it (the provider, newest first).
  number = re.sub(r'[^+\d]', '', contact_number(env, task.params['name']))
  sent = shell(env, 'content query --uri content://sms/sent --projection address:body')
  body = next(m.group(2) for m in re.finditer(r'address=([^,]*), body=(.*)', sent) if re.sub(r'[^+\d]', '', m.group(1)).endswith(number[-10:]))
  send_sms(env, number, body)


def contact_number(env, name):
  """The number as the contact holds it (contacts_utils.list_contacts strips the leading +)."""
  out = shell(env, 'content query --uri content://contacts/phones/ --projection display_name:number')
  return next(m.group(2).strip() for m in re.finditer(r'display_name=(.*), number=(.*)', out) if m.group(1) == name)


@solver('data', 'SimpleSmsSendReceivedAddress')
def _sms_forward_address(env, task, args):
  # The address is the text name2 just sent; it goes to name1, both found as a person would: by contact name.
  sender = re.sub(r'[^+\d]', '', contact_number(env, task.params['name2']))
  inbox = shell(env, 'content query --uri content://sms/inbox --projection address:body')
  address = next(m.group(2) for m in re.finditer(r'address=([^,]*), body=(.*)', inbox) if m.group(1) == sender)
  send_sms(env, contact_number(env, task.params['name1']), address)


def markor(*parts):
  return '/'.join([MARKOR, *parts])


def cat(env, path):
  return shell(env, f'cat {shlex.quote(path)}').replace('\r', '')


# --- Clipper (the clipboard) ------------------------------------------------------------------

@solver('data', 'SystemCopyToClipboard')
def _copy_to_clipboard(env, task, args):
  adb_utils.set_clipboard_contents(task.params['clipboard_content'], env.controller)


@solver('data', 'MarkorCreateNoteFromClipboard')
def _markor_paste(env, task, args):
  push_text(env, markor(task.params['file_name']), adb_utils.get_clipboard_contents(env.controller))


@solver('data', 'SimpleSmsSendClipboardContent')
def _sms_clipboard(env, task, args):
  send_sms(env, task.params['number'], adb_utils.get_clipboard_contents(env.controller))


# --- Audio Recorder (through its screens: record, stop, name it in the rename dialog) ---------

def record_clip(env, name=None):
  adb_utils.launch_app('audio recorder', env.controller)
  click(env, 'Record')
  click(env, 'Stop recording')
  if name is not None:
    field = next(i for i, e in enumerate(env.controller.get_ui_elements()) if (e.resource_id or '').endswith('input_name'))
    env.execute_action(json_action.JSONAction(action_type='input_text', text=name, index=field, clear_text=True))
  # input_text ends with Enter, which saves; otherwise save the suggested name.
  if any(e.text == 'Save' for e in env.controller.get_ui_elements()):
    click(env, 'Save')


@solver('ui', 'AudioRecorderRecordAudio')
def _record(env, task, args):
  record_clip(env)


@solver('ui', 'AudioRecorderRecordAudioWithFileName')
def _record_named(env, task, args):
  record_clip(env, task.params['file_name'])


# --- Information retrieval: the answer action (answers.py) -------------------------------------

for _name in answers.CALENDAR_IR:
  SOLVERS[_name] = Solver('answer-from-data', answers.solve_calendar)
for _name in answers.TASKS_IR:
  SOLVERS[_name] = Solver('answer-from-data', answers.solve_tasks)

import solvers_apps  # pylint: disable=g-import-not-at-top,unused-import,wrong-import-position  (registers its solvers)
