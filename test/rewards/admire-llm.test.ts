import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LlmDistiller, LlmEndpointError, MilestoneAnswerError, parseMilestoneAnswer } from '../../core/rewards/admire/llm.js';
import type { DistillInput } from '../../core/rewards/admire/distill.js';
import { replyChat, startFakeChat, type FakeChat, type FakeChatRequest } from '../helpers/fake-chat.js';

/** Each request to the fake endpoint is answered by the next handler in the script. */
type Handler = (req: FakeChatRequest, res: ServerResponse) => void;
let fake: FakeChat;
let base: string;
let script: Handler[];
let requests: FakeChatRequest[];

const reply = (content: string): Handler => (_r, res) => replyChat(res, content);
const status = (code: number): Handler => (_r, res) => res.writeHead(code).end(`status ${code}`);
const hang: Handler = () => {};

beforeEach(async () => {
  script = [];
  fake = await startFakeChat((r, res) => {
    const h = script.shift();
    if (!h) res.writeHead(500).end('script exhausted');
    else h(r, res);
  });
  requests = fake.requests;
  base = `${fake.url}/v1`;
});
afterEach(() => fake.close());

const input = (existing: string[] | null): DistillInput => ({
  templateId: 'ContactsAddContact',
  best: { instruction: 'Create a new contact for Grace Bauer.', params: { person: { name: 'Grace Bauer' } }, descriptions: ['Open Contacts', 'Type "Grace Bauer" into "name" in Contacts', 'Tap "Save" in Contacts'] },
  exemplars: [],
  existing,
});
const fast = { model: 'gpt-4o', timeoutMs: 300, retries: 2, backoffMs: 10 };

describe('LlmDistiller against a fake endpoint', () => {
  it('sends P_init with the task, instruction, actions and placeholder legend, and parses a fenced JSON array', async () => {
    script = [reply('```json\n["Open Contacts", "Input <PersonName> as the contact name", "Tap Save"]\n```')];
    const d = new LlmDistiller({ ...fast, baseUrl: base, apiKey: 'k1' });
    expect(await d.distill(input(null))).toEqual(['Open Contacts', 'Input <PersonName> as the contact name', 'Tap Save']);
    const [r] = requests;
    expect(r!.path).toBe('/v1/chat/completions');
    expect(r!.auth).toBe('Bearer k1');
    expect(r!.body.model).toBe('gpt-4o');
    const prompt = r!.body.messages[0]!.content;
    expect(prompt).toContain('identify only the **essential steps**');
    expect(prompt).toContain('Task: ContactsAddContact');
    expect(prompt).toContain('2. Type "Grace Bauer" into "name" in Contacts');
    expect(prompt).toContain('<PersonName> = "Grace Bauer"');
  });

  it('sends P_update with the existing milestones when there are some', async () => {
    script = [reply('["Open Contacts"]')];
    await new LlmDistiller({ ...fast, baseUrl: base }).distill(input(['Open Contacts', 'Tap Save']));
    const prompt = requests[0]!.body.messages[0]!.content;
    expect(prompt).toContain('Existing milestone (JSON): ["Open Contacts","Tap Save"]');
    expect(prompt).toContain('return it **unchanged**');
  });

  it('retries 5xx, 429 and a timeout with backoff, then succeeds', async () => {
    script = [status(503), hang, status(429), reply('["a"]')];
    const d = new LlmDistiller({ ...fast, baseUrl: base, retries: 3 });
    expect(await d.distill(input(null))).toEqual(['a']);
    expect(requests).toHaveLength(4);
  });

  it('gives up with LlmEndpointError after the retries, naming the last failure', async () => {
    script = [status(500), status(502), status(500)];
    const err = await new LlmDistiller({ ...fast, baseUrl: base }).distill(input(null)).catch((e) => e);
    expect(err).toBeInstanceOf(LlmEndpointError);
    expect(err).toMatchObject({ attempts: 3 });
    expect(err.message).toContain('HTTP 500');
  });

  it('does not retry a 400, and a dead endpoint is an LlmEndpointError too', async () => {
    script = [status(400), reply('["never"]')];
    await expect(new LlmDistiller({ ...fast, baseUrl: base }).distill(input(null))).rejects.toMatchObject({ name: 'LlmEndpointError', attempts: 1 });
    expect(requests).toHaveLength(1);
    const dead = new LlmDistiller({ ...fast, baseUrl: 'http://127.0.0.1:9/v1', retries: 1 });
    await expect(dead.distill(input(null))).rejects.toBeInstanceOf(LlmEndpointError);
  });

  it('a garbage answer is a MilestoneAnswerError carrying it, not retried', async () => {
    script = [reply('Sure! Here are the milestones: 1. Open Contacts'), reply('["x"]')];
    const err = await new LlmDistiller({ ...fast, baseUrl: base }).distill(input(null)).catch((e) => e);
    expect(err).toBeInstanceOf(MilestoneAnswerError);
    expect(err.answer).toContain('Sure!');
    expect(requests).toHaveLength(1);
    script = [(_r, res) => res.writeHead(200).end('{"no": "choices"}')];
    await expect(new LlmDistiller({ ...fast, baseUrl: base }).distill(input(null))).rejects.toBeInstanceOf(MilestoneAnswerError);
  });
});

describe('parseMilestoneAnswer', () => {
  it.each([
    ['{"milestones": ["a"]}', 'not an array'],
    ['[]', 'empty array'],
    ['["a", 3]', 'non-empty string'],
    ['["a", "  "]', 'non-empty string'],
    ['[oops', 'not JSON'],
  ])('refuses %s', (answer, reason) => {
    expect(() => parseMilestoneAnswer(answer)).toThrow(reason);
  });

  it('refuses more items than the limit', () => {
    expect(() => parseMilestoneAnswer(JSON.stringify(['a', 'b', 'c']), 2)).toThrow('3 items');
  });
});
