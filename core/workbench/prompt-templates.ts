import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  PromptTemplateError, TEMPLATE_PACKAGES, templateLabel, templatePlaceholders, type PromptTemplateRef,
} from '../policy/vlm/prompt-template.js';
import { LoadedTool, type VlmAgentId, type VlmPolicySettings } from '../policy/vlm/settings.js';
import { loadAndroidWorldTexts } from './androidworld-prompts.js';

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

/**
 * Reads an official agent's Python source without running it (ast): \`constant NAME\` prints {"text"} for a top-level
 * string constant (string literals joined by +); \`tool NAME\` prints the class registered with @register_tool(NAME):
 * {"name", "description", "parametersJson"}, the description's f-string with the screen's width and height marked by
 * sentinels, the parameters dict as json.dumps(ensure_ascii=False) writes it. {"error", "names"} when NAME is not there.
 */
const READ_SOURCE = `
import ast, json, sys
kind, path, name = sys.argv[1:4]
tree = ast.parse(open(path, encoding="utf-8").read(), path)
def text(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return text(node.left) + text(node.right)
    raise ValueError("not a string literal")
def fstring(node):
    out = ""
    for v in node.values:
        if isinstance(v, ast.Constant):
            out += v.value
        elif isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Attribute) and v.value.attr in SENTINELS:
            out += SENTINELS[v.value.attr]
        else:
            raise ValueError("an f-string field other than the display size")
    return out
SENTINELS = {"display_width_px": "\\u0000frame_width\\u0000", "display_height_px": "\\u0000frame_height\\u0000"}
if kind == "constant":
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                found[node.targets[0].id] = text(node.value)
            except ValueError:
                pass
    print(json.dumps({"text": found[name]} if name in found else {"error": "missing", "names": sorted(k for k in found if k.isupper())}))
else:
    tools = {}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        for d in node.decorator_list:
            if isinstance(d, ast.Call) and getattr(d.func, "id", None) == "register_tool" and d.args and isinstance(d.args[0], ast.Constant):
                tools[d.args[0].value] = node
    if name not in tools:
        print(json.dumps({"error": "missing", "names": sorted(tools)}))
        sys.exit(0)
    description = parameters = None
    for item in tools[name].body:
        if isinstance(item, ast.FunctionDef) and item.name == "description":
            ret = next(s for s in item.body if isinstance(s, ast.Return)).value
            strip = isinstance(ret, ast.Call) and isinstance(ret.func, ast.Attribute) and ret.func.attr == "strip"
            node = ret.func.value if strip else ret
            description = fstring(node) if isinstance(node, ast.JoinedStr) else text(node)
            if strip:
                description = description.strip()
        elif isinstance(item, ast.Assign) and any(getattr(t, "id", None) == "parameters" for t in item.targets):
            parameters = ast.literal_eval(item.value)
    print(json.dumps({"name": name, "description": description, "parametersJson": json.dumps(parameters, ensure_ascii=False)}))
`;

const PYTHON_TIMEOUT_MS = 60_000;

/** The names an agent reads from its official Python file when the reference names none. */
const AGENT_DEFAULT_NAMES: Partial<Record<VlmAgentId, string>> = { mobilerl: 'AW_SYSTEM_PROMPT_THINKING', 'qwen-cookbook': 'mobile_use' };

export interface TemplateLoadOptions {
  /** The environment whose AWB_PYTHON names the default interpreter (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Whose prompt it is (the agent decides what a Python file's name means). Default 'workbench'. */
  agent?: VlmAgentId;
}

/**
 * The Python that has the packages: AWB_PYTHON, else the repository's .venv (what ./scripts/setup installs the
 * ui-tars package into), else python3 on PATH.
 */
export function defaultPython(env: NodeJS.ProcessEnv = process.env): string {
  if (env.AWB_PYTHON) return env.AWB_PYTHON;
  const venv = fileURLToPath(new URL('../../.venv/bin/python', import.meta.url));
  return existsSync(venv) ? venv : 'python3';
}

function runPython(label: string, python: string, code: string, args: string[], failed?: (last: string) => string): Record<string, unknown> {
  const r = spawnSync(python, ['-c', code, ...args], {
    encoding: 'utf8', timeout: PYTHON_TIMEOUT_MS, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
  });
  if (r.error) throw new PromptTemplateError(label, `cannot run ${python} (${r.error.message}); name the Python with the package in promptTemplate.python or AWB_PYTHON`);
  if (r.status !== 0) {
    const last = r.stderr.trim().split('\n').pop() ?? `exit ${r.status}`;
    throw new PromptTemplateError(label, failed ? failed(last) : `${python} failed: ${last}`);
  }
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

/** The template's text, checked (PromptTemplateError: no file, no package, no such template, bad placeholders). */
export function loadPromptTemplate(ref: PromptTemplateRef, opts: TemplateLoadOptions = {}): string {
  const label = templateLabel(ref);
  let text: string;
  if ('file' in ref && !ref.name && !ref.file.endsWith('.py')) {
    try {
      text = readFileSync(ref.file, 'utf8');
    } catch (e) {
      throw new PromptTemplateError(label, `cannot read the file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
  } else if ('file' in ref) {
    const name = ref.name ?? AGENT_DEFAULT_NAMES[opts.agent ?? 'workbench'];
    if (!name) throw new PromptTemplateError(label, 'a Python file needs the name of the string to read in it (promptTemplate.name)');
    if (!existsSync(ref.file)) throw new PromptTemplateError(label, 'cannot read the file (ENOENT)');
    const out = runPython(label, defaultPython(opts.env), READ_SOURCE, ['constant', ref.file, name]);
    if (typeof out.text !== 'string') throw new PromptTemplateError(label, `${ref.file} has no string ${name} (its upper-case strings: ${(out.names as string[]).join(', ') || 'none'})`);
    text = out.text;
  } else {
    const python = ref.python ?? defaultPython(opts.env);
    const { module } = TEMPLATE_PACKAGES[ref.package];
    const out = runPython(label, python, READ_TEMPLATE, [module, ref.name], (last) => `${python} cannot import ${module}: ${last} (is the ${ref.package} package installed there?)`);
    if (typeof out.text !== 'string') throw new PromptTemplateError(label, `${module} has no template ${ref.name} (its templates: ${(out.names as string[]).join(', ') || 'none'})`);
    text = out.text;
  }
  if (!text.trim()) throw new PromptTemplateError(label, 'the template is empty');
  if (opts.agent !== 'mobilerl') templatePlaceholders(label, text);
  return text;
}

/** The tool an agent reads from its official Python file (qwen-cookbook: the cookbook's mobile_use). */
export function loadPromptTool(ref: PromptTemplateRef, opts: TemplateLoadOptions = {}): LoadedTool {
  const label = templateLabel(ref);
  if (!('file' in ref)) throw new PromptTemplateError(label, "the Qwen cookbook's tool is read from its agent_function_call.py: give that file");
  if (!existsSync(ref.file)) throw new PromptTemplateError(label, 'cannot read the file (ENOENT)');
  const name = ref.name ?? AGENT_DEFAULT_NAMES['qwen-cookbook']!;
  const out = runPython(label, defaultPython(opts.env), READ_SOURCE, ['tool', ref.file, name]);
  if (out.error) throw new PromptTemplateError(label, `${ref.file} registers no tool ${name} (its tools: ${(out.names as string[]).join(', ') || 'none'})`);
  const tool = LoadedTool.safeParse(out);
  if (!tool.success || !tool.data.description) throw new PromptTemplateError(label, `${ref.file}: the ${name} tool has no description or parameters the reader understands`);
  return tool.data;
}

/** The settings with their named template (or tool) loaded (unchanged when they name none). */
export function withPromptTemplate(settings: VlmPolicySettings, opts: TemplateLoadOptions = {}): VlmPolicySettings {
  if (!settings.promptTemplate) return settings;
  const o = { ...opts, agent: settings.agent };
  if (settings.agent === 'qwen-cookbook') return { ...settings, promptTool: loadPromptTool(settings.promptTemplate, o) };
  if (settings.agent === 'androidworld-t3a' || settings.agent === 'androidworld-m3a') {
    return { ...settings, promptTexts: loadAndroidWorldTexts(settings.promptTemplate, settings.agent, defaultPython(opts.env)) };
  }
  return { ...settings, promptTemplateText: loadPromptTemplate(settings.promptTemplate, o) };
}
