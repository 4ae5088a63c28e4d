import type { Rng } from '../util/rng.js';

/**
 * Expense vocabulary modelled on AndroidWorld's Pro Expense generator: names per category (at most
 * 20 characters, the app's name field limit), short notes, amounts in cents.
 */
export const EXPENSE_CATEGORY_NAMES = [
  'Others', 'Income', 'Food', 'Housing', 'Social', 'Entertainment', 'Transportation', 'Clothes', 'Health Care',
  'Education', 'Donation',
] as const;
export type ExpenseCategoryName = (typeof EXPENSE_CATEGORY_NAMES)[number];

/** Pro Expense's category ids (ExpenseCategory constants in the app). */
export const EXPENSE_CATEGORY_IDS: Record<ExpenseCategoryName, number> = {
  Others: 1, Income: 2, Food: 3, Housing: 4, Social: 5, Entertainment: 6, Transportation: 7, Clothes: 8,
  'Health Care': 9, Education: 10, Donation: 11,
};

export const EXPENSE_NAMES: Record<ExpenseCategoryName, readonly string[]> = {
  Others: ['Pet Supplies', 'Household Items', 'Stationery', 'Subscriptions', 'Membership Fees', 'Legal Fees', 'Emergency Repairs'],
  Income: ['Salary', 'Freelance Payment', 'Bonus', 'Dividends', 'Rental Income', 'Reimbursements', 'Consulting Fees'],
  Food: ['Restaurant Meal', 'Groceries', 'Coffee', 'Fast Food', 'Fine Dining', 'Bakery Items', 'Snacks', 'Food Delivery'],
  Housing: ['Rent Payment', 'Mortgage', 'Home Repairs', 'Property Taxes', 'Home Insurance', 'Furnishing', 'Pest Control'],
  Social: ['Dinner Party', 'Gift for Friend', 'Club Membership', 'Wedding Gift', 'Birthday Present', 'Night Out'],
  Entertainment: ['Concert Tickets', 'Movie Night', 'Theater Show', 'Streaming Services', 'Video Games', 'Museum Tickets'],
  Transportation: ['Taxi Fare', 'Public Transit Pass', 'Gas', 'Parking Fees', 'Car Maintenance', 'Flight Tickets', 'Bike Repairs'],
  Clothes: ['New Jacket', 'Shirt Purchase', 'Shoes', 'Dress', 'Jeans', 'Sportswear', 'Tailoring Services'],
  'Health Care': ['Doctor Visits', 'Medications', 'Dental Care', 'Eyecare', 'Gym Membership', 'Therapy Sessions'],
  Education: ['Tuition Fees', 'School Supplies', 'Textbooks', 'Online Courses', 'Workshops', 'Tutoring Services'],
  Donation: ['Charity', 'Fundraising Events', 'Sponsorships', 'Crowdfunding', 'Animal Shelter'],
};

export const EXPENSE_NOTES = [
  'Paid by card', 'Monthly payment', 'Shared with roommate', 'Discount applied', 'Urgent purchase', 'Weekend trip',
  'Gift for family', 'Reimbursable', 'Paid in cash', 'Annual plan', 'Needed for work', 'Split the bill',
] as const;

export interface ExpenseDraft {
  name: string;
  /** Cents, as the app stores amounts (an integer column scaled by 100). */
  amount: number;
  category: ExpenseCategoryName;
  note: string;
  /** Epoch ms (created_date = modified_date). */
  date: number;
}

/** 1 October 2023 00:00 UTC; AndroidWorld's expenses fall between the 1st and the device's today (the 15th). */
const OCT_1 = Date.UTC(2023, 9, 1);
const OCT_15_NOW = Date.UTC(2023, 9, 15, 15, 0);

/** "$123.45" for cents. */
export function dollars(cents: number): string {
  return `$${(cents / 100).toFixed(2)}`;
}

/** A random moment between 1 October and today, on a whole minute. */
export function randomExpenseTime(rng: Rng): number {
  const minutes = Math.floor((OCT_15_NOW - OCT_1) / 60_000);
  return OCT_1 + rng.int(0, minutes) * 60_000;
}

/** One expense; `category` fixed or drawn (Income excluded unless asked for). */
export function randomExpense(rng: Rng, opts: { category?: ExpenseCategoryName; withIncome?: boolean } = {}): ExpenseDraft {
  const pool = EXPENSE_CATEGORY_NAMES.filter((c) => opts.withIncome || c !== 'Income');
  const category = opts.category ?? rng.pick(pool);
  return {
    name: rng.pick(EXPENSE_NAMES[category]),
    amount: rng.int(1000, 50000),
    category,
    note: rng.pick(EXPENSE_NOTES),
    date: randomExpenseTime(rng),
  };
}

/** `count` expenses whose names are all different (and differ from `avoid`). */
export function randomExpenses(rng: Rng, count: number, opts: { avoid?: readonly string[]; category?: ExpenseCategoryName; notCategory?: ExpenseCategoryName } = {}): ExpenseDraft[] {
  const used = new Set((opts.avoid ?? []).map((n) => n.toLowerCase()));
  const out: ExpenseDraft[] = [];
  for (let guard = 0; out.length < count; guard++) {
    if (guard > 10_000) throw new Error(`Cannot draw ${count} distinct expenses`);
    const e = randomExpense(rng, opts.category ? { category: opts.category } : {});
    if (opts.notCategory === e.category || used.has(e.name.toLowerCase())) continue;
    used.add(e.name.toLowerCase());
    out.push(e);
  }
  return out;
}
