import type { Rng } from '../util/rng.js';

/** Shared parameter vocabularies, so templates draw realistic, varied values from a seed. */
export const FIRST_NAMES = [
  'Alice', 'Bob', 'Carol', 'David', 'Emma', 'Frank', 'Grace', 'Henry', 'Isabel', 'Jack', 'Karen', 'Liam', 'Maria',
  'Noah', 'Olivia', 'Peter', 'Quinn', 'Rosa', 'Samuel', 'Tara', 'Umar', 'Vera', 'William', 'Xena', 'Yusuf', 'Zoe',
  'Aisha', 'Bruno', 'Chloe', 'Diego', 'Elena', 'Felix', 'Hana', 'Ivan', 'Julia', 'Kenji', 'Leila', 'Marco', 'Nina',
  'Omar', 'Priya', 'Rahul', 'Sofia', 'Tomas', 'Uma', 'Victor', 'Wen', 'Yara',
] as const;

export const LAST_NAMES = [
  'Anderson', 'Brown', 'Chen', 'Davis', 'Evans', 'Fischer', 'Garcia', 'Hughes', 'Ito', 'Johnson', 'Kim', 'Lopez',
  'Martin', 'Nguyen', 'Okafor', 'Patel', 'Quinn', 'Rossi', 'Smith', 'Taylor', 'Usman', 'Vargas', 'Walker', 'Xu',
  'Young', 'Zhang', 'Bauer', 'Costa', 'Dubois', 'Kowalski', 'Larsen', 'Moreau', 'Novak', 'Silva', 'Tanaka', 'Weber',
] as const;

export interface Person {
  first: string;
  last: string;
  name: string;
  phone: string;
}

/** A 10-digit North American number written as AndroidWorld's tasks write them: "+1 555-0123" style digits only. */
export function randomPhone(rng: Rng): string {
  const area = rng.int(201, 989);
  const mid = rng.int(200, 999);
  const end = rng.int(0, 9999);
  return `${area}${mid}${String(end).padStart(4, '0')}`;
}

/** `count` people with distinct names and numbers. */
export function randomPeople(rng: Rng, count: number): Person[] {
  const out: Person[] = [];
  const names = new Set<string>();
  const phones = new Set<string>();
  while (out.length < count) {
    const first = rng.pick(FIRST_NAMES);
    const last = rng.pick(LAST_NAMES);
    const name = `${first} ${last}`;
    const phone = randomPhone(rng);
    if (names.has(name) || phones.has(phone) || [...names].some((n) => n.startsWith(`${first} `))) continue;
    names.add(name);
    phones.add(phone);
    out.push({ first, last, name, phone });
  }
  return out;
}

export function emailFor(p: { first: string; last: string }, domain = 'example.com'): string {
  return `${p.first.toLowerCase()}.${p.last.toLowerCase()}@${domain}`;
}
