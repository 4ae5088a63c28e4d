/**
 * Vocabulary for Joplin's notebooks and notes: everyday notes per notebook (distractors), meeting
 * minutes that state how many attended, and recipes with an ingredient list of quantities.
 */
export const JOPLIN_NOTEBOOKS: Readonly<Record<string, ReadonlyArray<readonly [title: string, body: string]>>> = {
  Personal: [
    ['Birthday Gift Ideas', 'A scarf, a cookbook, concert tickets or a plant for the balcony.'],
    ['Books to Read', '- The Overstory\n- Piranesi\n- A Gentleman in Moscow'],
    ['Weekend Plans', 'Farmers market on Saturday morning, hike on Sunday if it is dry.'],
    ['Passwords Hint Sheet', 'Hints only, never the passwords themselves.'],
  ],
  Work: [
    ['Quarterly Objectives', 'Ship the billing rewrite, cut page load time by a third, hire two engineers.'],
    ['One-on-one Topics', '- Career goals\n- Feedback on the launch\n- Holiday cover'],
    ['Conference Talk Outline', 'Intro, the problem, three lessons, questions.'],
    ['Onboarding Checklist', 'Laptop, accounts, team lunch, first small bug.'],
  ],
  School: [
    ['Biology Revision', 'Cell structure, photosynthesis, the Krebs cycle.'],
    ['Essay Draft Ideas', 'Compare two novels about memory and loss.'],
    ['Exam Timetable', 'Maths on Monday, history on Wednesday, chemistry on Friday.'],
  ],
  Home: [
    ['Garden Jobs', 'Prune the roses, sow lettuce, fix the fence post.'],
    ['Paint Colours', 'Living room: warm grey. Bedroom: sage green.'],
    ['Appliance Manuals', 'Dishwasher model DW-450, fridge model FR-22.'],
  ],
  Projects: [
    ['Bookshelf Build', 'Oak boards, 12 brackets, wood glue, sandpaper.'],
    ['Photo Album', 'Pick 40 photos from the summer trip and order prints.'],
    ['Blog Redesign', 'New header, darker code blocks, an about page.'],
  ],
  Ideas: [
    ['App Ideas', 'A shared shopping list that sorts itself by aisle.'],
    ['Short Story Prompts', 'A lighthouse keeper who receives letters from the future.'],
    ['Side Business', 'Bike repair workshop on Saturdays.'],
  ],
  Recipes: [
    ['Weeknight Curry', 'Onion, garlic, curry paste, coconut milk, chickpeas, spinach.'],
    ['Banana Bread Notes', 'Use very ripe bananas and bake a little longer.'],
  ],
  Finance: [
    ['Monthly Budget', 'Rent, groceries, transport, savings, fun money.'],
    ['Tax Documents', 'Payslips, bank interest statement, donation receipts.'],
    ['Savings Goals', 'Emergency fund first, then a new bicycle.'],
  ],
  Health: [
    ['Running Plan', 'Three runs a week, one long run on Sunday.'],
    ['Doctor Questions', 'Ask about the knee and the allergy tablets.'],
    ['Sleep Log', 'Lights out by eleven on weekdays.'],
  ],
  Travel: [
    ['Packing List', 'Passport, chargers, rain jacket, walking shoes.'],
    ['Lisbon Ideas', 'Tram 28, Belem tower, pasteis de nata.'],
    ['Train Times', 'The 08:15 to the coast, back on the 18:40.'],
  ],
  'Meeting Notes': [
    ['Retro Notes', 'What went well, what did not, what to try next sprint.'],
    ['Design Review Follow-ups', 'Update the mockups and share them by Thursday.'],
  ],
};

export const NOTEBOOK_NAMES = Object.keys(JOPLIN_NOTEBOOKS);

/** Notebooks a to-do question or a note of the is-to-do question may live in. */
export const TODO_NOTEBOOKS = ['Personal', 'Work', 'School', 'Home', 'Projects', 'Ideas', 'Recipes', 'Finance', 'Health', 'Travel'] as const;

/** Titles for the notes questions are asked about (no distractor's title contains one). */
export const QUESTION_NOTE_TITLES = [
  'Grocery Run', 'Team Agenda', 'Project Brief', 'Morning Pages', 'Chores List', 'Reading Notes', 'Road Trip Plan',
  'Family Recipes', 'Expense Sheet', 'Handbook Draft',
] as const;

export const QUESTION_NOTE_BODIES = [
  'Pick up milk, apples and oat flakes on the way home.', 'Call the landlord about the boiler.',
  'Send the slides to the team before noon.', 'Renew the library card.', 'Book the car in for its service.',
  'Reply to the school about the trip form.',
] as const;

export const MEETING_TITLES = [
  'Weekly Team Sync', 'Client Review', 'Kickoff Meeting', 'Budget Session', 'Sales Planning', 'Roadmap Review',
  'Campaign Planning', 'Sprint Demo', 'Customer Feedback Review', 'Board Meeting', 'Launch Readiness', 'Vendor Call',
] as const;

/** Meeting minutes; `{n}` is the number who attended. */
export const MEETING_BODIES = [
  'Minutes:\n- Went through the milestones\n- Agreed the owners of each action\n- {n} people attended',
  'Summary:\n- Reviewed last quarter\n- Discussed hiring\n- Attended by {n} participants',
  'Notes:\n- Walked through the demo\n- Collected feedback\n- {n} attendees were present',
  'Recap:\n- Settled the budget split\n- Next meeting in two weeks\n- {n} individuals joined',
] as const;

export const RECIPE_TITLES = [
  'Pancakes', 'Carbonara', 'Chocolate Brownies', 'Alfredo Pasta', 'Veggie Stir-fry', 'Beef Stew', 'Lasagne', 'Salmon Bowl',
  'Fish Tacos', 'Berry Smoothie',
] as const;

export const RECIPE_INGREDIENTS = [
  'almond flour', 'coconut sugar', 'chia seeds', 'tahini', 'matcha powder', 'goji berries', 'hemp seeds', 'millet',
  'buckwheat groats', 'maca powder',
] as const;

export const RECIPE_QUANTITIES = [
  '1 cup', '2 cups', '1/2 cup', '3/4 cup', '1/4 cup', '1 tablespoon', '2 tablespoons', '1 teaspoon', '2 teaspoons',
] as const;

/** Recipe bodies; `{q}` is the asked ingredient's line (quantity and name). */
export const RECIPE_BODIES = [
  'Ingredients:\n- 1 cup plain flour\n- {q}\n- 2 eggs\n- 1 cup milk\n\nMethod:\n1. Whisk everything together.\n2. Cook in a hot pan.',
  'Ingredients:\n- 2 cups rolled oats\n- 1/2 cup honey\n- {q}\n- 1/4 cup chopped nuts\n\nMethod:\n1. Mix and press into a tin.\n2. Bake for 20 minutes.',
  'Ingredients:\n- {q}\n- 1 cup cooked rice\n- 1/2 cup peas\n- 2 tablespoons soy sauce\n\nMethod:\n1. Fry the rice.\n2. Stir in the rest.',
  'Ingredients:\n- 1 1/2 cups flour\n- 1/4 cup cocoa powder\n- 1 teaspoon baking powder\n- {q}\n\nMethod:\n1. Combine.\n2. Bake for 25 minutes.',
] as const;
