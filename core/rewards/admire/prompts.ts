import type { DistillInput } from './distill.js';
import { placeholderValues } from './placeholders.js';

/**
 * The milestone prompts, written from ADMIRE's P_init (Fig. 14) and P_update (Fig. 15). Two changes,
 * both because we give no screenshots and key milestones by template: the "reference screenshots"
 * bullet is gone, and a legend lists the instance's values with the placeholder names to use, so the
 * answer's placeholders can be filled back exactly when matching (the paper lets the LLM pick
 * <Name>, <Date>, …).
 */

const legend = (input: DistillInput): string => {
  const values = placeholderValues(input.best.params).filter((v) => input.best.descriptions.some((d) => d.toLowerCase().includes(v.value.toLowerCase())));
  if (values.length === 0) return '';
  return `\nPlaceholders for this instance's values (use these names): ${values.map((v) => `<${v.name}> = ${JSON.stringify(v.value)}`).join(', ')}`;
};

const actions = (input: DistillInput) => input.best.descriptions.map((d, i) => `\n${i + 1}. ${d}`).join('');

export function initPrompt(input: DistillInput): string {
  return `You are an expert in mobile GUI operations. You will be given a successfully completed task trajectory, including:
* the task name and overall goal, and
* a sequence of action descriptions representing user interactions.

Your task is to identify only the **essential steps** required to accomplish the goal. Focus exclusively on actions that are absolutely necessary, and **ignore redundant or non-essential steps**.

Your objective is to distill these essential actions into a **concise list of milestones items** representing the key sub-tasks needed to complete the goal. These milestones:
* should represent **logically distinct stages** of progress toward the goal,
* must be **clear**,
* should be **short, non-overlapping, and non-redundant**, and
* must include **only necessary steps**.
* Keep important action-related keywords unchanged.

When task-specific details appear (such as names, dates, events, entries, files, or paths), replace them with generic placeholders like '<Name>', '<Date>', '<Event>', '<Entry>', '<File>', or '<Path>'.

Your final output must be a **strict JSON array** containing only these milestone strings.
Do **not** include any numbering, explanations, commentary, or other non-JSON content.
Focus on summarizing the **core actions** into a clean, abstract milestone — generalizable and free of specific details.
For example: "Locate the <Entry> on the page", "Input <Name> as the note name", "Navigate to the <Path> on the page".

Task: ${input.templateId}
User Instruction: ${input.best.instruction}
Example action descriptions from new trajectory (ordered; may be redundant):${actions(input)}${legend(input)}
Output the essential milestone as a strict JSON array.`;
}

export function updatePrompt(input: DistillInput, existing: readonly string[]): string {
  return `You are an expert in refining mobile GUI task milestones. You will be provided with the following information:
* the task name and overall goal,
* an existing milestone, and
* a set of action descriptions from a newly observed successful trajectory.

Your role is to analyze the new trajectory, filtering out any redundant or meaningless interactions and focusing only on actions that are **essential** for achieving the task's objective.

Your primary responsibility is to determine whether the **existing milestone** can be improved based on the new information.

By default, assume the current milestones are already sufficient. They should be revised **only** if the new trajectory clearly reveals **more minimal, precise, or effective** actions that better represent the essential steps.

If the existing milestone already provides a clear, general, and minimal set of essential steps, return it **unchanged**.

If an update is warranted, output the improved milestones as a **strict JSON array**. Each milestone must be:
* a short, **executable step** starting with an action verb,
* **non-redundant** and **clearly phrased**, and
* **generalized** by replacing task-specific details (e.g., names, dates, events, entries, paths) with placeholders such as '<Name>', '<Date>', '<Event>', '<Entry>', or '<Path>'.

Do **not** include any numbering, commentary, or text outside the JSON structure.
Your output must contain **only** the finalized milestones in valid JSON format.

Task: ${input.templateId}
User Instruction: ${input.best.instruction}
Existing milestone (JSON): ${JSON.stringify(existing)}
Example action descriptions from new trajectory (ordered; may be redundant):${actions(input)}${legend(input)}
Decide whether to keep the existing milestone or refine it. Output ONLY the final milestone as a strict JSON array.`;
}
