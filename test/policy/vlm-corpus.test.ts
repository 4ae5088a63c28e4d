import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { VLM_FORMATS, VlmFormatError, type VlmFormatId } from '../../core/policy/vlm/index.js';

/**
 * Replies as each model writes them (test/policy/vlm-corpus/<format>.jsonl, one JSON object a line:
 * reply, screen [w, h], expect: the action that must execute, or {"error": fragment} for a reply that
 * must be a VlmFormatError whose message holds the fragment), parsed in the format's own coordinates
 * with no screenshot resize (the screenshot is the screen).
 */
interface CorpusLine {
  reply: string;
  screen: [number, number];
  expect: Record<string, unknown>;
  note: string;
  expectsAnswer?: boolean;
}

const FORMATS: VlmFormatId[] = ['qwen-mobile-use', 'mobilerl', 'androidworld'];

function lines(format: VlmFormatId): CorpusLine[] {
  const text = readFileSync(new URL(`./vlm-corpus/${format}.jsonl`, import.meta.url), 'utf8');
  return text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as CorpusLine);
}

function outcome(format: VlmFormatId, line: CorpusLine): { action?: unknown; error?: string } {
  const [width, height] = line.screen;
  const f = VLM_FORMATS[format];
  try {
    return f.parse(line.reply, { screen: { width, height }, coordinates: f.defaultCoordinates, expectsAnswer: line.expectsAnswer });
  } catch (e) {
    // Anything but a format error (a crash) fails the line.
    if (!(e instanceof VlmFormatError)) throw e;
    return { error: e.message };
  }
}

describe('reply corpus', () => {
  it('has at least 40 lines across the three formats, each with a note', () => {
    const all = FORMATS.flatMap(lines);
    expect(all.length).toBeGreaterThanOrEqual(40);
    for (const l of all) expect(l.note, JSON.stringify(l)).toBeTruthy();
  });

  for (const format of FORMATS) {
    it(`${format}: every line executes its expected action or is the expected format error`, () => {
      const wrong: string[] = [];
      for (const line of lines(format)) {
        const got = outcome(format, line);
        const ok = 'error' in line.expect
          ? typeof got.error === 'string' && got.error.includes(String(line.expect.error))
          : JSON.stringify(got.action) === JSON.stringify(line.expect) || isEqual(got.action, line.expect);
        if (!ok) wrong.push(`${line.note}: expected ${JSON.stringify(line.expect)}, got ${JSON.stringify(got.action ?? got)}`);
      }
      expect(wrong).toEqual([]);
    });
  }
});

function isEqual(a: unknown, b: unknown): boolean {
  try {
    expect(a).toEqual(b);
    return true;
  } catch {
    return false;
  }
}
