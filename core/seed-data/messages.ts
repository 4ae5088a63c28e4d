import type { Rng } from '../util/rng.js';

/**
 * Text-message vocabulary: short exchanges for conversation history (lines alternate, the other
 * person first), messages the user is asked to send, and one-time-code senders. Every line is
 * distinct, so a checker can tell which message was forwarded or answered.
 */
export const DIALOGUES: ReadonlyArray<readonly string[]> = [
  ['Are we still on for lunch tomorrow?', 'Yes! 12:30 at the usual place?', 'Perfect, see you there'],
  ['Can you send me the photos from Saturday?', 'Sure, uploading them tonight', 'Thanks, no rush'],
  ['Running 10 minutes late, sorry!', 'No worries, I just got here'],
  ['Happy birthday!! Hope you have a great day', 'Thank you so much!'],
  ['Did you feed the cat this morning?', 'Yes, and I refilled the water bowl'],
  ['The package arrived, thanks a lot', 'Glad it made it in one piece'],
  ['What time does the game start?', 'Kick-off is at 7', 'Great, I will bring snacks'],
  ['Call me when you get a chance', 'Will do after my meeting'],
  ['Do you still have my umbrella?', 'I do, I will bring it on Monday'],
  ['Can you pick up milk on the way home?', 'Sure, anything else?', 'Maybe some bread too'],
  ['The meeting moved to Thursday at 3', 'Thanks for the heads up'],
  ['Is the car ready yet?', 'They said it will be done by Friday'],
  ['I left my charger at your place', 'Found it, it is on the kitchen table'],
  ['Movie night this weekend?', 'Count me in', 'Saturday at 8 then'],
  ['Your table for four is confirmed for 7:30 PM'],
  ['Did you get the tickets for the concert?', 'Yes, two seats in row F'],
  ['How was the trip?', 'Amazing, the hiking was beautiful', 'Show me the pictures soon'],
  ['Can I borrow your ladder on Sunday?', 'Of course, come by any time after 10'],
  ['Remember to water the plants while I am away', 'Will do, every other day right?', 'Yes, thank you!'],
  ['The plumber is coming at 9 tomorrow', 'OK, I will leave the key under the mat'],
  ['Want to go for a run before work?', 'Too early for me, how about after?'],
  ['Dinner is at my place on Friday', 'Should I bring dessert?', 'Yes please, maybe a pie'],
  ['I sent you the invoice by email', 'Got it, I will pay it this week'],
  ['Your prescription is ready for pickup'],
  ['Are you coming to the team barbecue?', 'Would not miss it'],
  ['Can you check if I left the stove on?', 'It is off, relax'],
];

/** Messages the user is asked to type and send. */
export const OUTGOING = [
  'I will be there in 15 minutes', 'Can we reschedule to next week?', 'Thanks for dinner last night!',
  'Please call me back when you are free', 'The keys are in the blue drawer', 'Running late, start without me',
  'Do you need anything from the store?', 'See you at the station at 6', 'Happy anniversary to you both!',
  'I just landed, heading home now', 'Let us meet at the coffee shop instead', 'Can you send me the address?',
  'The report is done, check your inbox', 'Good luck with the interview tomorrow', 'I found your wallet in my car',
  'Dinner is ready, come downstairs', 'Bring a jacket, it is cold tonight', 'The game was moved to Sunday',
  'Congrats on the new job!', 'I paid the rent for this month', 'Can you feed the dog at noon?',
  'Meeting room changed to 4B', 'Tickets are booked for Friday', 'Let me know when you are home',
] as const;

/** Messages someone sends while waiting for an answer (the unread run at the end of a thread). */
export const FOLLOW_UPS = [
  'Hello?', 'Did you see my last message?', 'Let me know either way', 'Also, bring the charger if you can',
  'Never mind, I found it', 'Are you around this evening?', 'Just tried calling you', 'No rush, whenever you can',
  'One more thing: the door code changed', 'Ping me when you are free',
] as const;

/** Services that text one-time codes, with the short codes they send from. */
export const CODE_SENDERS = [
  { service: 'Google', address: '22000' },
  { service: 'PayPal', address: '729725' },
  { service: 'Amazon', address: '262966' },
  { service: 'WhatsApp', address: '32665' },
  { service: 'Uber', address: '827222' },
  { service: 'Microsoft', address: '44444' },
] as const;

export function randomOutgoing(rng: Rng): string {
  return rng.pick(OUTGOING);
}

/** `count` distinct dialogues. */
export function randomDialogues(rng: Rng, count: number): Array<readonly string[]> {
  return rng.sample(DIALOGUES, count);
}

/** A six-digit one-time code. */
export function randomCode(rng: Rng): string {
  return String(rng.int(100000, 999999));
}
