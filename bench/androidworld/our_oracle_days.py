"""Our oracle's counterparts for AndroidWorld's Simple Calendar Pro and Tasks templates (see our_oracle.py):
days, times and names taken from the goal's words as initialize_task left them."""

from our_oracle import UNSTATED, UNSTATED_EVENT, counterpart, goal_words

# --- Simple Calendar Pro -----------------------------------------------------------------------

def date_of(p):
  return {'year': int(p['year']), 'month': int(p['month']), 'day': int(p['day'])}


def event_fields(p):
  return {'hour': int(p['hour']), 'durationMins': int(p['duration_mins']), 'title': p['event_title'], 'description': p['event_description']}


@counterpart('CalendarAddEvent', 'SimpleCalendarAddOneEvent')
def _calendar_add(task):
  return dict(event_fields(task.params), date=date_of(task.params), existing=[])


@counterpart('CalendarAddEventOnRelativeDay', 'SimpleCalendarAddOneEventTomorrow', 'SimpleCalendarAddOneEventRelativeDay',
             'SimpleCalendarAddOneEventInTwoWeeks')
def _calendar_add_relative(task):
  when = goal_words(task, r'create a calendar event (for tomorrow|for this \w+|in two weeks from today) at')
  weekday = when.split()[-1] if when.startswith('for this') else ''
  kind = 'tomorrow' if when == 'for tomorrow' else 'this weekday' if weekday else 'in two weeks'
  return dict(event_fields(task.params), when=kind, weekday=weekday, existing=[])


@counterpart('CalendarAddRepeatingEvent', 'SimpleCalendarAddRepeatingEvent')
def _calendar_repeat(task):
  return dict(event_fields(task.params), date=date_of(task.params), repeat=goal_words(task, r'recurs (daily|weekly),'), existing=[])


@counterpart('CalendarDeleteEvent', 'SimpleCalendarDeleteOneEvent')
def _calendar_delete(task):
  import calendar as _cal  # the goal's date and hour, in the device's time (UTC)
  p = task.params
  start = _cal.timegm((int(p['year']), int(p['month']), int(p['day']), int(p['hour']), 0, 0)) * 1000
  return {'target': dict(UNSTATED_EVENT, title=p['event_title'], start=start, end=start), 'others': []}


@counterpart('CalendarDeleteEventsOnDay', 'SimpleCalendarDeleteEvents')
def _calendar_delete_day(task):
  return {'date': date_of(task.params), 'targets': [UNSTATED_EVENT], 'others': []}


@counterpart('CalendarDeleteEventsOnRelativeDay', 'SimpleCalendarDeleteEventsOnRelativeDay')
def _calendar_delete_relative(task):
  return {'weekday': goal_words(task, r'scheduled for this (\w+)\.'), 'targets': [UNSTATED_EVENT], 'others': []}


def schedule(day='', time='', name=''):
  return {'day': day, 'time': time, 'name': name, 'events': []}


counterpart('CalendarEventsOnDateQuestion', 'SimpleCalendarEventsOnDate')(
    lambda task: schedule(day=goal_words(task, r'What events do I have (.+?) in Simple Calendar Pro')))
counterpart('CalendarAnyEventsOnDateQuestion', 'SimpleCalendarAnyEventsOnDate')(
    lambda task: schedule(day=goal_words(task, r'Do I have any events (.+?) in Simple Calendar Pro')))


@counterpart('CalendarEventAtTimeQuestion', 'SimpleCalendarEventOnDateAtTime')
def _at_time(task):
  day, time = goal_words(task, r'schedule for (.+?) at (\S+) in Simple Calendar Pro')
  return schedule(day=day, time=time)


@counterpart('CalendarEventsInTimeRangeQuestion', 'SimpleCalendarEventsInTimeRange')
def _time_range(task):
  time, day = goal_words(task, r'between (\S+) and 8pm (.+?) in Simple Calendar Pro')
  return schedule(day=day, time=time)


@counterpart('CalendarFirstEventAfterQuestion', 'SimpleCalendarFirstEventAfterStartTime')
def _first_after(task):
  time, day = goal_words(task, r'first event after (\S+) (.+?) in Simple Calendar Pro')
  return schedule(day=day, time=time)


counterpart('CalendarEventsNextWeekQuestion', 'SimpleCalendarEventsInNextWeek')(lambda task: schedule())
counterpart('CalendarEventLocationQuestion', 'SimpleCalendarLocationOfEvent')(
    lambda task: schedule(name=goal_words(task, r'location of my (.+?) event in Simple Calendar Pro')))
counterpart('CalendarNextMeetingQuestion', 'SimpleCalendarNextMeetingWithPerson')(
    lambda task: schedule(name=goal_words(task, r'next meeting with (.+?) in Simple Calendar Pro')))
counterpart('CalendarNextEventQuestion', 'SimpleCalendarNextEvent')(lambda task: {'target': UNSTATED_EVENT, 'others': []})


# --- Tasks -------------------------------------------------------------------------------------

def due(day=''):
  return {'day': day, 'tasks': []}


counterpart('TasksDueOnDateQuestion', 'TasksDueOnDate')(lambda task: due(goal_words(task, r'tasks do I have due (.+?) in Tasks app')))
counterpart('TasksHighPriorityDueOnDateQuestion', 'TasksHighPriorityTasksDueOnDate')(
    lambda task: due(goal_words(task, r'high priority are due (.+?) in the Tasks app')))
counterpart('TasksDueNextWeekQuestion', 'TasksDueNextWeek')(lambda task: due())
counterpart('TasksCompletedForDateQuestion', 'TasksCompletedTasksForDate')(lambda task: due(goal_words(task, r'completed for (.+?) in Tasks app')))
counterpart('TasksIncompleteByDateQuestion', 'TasksIncompleteTasksOnDate')(
    lambda task: due(goal_words(task, r'still have to do by (.+?) in Tasks app')))
counterpart('TasksHighPriorityQuestion', 'TasksHighPriorityTasks')(lambda task: {'high': [UNSTATED], 'tasks': []})
