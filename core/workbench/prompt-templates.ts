import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import {
  PromptTemplateError, TEMPLATE_PACKAGES, templateLabel, templatePlaceholders, type PromptTemplateRef,
} from '../policy/vlm/prompt-template.js';
import type { VlmPolicySettings } from '../policy/vlm/settings.js';

/**
 * Loading a VLM prompt template, once, where a run starts (the CLI, the workbench's sessions, endpoint
 * tests and online jobs): the policy gets the text in its settings and never spawns anything. An
 * official template is read from the installed package by its own Python, so the text is whatever
 * the installed version ships; a file is read as UTF-8.
 */

/** Prints {"text": …} for a string attribute of the module, else {"error": …, "names": [its upper-case strings]}. */
const READ_TEMPLATE = `
import importlib, json, sys
module = importlib.import_module(sys.argv[1])
value = getattr(module, sys.argv[2], None)
if isinstance(value, str):
    print(json.dumps({"text": value}))
else:
    names = sorted(k for k, v in vars(module).items() if isinstance(v, str) and k.isupper())
    print(json.dumps({"error": "missing", "names": names}))
`;

const PYTHON_TIMEOUT_MS = 60_000;

export interface TemplateLoadOptions {
  /** The environment whose AWB_PYTHON names the default interpreter (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/** The template's text, checked (PromptTemplateError: no file, no package, no such template, bad placeholders). */
export function loadPromptTemplate(ref: PromptTemplateRef, opts: TemplateLoadOptions = {}): string {
  const label = templateLabel(ref);
  let text: string;
  if ('file' in ref) {
    try {
      text = readFileSync(ref.file, 'utf8');
    } catch (e) {
      throw new PromptTemplateError(label, `cannot read the file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
  } else {
    const python = ref.python ?? (opts.env ?? process.env).AWB_PYTHON ?? 'python3';
    const { module } = TEMPLATE_PACKAGES[ref.package];
    const r = spawnSync(python, ['-c', READ_TEMPLATE, module, ref.name], {
      encoding: 'utf8', timeout: PYTHON_TIMEOUT_MS, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
    });
    if (r.error) throw new PromptTemplateError(label, `cannot run ${python} (${r.error.message}); name the Python with the package in promptTemplate.python or AWB_PYTHON`);
    if (r.status !== 0) {
      const last = r.stderr.trim().split('\n').pop() ?? `exit ${r.status}`;
      throw new PromptTemplateError(label, `${python} cannot import ${module}: ${last} (is the ${ref.package} package installed there?)`);
    }
    const out = JSON.parse(r.stdout) as { text: string } | { error: string; names: string[] };
    if (!('text' in out)) throw new PromptTemplateError(label, `${module} has no template ${ref.name} (its templates: ${out.names.join(', ') || 'none'})`);
    text = out.text;
  }
  if (!text.trim()) throw new PromptTemplateError(label, 'the template is empty');
  templatePlaceholders(label, text);
  return text;
}

/** The settings with their named template loaded into promptTemplateText (unchanged when they name none). */
export function withPromptTemplate(settings: VlmPolicySettings, opts: TemplateLoadOptions = {}): VlmPolicySettings {
  if (!settings.promptTemplate) return settings;
  return { ...settings, promptTemplateText: loadPromptTemplate(settings.promptTemplate, opts) };
}
