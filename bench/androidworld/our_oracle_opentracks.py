"""Our oracle's counterparts for AndroidWorld's OpenTracks templates (SportsTracker*, see our_oracle.py): the
activity type and the days taken from the goal's words as initialize_task left them ("yesterday", "Tuesday",
"October 05"); the tracks themselves are read off the app's list."""

from our_oracle import counterpart, goal_words


def question(category='', day='', until=''):
  return {'category': category, 'day': day, 'until': until, 'tracks': []}


counterpart('OpenTracksActivitiesOnDateQuestion', 'SportsTrackerActivitiesOnDate')(
    lambda task: question(day=goal_words(task, r'What activities did I do (.+?) in the OpenTracks app')))
counterpart('OpenTracksActivitiesCountThisWeekQuestion', 'SportsTrackerActivitiesCountForWeek')(
    lambda task: question(category=goal_words(task, r'How many (.+?) activities did I do this week')))
counterpart('OpenTracksLongestDistanceThisWeekQuestion', 'SportsTrackerLongestDistanceActivity')(
    lambda task: question(category=goal_words(task, r'longest distance covered in an? (.+?) activity in the OpenTracks app')))
counterpart('OpenTracksTotalDurationThisWeekQuestion', 'SportsTrackerTotalDurationForCategoryThisWeek')(
    lambda task: question(category=goal_words(task, r'total duration of (.+?) activities in the OpenTracks app')))


@counterpart('OpenTracksActivityDurationQuestion', 'SportsTrackerActivityDuration')
def _duration(task):
  category, day = goal_words(task, r'How long was my (.+?) activity (.+?) in the OpenTracks app')
  return question(category=category, day=day)


@counterpart('OpenTracksTotalDistanceOverIntervalQuestion', 'SportsTrackerTotalDistanceForCategoryOverInterval')
def _distance(task):
  category, day, until = goal_words(task, r'distance covered for (.+?) activities in the OpenTracks app from (.+?) to (.+?)\? Express')
  return question(category=category, day=day, until=until)
