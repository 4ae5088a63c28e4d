import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PromptTemplateError, templateLabel, type PromptTemplateRef } from '../policy/vlm/prompt-template.js';
import { AndroidWorldTexts } from '../policy/vlm/settings.js';

/**
 * AndroidWorld's T3A and M3A prompts, read from the user's AndroidWorld checkout without running it (Python's ast):
 * the module's ACTION_SELECTION_PROMPT_TEMPLATE and its summary template (SUMMARIZATION_PROMPT_TEMPLATE in t3a.py,
 * SUMMARY_PROMPT_TEMPLATE in m3a.py), each string literals and earlier constants joined by +; from
 * _action_selection_prompt, the history's text before any step and the elements' stand-in; from the agent class's
 * step(), in source order, each text it stores as a step's summary: the fixed lines (string literals, or a literal +
 * the action type), and the f-string of a summarized step with its fields as {action} and {summary}.
 */
const READ_AGENT = `
import ast, json, sys
path, cls = sys.argv[1:3]
tree = ast.parse(open(path, encoding="utf-8").read(), path)
consts, funcs, step = {}, {}, None
def text(n):
    if isinstance(n, ast.Constant) and isinstance(n.value, str):
        return n.value
    if isinstance(n, ast.Name) and n.id in consts:
        return consts[n.id]
    if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add):
        return text(n.left) + text(n.right)
    raise ValueError("not a string")
def joined(n):
    out = ""
    for v in n.values:
        if isinstance(v, ast.Constant):
            out += v.value.replace("{", "{{").replace("}", "}}")
        elif isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Name):
            out += "{" + v.value.id + "}"
        else:
            raise ValueError("an f-string field other than a name")
    return out
for node in tree.body:
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        try:
            consts[node.targets[0].id] = text(node.value)
        except ValueError:
            pass
    elif isinstance(node, ast.FunctionDef):
        funcs[node.name] = node
    elif isinstance(node, ast.ClassDef) and node.name == cls:
        step = next((f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "step"), None)
out = {"action": consts.get("ACTION_SELECTION_PROMPT_TEMPLATE"), "summary": consts.get("SUMMARIZATION_PROMPT_TEMPLATE", consts.get("SUMMARY_PROMPT_TEMPLATE"))}
for n in ast.walk(funcs.get("_action_selection_prompt", ast.Module(body=[], type_ignores=[]))):
    if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", None) == "history" and isinstance(n.value, ast.Constant):
        out["noHistory"] = n.value.value
    if isinstance(n, ast.IfExp) and isinstance(n.orelse, ast.Constant) and isinstance(n.orelse.value, str):
        out["notAvailable"] = n.orelse.value
fixed = []
summaries = sorted((n for n in ast.walk(step or ast.Module(body=[], type_ignores=[])) if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Subscript)
    and getattr(n.targets[0].value, "id", None) == "step_data" and getattr(n.targets[0].slice, "value", None) == "summary"), key=lambda n: (n.lineno, n.col_offset))
for a in summaries:
    v = a.value
    if isinstance(v, ast.IfExp):
        v = v.body
    if isinstance(v, ast.JoinedStr):
        out["selected"] = joined(v)
    elif isinstance(v, ast.Constant) and isinstance(v.value, str):
        fixed.append(v.value)
    elif isinstance(v, ast.BinOp) and isinstance(v.op, ast.Add) and isinstance(v.left, ast.Constant):
        fixed.append(v.left.value)
out["fixed"] = fixed
out["classFound"] = step is not None
print(json.dumps(out))
`;

/** The fixed summaries step() stores, in its order: no Reason/Action, no JSONAction, index out of range, done (status), failed. */
const FIXED = ['notFormatted', 'notParsed', 'indexOutOfRange', 'completed', 'executeFailed'] as const;

const AGENTS = {
  'androidworld-t3a': { file: 't3a.py', cls: 'T3A' },
  'androidworld-m3a': { file: 'm3a.py', cls: 'M3A' },
} as const;
export type AndroidWorldAgentId = keyof typeof AGENTS;

/** The agent's file: the one given, or in a checkout's folder android_world/agents/<t3a|m3a>.py. */
function agentFile(ref: { file: string }, agent: AndroidWorldAgentId, label: string): string {
  if (!existsSync(ref.file)) throw new PromptTemplateError(label, 'cannot read the file (ENOENT)');
  if (!statSync(ref.file).isDirectory()) return ref.file;
  const inside = join(ref.file, 'android_world', 'agents', AGENTS[agent].file);
  if (!existsSync(inside)) throw new PromptTemplateError(label, `a folder without android_world/agents/${AGENTS[agent].file}: give AndroidWorld's checkout or that file`);
  return inside;
}

export function loadAndroidWorldTexts(ref: PromptTemplateRef, agent: AndroidWorldAgentId, python: string): AndroidWorldTexts {
  const label = templateLabel(ref);
  if (!('file' in ref)) throw new PromptTemplateError(label, `${agent} reads its prompts from AndroidWorld's ${AGENTS[agent].file}: give that file or the checkout`);
  const file = agentFile(ref, agent, label);
  const r = spawnSync(python, ['-c', READ_AGENT, file, AGENTS[agent].cls], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } });
  if (r.error) throw new PromptTemplateError(label, `cannot run ${python} (${r.error.message}); set AWB_PYTHON`);
  if (r.status !== 0) throw new PromptTemplateError(label, `${file} does not read as ${AGENTS[agent].file}: ${r.stderr.trim().split('\n').pop() ?? `exit ${r.status}`}`);
  const out = JSON.parse(r.stdout) as { fixed: string[]; classFound: boolean } & Record<string, unknown>;
  if (!out.classFound) throw new PromptTemplateError(label, `${file} has no class ${AGENTS[agent].cls} with a step() (is it AndroidWorld's ${AGENTS[agent].file}?)`);
  if (out.fixed.length !== FIXED.length) {
    throw new PromptTemplateError(label, `${AGENTS[agent].cls}.step() stores ${out.fixed.length} fixed summaries where ${FIXED.length} are known (${FIXED.join(', ')}): another version of AndroidWorld?`);
  }
  const { fixed, classFound: _c, ...texts } = out;
  const parsed = AndroidWorldTexts.safeParse({ ...texts, ...Object.fromEntries(FIXED.filter((k) => k !== 'completed').map((k) => [k, fixed[FIXED.indexOf(k)]])) });
  if (!parsed.success) {
    const missing = parsed.error.issues.map((i) => i.path.join('.')).join(', ');
    throw new PromptTemplateError(label, `${file}: could not read ${missing} (is it AndroidWorld's ${AGENTS[agent].file}?)`);
  }
  return parsed.data;
}
