import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type WritableDB } from '../../core/store/db.js';
import { abstractDescription, fillPlaceholders, placeholderValues } from '../../core/rewards/admire/placeholders.js';
import { ConsensusDistiller, consensusMilestones, type DistillInput, type MilestoneDistiller } from '../../core/rewards/admire/distill.js';
import { MilestoneMemory } from '../../core/rewards/admire/memory.js';
import { MemoryMilestoneStore, MilestoneVersionError, SqliteMilestoneStore } from '../../core/rewards/admire/milestone-store.js';

const contact = { person: { first: 'Grace', last: 'Bauer', name: 'Grace Bauer' }, number: '846-987-9346', others: [{ name: 'Rosa Tanaka' }], day: 29 };

describe('placeholders', () => {
  const values = placeholderValues(contact);

  it('are named after the parameter path, longest value first', () => {
    expect(values.slice(0, 2)).toEqual([{ name: 'Number', value: '846-987-9346' }, { name: 'PersonName', value: 'Grace Bauer' }]);
    expect(values).toContainEqual({ name: 'Others0Name', value: 'Rosa Tanaka' });
    expect(values).toContainEqual({ name: 'Day', value: '29' });
  });

  it('replace whole values inside quotes only, and fill back from another instance', () => {
    const a = abstractDescription('Tap "Grace Bauer" in Contacts', values);
    expect(a).toBe('Tap "<PersonName>" in Contacts');
    expect(abstractDescription('Type "Grace" into "first name" in Contacts', values)).toBe('Type "<PersonFirst>" into "first name" in Contacts');
    // "29" outside quotes and inside a longer word stays
    expect(abstractDescription('Scroll 29 "Gracefully" in Files', values)).toBe('Scroll 29 "Gracefully" in Files');
    const other = placeholderValues({ person: { first: 'Zoe', last: 'Ito', name: 'Zoe Ito' } });
    expect(fillPlaceholders(a, other)).toBe('Tap "Zoe Ito" in Contacts');
    expect(fillPlaceholders('Tap "<Unknown>"', other)).toBe('Tap "<Unknown>"');
  });
});

describe('consensus distiller', () => {
  it('keeps the steps most successes share, in order, and drops detours, repeats and the status step', () => {
    const ex = [
      ['Open Contacts', 'Tap "<PersonName>" in Contacts', 'Tap "Star" in Contacts', 'Declare the task complete'],
      ['Open Contacts', 'Scroll down in Contacts', 'Tap "<PersonName>" in Contacts', 'Tap "Star" in Contacts', 'Tap "Star" in Contacts'],
      ['Open Contacts', 'Go back in Contacts', 'Open Contacts', 'Tap "<PersonName>" in Contacts', 'Go back in Contacts', 'Tap "<PersonName>" in Contacts', 'Tap "Star" in Contacts'],
    ];
    expect(consensusMilestones(ex)).toEqual(['Open Contacts', 'Tap "<PersonName>" in Contacts', 'Tap "Star" in Contacts']);
  });

  it('with quorum 1 a step missing from one success drops out', () => {
    const ex = [['Open Files', 'Tap "Sort" in Files', 'Tap "<Folder>" in Files'], ['Open Files', 'Tap "<Folder>" in Files', 'Tap "Sort" in Files', 'Tap "x" in Files']];
    expect(consensusMilestones(ex, 1)).toEqual(['Open Files', 'Tap "<Folder>" in Files']);
    expect(consensusMilestones(ex, 0.5)).toEqual(['Open Files', 'Tap "Sort" in Files', 'Tap "<Folder>" in Files']);
    expect(() => new ConsensusDistiller(0)).toThrow(RangeError);
  });
});

const success = (name: string, extra: string[] = []) => ({
  instruction: `Star ${name}`, params: { person: { name } }, descriptions: ['Open Contacts', ...extra, `Tap "${name}" in Contacts`, 'Tap "Star" in Contacts'],
});

describe('milestone memory', () => {
  let db: WritableDB | undefined;
  afterEach(() => db?.close());

  it('distils a first version, keeps it when a success agrees, bumps the version when the consensus changes, and persists', async () => {
    db = openStore(':memory:');
    let t = 1000;
    const memory = new MilestoneMemory(new SqliteMilestoneStore(db), new ConsensusDistiller(), { now: () => t++, keepExemplars: 4 });
    expect(memory.get('ContactsStar')).toBeNull();
    const r1 = await memory.refine('ContactsStar', [success('Grace Bauer', ['Tap "Search" in Contacts']), success('Zoe Ito', ['Tap "Search" in Contacts'])]);
    expect(r1).toMatchObject({ version: 1, changed: true });
    expect(r1.milestones).toEqual(['Open Contacts', 'Tap "Search" in Contacts', 'Tap "<PersonName>" in Contacts', 'Tap "Star" in Contacts']);
    const r2 = await memory.refine('ContactsStar', [success('Ana Ruiz', ['Tap "Search" in Contacts'])]);
    expect(r2).toMatchObject({ version: 1, changed: false });
    // a shorter path (straight to the contact) becomes the anchor: the search step is no longer a milestone
    const r3 = await memory.refine('ContactsStar', [success('Li Wei'), success('Omar Haddad')]);
    expect(r3).toMatchObject({ version: 2, changed: true, milestones: ['Open Contacts', 'Tap "<PersonName>" in Contacts', 'Tap "Star" in Contacts'] });
    expect(await memory.refine('ContactsStar', [success('Eva Novak')])).toMatchObject({ version: 2, changed: false });
    const reopened = new SqliteMilestoneStore(db);
    expect(reopened.versions('ContactsStar').map((v) => [v.version, v.milestones.length, v.distiller])).toEqual([[1, 4, 'consensus'], [2, 3, 'consensus']]);
    expect(reopened.exemplars('ContactsStar')).toHaveLength(4);
    expect(reopened.templates()).toEqual(['ContactsStar']);
  });

  it('refuses a version that is not the next one', () => {
    const store = new MemoryMilestoneStore();
    const v = { templateId: 'T', version: 2, milestones: ['a'], distiller: 'consensus' as const, successes: 1, createdAt: 0 };
    expect(() => store.putVersion(v)).toThrow(MilestoneVersionError);
    db = openStore(':memory:');
    expect(() => new SqliteMilestoneStore(db!).putVersion(v)).toThrow(MilestoneVersionError);
  });

  it('hands the distiller the fewest-step success, every kept exemplar and the existing list', async () => {
    const seen: DistillInput[] = [];
    const spy: MilestoneDistiller = { kind: 'llm', distill: async (input) => (seen.push(input), [`v${seen.length}`]) };
    const memory = new MilestoneMemory(new MemoryMilestoneStore(), spy);
    await memory.refine('T', [success('Long Name', ['Go back in Contacts', 'Open Contacts']), success('Zoe Ito')]);
    await memory.refine('T', [success('Ana Ruiz')]);
    expect(seen[0]!.best.instruction).toBe('Star Zoe Ito');
    expect(seen[0]!.existing).toBeNull();
    expect(seen[1]!.existing).toEqual(['v1']);
    expect(seen[1]!.exemplars).toHaveLength(3);
    expect(memory.get('T')).toMatchObject({ version: 2, milestones: ['v2'], distiller: 'llm' });
  });
});
