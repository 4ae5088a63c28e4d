"""Solvers for AndroidWorld's information-retrieval templates (Simple Calendar Pro and Tasks).

An information-retrieval task is solved by answering: the agent's `answer` action, which
AndroidWorld's env stores in env.interaction_cache and its is_successful compares with the expected
answer. These solvers compute the answer the way a person would read it from the app — from the
app's data read through adb (`sqlite3` on the calendar's events table / the Tasks app's tasks table),
interpreting the question's wording (today, tomorrow, "this Monday", "next week", "8pm") against the
device's own clock (`date +%s`). They never read the task's proto, expected answer or params beyond
the words in the goal.
"""

import datetime
import re
import shlex
import zoneinfo

from android_world.env import adb_utils
from android_world.env import json_action

CALENDAR_DB = '/data/data/com.simplemobiletools.calendar.pro/databases/events.db'
TASKS_DB = '/data/data/org.tasks/databases/database'
WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']
MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september',
          'october', 'november', 'december']


def shell(env, cmd):
  return adb_utils.issue_generic_request(['shell', cmd], env.controller).generic.output.decode()


def answer(env, text):
  """The agent's answer action: what AndroidWorld's is_successful reads back."""
  env.execute_action(json_action.JSONAction(action_type=json_action.ANSWER, text=text))


def device_zone(env):
  name = shell(env, 'getprop persist.sys.timezone').strip()
  try:
    return zoneinfo.ZoneInfo(name or 'UTC')
  except (zoneinfo.ZoneInfoNotFoundError, ValueError):
    return zoneinfo.ZoneInfo('UTC')


def device_now(env):
  """The device's clock, as the status bar shows it."""
  zone = device_zone(env)
  return datetime.datetime.fromtimestamp(int(shell(env, 'date +%s').strip()), zone)


def rows(env, db, sql):
  """sqlite3's default list output (`|`-separated), one list per row."""
  out = shell(env, f'sqlite3 {db} {shlex.quote(sql)}').replace('\r', '')
  return [line.split('|') for line in out.split('\n') if line]


def parse_day(phrase, today, bare='coming'):
  """A day as a person says it: today / tomorrow / yesterday / (this) Monday / the Monday after
  next / October 16 / October 16 2023. A bare weekday means the coming one, or (bare='past') the one
  just past."""
  p = phrase.strip().lower()
  if p.startswith('on '):
    p = p[3:]
  if p == 'today':
    return today
  if p == 'tomorrow':
    return today + datetime.timedelta(days=1)
  if p == 'yesterday':
    return today - datetime.timedelta(days=1)
  m = re.fullmatch(r'(?:the )?(\w+) after next', p)
  if m and m.group(1) in WEEKDAYS:
    return coming(today, WEEKDAYS.index(m.group(1))) + datetime.timedelta(days=7)
  m = re.fullmatch(r'this (\w+)', p)
  if m and m.group(1) in WEEKDAYS:
    return coming(today, WEEKDAYS.index(m.group(1)))
  if p in WEEKDAYS:
    if bare == 'coming':
      return coming(today, WEEKDAYS.index(p))
    return today - datetime.timedelta(days=((today.weekday() - WEEKDAYS.index(p)) % 7) or 7)
  m = re.fullmatch(r'(\w+) (\d{1,2})(?: (\d{4}))?', p)
  if m and m.group(1) in MONTHS:
    return datetime.date(int(m.group(3) or today.year), MONTHS.index(m.group(1)) + 1, int(m.group(2)))
  raise ValueError(f'unrecognised day: {phrase!r}')


def coming(today, weekday):
  ahead = (weekday - today.weekday()) % 7
  return today + datetime.timedelta(days=ahead or 7)


def parse_clock(text):
  """11:00am, 9:45am, 12pm, 8pm, 21:45 → minutes after midnight."""
  t = text.strip().lower().replace(' ', '')
  m = re.fullmatch(r'(\d{1,2})(?::(\d{2}))?(am|pm)?', t)
  if not m:
    raise ValueError(f'unrecognised time: {text!r}')
  h, mi, ampm = int(m.group(1)), int(m.group(2) or 0), m.group(3)
  if ampm:
    h = h % 12 + (12 if ampm == 'pm' else 0)
  return h * 60 + mi


def next_week(today):
  """"Next week, the week starting Monday": the coming Monday through the Sunday after it."""
  monday = today + datetime.timedelta(days=7 - today.weekday())
  return monday, monday + datetime.timedelta(days=6)


def titles(items):
  return ', '.join(items)


# --- Simple Calendar Pro ------------------------------------------------------------------------

class Event:

  def __init__(self, title, start, location):
    self.title, self.start, self.location = title, start, location

  @property
  def minutes(self):
    return self.start.hour * 60 + self.start.minute


def calendar_events(env):
  zone = device_zone(env)
  out = []
  for r in rows(env, CALENDAR_DB, 'SELECT start_ts, location, title FROM events ORDER BY start_ts'):
    start_ts, location, title = r[0], r[1], '|'.join(r[2:])
    out.append(Event(title, datetime.datetime.fromtimestamp(int(start_ts), zone), location))
  return out


def earliest(events):
  if not events:
    return []
  first = min(e.start for e in events)
  return [e.title for e in events if e.start == first]


def goal_match(task, pattern):
  m = re.search(pattern, task.goal)
  if not m:
    raise ValueError(f'goal does not read as expected: {task.goal!r}')
  return m


def calendar_answer(env, task):
  """The answer to one Simple Calendar question, from the goal's words and the calendar's events."""
  now = device_now(env)
  today = now.date()
  events = calendar_events(env)
  name = type(task).__name__
  if name in ('SimpleCalendarEventsOnDate', 'SimpleCalendarAnyEventsOnDate'):
    day = parse_day(goal_match(task, r'events (?:do I have )?(.+?) in Simple Calendar').group(1), today)
    return titles(e.title for e in events if e.start.date() == day)
  if name == 'SimpleCalendarEventOnDateAtTime':
    m = goal_match(task, r'schedule for (.+?) at (\S+) in Simple Calendar')
    day, at = parse_day(m.group(1), today), parse_clock(m.group(2))
    return titles(e.title for e in events if e.start.date() == day and e.minutes == at)
  if name == 'SimpleCalendarNextEvent':
    return titles(earliest([e for e in events if e.start >= now]))
  if name == 'SimpleCalendarNextMeetingWithPerson':
    person = goal_match(task, r'next meeting with (.+?) in Simple Calendar').group(1)
    upcoming = [e for e in events if e.start >= now and person.lower() in e.title.lower()]
    first = min(upcoming, key=lambda e: e.start)
    return first.start.strftime('%B %d %Y %H:%M')
  if name == 'SimpleCalendarLocationOfEvent':
    title = goal_match(task, r'location of my (.+?) event in Simple Calendar').group(1)
    return next(e.location for e in events if title.lower() in e.title.lower())
  if name == 'SimpleCalendarEventsInNextWeek':
    first, last = next_week(today)
    return titles(e.title for e in events if first <= e.start.date() <= last)
  if name == 'SimpleCalendarFirstEventAfterStartTime':
    m = goal_match(task, r'first event after (\S+) (.+?) in Simple Calendar')
    at, day = parse_clock(m.group(1)), parse_day(m.group(2), today)
    return titles(earliest([e for e in events if e.start.date() == day and e.minutes >= at]))
  if name == 'SimpleCalendarEventsInTimeRange':
    m = goal_match(task, r'between (\S+) and (\S+) (.+?) in Simple Calendar')
    lo, hi, day = parse_clock(m.group(1)), parse_clock(m.group(2)), parse_day(m.group(3), today)
    return titles(e.title for e in events if e.start.date() == day and lo <= e.minutes <= hi)
  raise ValueError(f'no calendar answer for {name}')


# --- Tasks --------------------------------------------------------------------------------------

class Todo:

  def __init__(self, title, importance, due, completed):
    self.title, self.importance, self.due, self.completed = title, importance, due, completed


def tasks_rows(env):
  zone = device_zone(env)

  def day(ms):
    return datetime.datetime.fromtimestamp(int(ms) // 1000, zone).date() if int(ms) else None

  out = []
  sql = 'SELECT importance, dueDate, completed, title FROM tasks WHERE deleted = 0 ORDER BY _id'
  for r in rows(env, TASKS_DB, sql):
    out.append(Todo('|'.join(r[3:]), int(r[0]), day(r[1]), int(r[2]) > 0))
  return out


# The Tasks app's importance column: 0 is its highest priority (the red flag), 3 none.
HIGH_PRIORITY = 0


def tasks_answer(env, task):
  today = device_now(env).date()
  todos = tasks_rows(env)
  name = type(task).__name__
  if name == 'TasksDueOnDate':
    day = parse_day(goal_match(task, r'tasks do I have due (.+?) in Tasks app').group(1), today)
    return titles(t.title for t in todos if t.due == day)
  if name == 'TasksHighPriorityTasks':
    return titles(t.title for t in todos if t.importance == HIGH_PRIORITY)
  if name == 'TasksHighPriorityTasksDueOnDate':
    day = parse_day(goal_match(task, r'high priority are due (.+?) in the Tasks app').group(1), today)
    return titles(t.title for t in todos if t.importance == HIGH_PRIORITY and t.due == day)
  if name == 'TasksDueNextWeek':
    first, last = next_week(today)
    return str(sum(1 for t in todos if t.due and first <= t.due <= last))
  if name == 'TasksCompletedTasksForDate':
    # "Completed for Tuesday": the Tuesday just past (AndroidWorld words a day up to a week back or ahead
    # as a bare weekday); the coming one if no task done was due then.
    phrase = goal_match(task, r'completed for (.+?) in Tasks app').group(1)
    for bare in ('past', 'coming'):
      day = parse_day(phrase, today, bare)
      done = [t.title for t in todos if t.completed and t.due == day]
      if done:
        break
    return titles(done)
  if name == 'TasksIncompleteTasksOnDate':
    day = parse_day(goal_match(task, r'still have to do by (.+?) in Tasks app').group(1), today)
    return titles(t.title for t in todos if not t.completed and t.due and t.due <= day)
  raise ValueError(f'no Tasks answer for {name}')


CALENDAR_IR = ('SimpleCalendarAnyEventsOnDate', 'SimpleCalendarEventOnDateAtTime', 'SimpleCalendarEventsInNextWeek',
               'SimpleCalendarEventsInTimeRange', 'SimpleCalendarEventsOnDate', 'SimpleCalendarFirstEventAfterStartTime',
               'SimpleCalendarLocationOfEvent', 'SimpleCalendarNextEvent', 'SimpleCalendarNextMeetingWithPerson')
TASKS_IR = ('TasksCompletedTasksForDate', 'TasksDueNextWeek', 'TasksDueOnDate', 'TasksHighPriorityTasks',
            'TasksHighPriorityTasksDueOnDate', 'TasksIncompleteTasksOnDate')


def solve_calendar(env, task, args):
  answer(env, calendar_answer(env, task))


def solve_tasks(env, task, args):
  answer(env, tasks_answer(env, task))
