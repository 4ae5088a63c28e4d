import { describe, expect, it } from 'vitest';
import { asksForCount, extractValues, isQuestion } from '../../core/policy/extract.js';

describe('extractValues', () => {
  it('takes quoted strings, without treating an apostrophe as a quote', () => {
    const v = extractValues(`Rename this device to "Priya's Phone".`);
    expect(v).toContain("Priya's Phone");
    expect(extractValues("Add a task in Tasks titled 'Water the plants'.")).toContain('Water the plants');
  });

  it('takes names as a whole and word by word, and skips command words', () => {
    const v = extractValues('Create a new contact for Grace Bauer. Their number is 846-987-9346.');
    expect(v).toEqual(expect.arrayContaining(['Grace Bauer', 'Grace', 'Bauer', '846-987-9346']));
    expect(v).not.toContain('Create');
  });

  it('keeps connector words inside names and splits list items after a colon', () => {
    const v = extractValues('Delete the following recipes from Broccoli app: Turkey and Cheese Panini, Zucchini Noodles with Pesto.');
    expect(v).toEqual(expect.arrayContaining(['Turkey and Cheese Panini', 'Zucchini Noodles with Pesto']));
  });

  it('takes key-value clauses, amounts, e-mails and file names', () => {
    const v = extractValues('Add a contact named Rahul Rossi, email rahul.rossi@pied.com. Expense: name Club Membership, amount $106.65, note Discount applied. Rename podcast_intro.m4a');
    expect(v).toEqual(expect.arrayContaining(['Club Membership', '106.65', 'Discount applied', 'rahul.rossi@pied.com', 'podcast_intro.m4a']));
  });

  it('splits times into hour and minute', () => {
    expect(extractValues('Set an alarm for 11:58 PM.')).toEqual(expect.arrayContaining(['11', '58']));
    expect(extractValues('create an event at 10h')).toEqual(expect.arrayContaining(['10', '00']));
  });

  it('takes the message after a colon, with and without its full stop, and phone numbers in brackets', () => {
    const v = extractValues('Send a text message to (341) 422-1301 with message: Finish chapter seven.');
    expect(v).toEqual(expect.arrayContaining(['(341) 422-1301', 'Finish chapter seven.', 'Finish chapter seven']));
  });

  it('is deterministic, deduplicated and capped', () => {
    const text = 'Add Alice Alice Bob 1 2 3 4 5 6 7 8 9 10 11 12';
    expect(extractValues(text)).toEqual(extractValues(text));
    expect(new Set(extractValues(text)).size).toBe(extractValues(text).length);
    expect(extractValues(text, 3)).toHaveLength(3);
  });
});

describe('question detection', () => {
  it('tells questions and counts from commands', () => {
    expect(isQuestion('What is Vera Smith\'s phone number?')).toBe(true);
    expect(isQuestion('Turn Wi-Fi on.')).toBe(false);
    expect(asksForCount('How many unread text messages do I have?')).toBe(true);
    expect(asksForCount('What is the device name?')).toBe(false);
  });
});
