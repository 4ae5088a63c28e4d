/**
 * To-do vocabulary for task-manager templates: everyday task titles (distinct from one another
 * even ignoring case, none a prefix of another's words) and short descriptions.
 */
export const TODO_TITLES = [
  'Buy groceries', 'Call the plumber', 'Pay rent', 'Renew passport', 'Book dentist appointment', 'Water the plants',
  'Submit expense report', 'Pick up dry cleaning', 'Schedule car service', 'Return library books', 'Clean the garage',
  'Order printer ink', 'Reply to landlord', 'Plan birthday party', 'Update resume', 'Back up laptop',
  'Cancel gym membership', 'Send thank-you cards', 'Fix the leaking tap', 'Walk the dog', 'Prepare quarterly report',
  'Review contract draft', 'Buy concert tickets', 'Defrost the freezer', 'Mow the lawn', 'Call grandma',
  'Change bed sheets', 'Refill prescription', 'Replace smoke detector battery', 'Book hotel for conference',
  'Pay electricity bill', 'Write blog post', 'Organize photo albums', 'Take out recycling', 'Vacuum the living room',
  'Buy birthday gift for Sam', 'Email project update', 'Practice guitar', 'Read chapter 5', 'File tax return',
  'Clean out fridge', 'Get a haircut', 'Recycle old electronics', 'Sort the mail', 'Wash the car',
  'Book flight to Denver', 'Check tire pressure', 'Donate old clothes', 'Bake bread', 'Call insurance company',
  'Set up team meeting', 'Finish online course', 'Repaint the fence', 'Buy new running shoes', 'Polish the slides',
  'Assemble bookshelf', 'Pay credit card bill', 'Send invoice to client', 'Research summer camps', 'Defragment hard drive',
  'Prune the roses', 'Register for marathon', 'Clean the windows', 'Label storage boxes', 'Test smoke alarms',
  'Renew library card', 'Write cover letter', 'Buy stamps', 'Sharpen kitchen knives', 'Empty the dishwasher',
] as const;

export const TODO_NOTES = [
  'Before the weekend', 'Ask about the discount', 'Bring the receipt', 'Use the blue folder', 'Check the warranty first',
  'Second floor, room 204', 'Needs about an hour', 'Coordinate with Alex', 'Keep it under $50', 'Reminder from last week',
  'Compare three quotes', 'Take the old one along', 'Only on weekdays', 'Call before noon', 'Photos in the shared album',
  'Print two copies', 'Use the coupon code', 'Park at the back entrance', 'Double-check the address', 'Bring a tape measure',
] as const;
