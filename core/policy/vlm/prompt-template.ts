import { z } from 'zod';
import type { VlmFormatId } from './format.js';

/**
 * Prompt templates: the prompt a model was trained on, loaded at run time from where its authors ship
 * it (an installed Python package) or from a file the user keeps, never pasted into our code. The
 * template is the first user turn, with its placeholders filled; our own system prompt is then not
 * sent (the server's chat template adds its default system turn, as the models' own agents do).
 *
 * Loading happens once at the boundary (core/workbench/prompt-templates.ts: the CLI, the workbench),
 * which puts the text in the settings' `promptTemplateText`; this module only names, checks and fills.
 */

/** Packages that ship official templates: the module holding them, and the format their model answers in. */
export const TEMPLATE_PACKAGES = {
  'ui-tars': { module: 'ui_tars.prompt', format: 'ui-tars' },
} as const satisfies Record<string, { module: string; format: VlmFormatId }>;
export type TemplatePackage = keyof typeof TEMPLATE_PACKAGES;
const PACKAGE_IDS = Object.keys(TEMPLATE_PACKAGES) as [TemplatePackage, ...TemplatePackage[]];

export const PromptTemplateRef = z.union([
  z.strictObject({
    package: z.enum(PACKAGE_IDS).describe('A Python package that ships the template (ui-tars: the module ui_tars.prompt)'),
    name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a Python identifier').describe('The template\'s name in that module, e.g. MOBILE_USE_DOUBAO'),
    python: z.string().min(1).optional().describe('The Python with the package installed (default $AWB_PYTHON, else python3)'),
  }),
  z.strictObject({
    file: z.string().min(1).describe("A UTF-8 text file with the template, or a Python file of an agent's official code that holds it (presets: which)"),
    name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a Python identifier').optional()
      .describe("In a Python file: the string constant (mobilerl: AW_SYSTEM_PROMPT_THINKING) or the tool (qwen-cookbook: mobile_use) to read; default the agent's"),
  }),
]);
export type PromptTemplateRef = z.infer<typeof PromptTemplateRef>;

/** `ui-tars:MOBILE_USE_DOUBAO` or the file's path, for messages and the CLI. */
export function templateLabel(ref: PromptTemplateRef): string {
  if ('file' in ref) return ref.name ? `${ref.file}:${ref.name}` : ref.file;
  return `${ref.package}:${ref.name}`;
}

/** The CLI's `--prompt-template`: `PACKAGE:NAME` for a package we know, else a file path. */
export function templateRefFromArg(arg: string, resolvePath: (p: string) => string): PromptTemplateRef {
  const m = /^([a-z][\w-]*):([A-Za-z_]\w*)$/.exec(arg);
  if (m && m[1]! in TEMPLATE_PACKAGES) return { package: m[1] as TemplatePackage, name: m[2]! };
  return { file: resolvePath(arg) };
}

/** The placeholders a template may use, each `{name}` (Python's str.format spelling; `{{` and `}}` are braces). */
export const PROMPT_PLACEHOLDERS = {
  instruction: "the task's instruction",
  language: 'the language the model should think in (setting promptLanguage, default English)',
  history: 'earlier steps, one line each ("Step 1: …"); empty on the first step',
  app: 'the app in the foreground',
  screen_width: 'the device screen in pixels',
  screen_height: 'the device screen in pixels',
  frame_width: "the model's coordinate frame (1000 for relative-1000, the resized screenshot for smart-resize)",
  frame_height: "the model's coordinate frame",
} as const;
export type PromptPlaceholder = keyof typeof PROMPT_PLACEHOLDERS;
export type PromptValues = Record<PromptPlaceholder, string>;

/** A template that cannot be loaded or filled: a missing file or package, an unknown placeholder. */
export class PromptTemplateError extends Error {
  override name = 'PromptTemplateError';
  constructor(readonly template: string, readonly reason: string) {
    super(`Prompt template ${template}: ${reason}`);
  }
}

/** Settings that name a template whose text was not loaded at the boundary (a caller bug, not the user's). */
export class PromptTemplateNotLoadedError extends Error {
  override name = 'PromptTemplateNotLoadedError';
  constructor(readonly template: string) {
    super(`Prompt template ${template} is named but was not loaded (load it with withPromptTemplate before making the policy)`);
  }
}

type Piece = { text: string } | { name: PromptPlaceholder };

/** The template cut into text and placeholders; PromptTemplateError for an unknown name or a lone brace. */
function pieces(label: string, template: string): Piece[] {
  const out: Piece[] = [];
  let text = '';
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if ((c === '{' || c === '}') && template[i + 1] === c) {
      text += c;
      i++;
    } else if (c === '{') {
      const close = template.indexOf('}', i);
      const name = close < 0 ? undefined : template.slice(i + 1, close);
      if (name === undefined || !(name in PROMPT_PLACEHOLDERS)) {
        const shown = close < 0 ? template.slice(i, i + 20) : `{${name}}`;
        throw new PromptTemplateError(label, `unknown placeholder ${JSON.stringify(shown)} (known: ${Object.keys(PROMPT_PLACEHOLDERS).map((k) => `{${k}}`).join(', ')}; write {{ and }} for braces)`);
      }
      if (text) out.push({ text });
      text = '';
      out.push({ name: name as PromptPlaceholder });
      i = close;
    } else if (c === '}') {
      throw new PromptTemplateError(label, `a lone "}" at character ${i} (write }} for a brace)`);
    } else text += c;
  }
  if (text) out.push({ text });
  return out;
}

/** The placeholders a template uses (checking it: PromptTemplateError when it does not read). */
export function templatePlaceholders(label: string, template: string): Set<PromptPlaceholder> {
  return new Set(pieces(label, template).flatMap((p) => ('name' in p ? [p.name] : [])));
}

/** The template with its placeholders filled, as Python's str.format(**values) fills them. */
export function fillTemplate(label: string, template: string, values: PromptValues): string {
  return pieces(label, template).map((p) => ('name' in p ? values[p.name] : p.text)).join('');
}
