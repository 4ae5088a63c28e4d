/**
 * Stand-ins for AndroidWorld's agent files (android_world/agents/t3a.py, m3a.py) in their shape, with text of our own
 * (theirs is not ours to copy): the templates as module constants joined by +, _action_selection_prompt and
 * _summarize_prompt as AndroidWorld writes them (the history's text before any step, the elements' stand-in), and the
 * agent class's step() storing its fixed summaries and the summarized step's f-string in AndroidWorld's order. The
 * workbench's reader (core/workbench/androidworld-prompts.ts) reads them as it reads the real files.
 */
/** The stand-ins' line of a summarized step (their f-string, read from the file like the real one). */
export const SELECTED = (action: string, summary: string) => `Chose ${action} -> ${summary}`;

/** A stand-in agent file in the shape of AndroidWorld's t3a.py / m3a.py: templates, the two prompt functions, step()'s summaries. */
export function standInAgentFile(kind: 't3a' | 'm3a'): string {
  const t3a = kind === 't3a';
  const elements = t3a ? 'ui_elements_description' : 'ui_elements';
  return [
    'PROMPT_PREFIX = (',
    `    'Stand-in ${kind} prompt. Answer as'`,
    `    ' \`{{"action_type": "status", "goal_status": "complete"}}\` when done.\\n'`,
    ')',
    "GUIDANCE = ('Stand-in guidance: ünïcode and {{braces}} stay.\\n')",
    'ACTION_SELECTION_PROMPT_TEMPLATE = (',
    '    PROMPT_PREFIX',
    "    + '\\nGoal: {goal}\\n\\nHistory:\\n{history}\\n\\n'",
    `    'Elements:\\n{${elements}}\\n'`,
    '    + GUIDANCE',
    "    + '{additional_guidelines}'",
    "    + '\\nAnswer with Reason: and Action:.\\n'",
    ')',
    `${t3a ? 'SUMMARIZATION_PROMPT_TEMPLATE' : 'SUMMARY_PROMPT_TEMPLATE'} = (`,
    "    PROMPT_PREFIX + '\\nGoal: {goal}\\nBefore:\\n{before_elements}\\nAfter:\\n{after_elements}\\n'",
    "    'Action: {action}\\nReason: {reason}\\n\\nSummary: '",
    ')',
    '',
    `def _action_selection_prompt(goal, history, ${elements}, additional_guidelines=None):`,
    '  if history:',
    "    history = '\\n'.join(history)",
    '  else:',
    "    history = 'Stand-in: nothing done yet.'",
    "  extra_guidelines = ''",
    '  if additional_guidelines:',
    "    extra_guidelines = 'Stand-in guidelines:\\n'",
    '  return ACTION_SELECTION_PROMPT_TEMPLATE.format(',
    `      goal=goal, history=history, ${elements}=${elements} if ${elements} else 'Stand-in: no elements',`,
    '      additional_guidelines=extra_guidelines)',
    '',
    t3a ? 'def _summarize_prompt(goal, action, reason, before_elements, after_elements):' : 'def _summarize_prompt(action, reason, goal, before_elements, after_elements):',
    `  return ${t3a ? 'SUMMARIZATION_PROMPT_TEMPLATE' : 'SUMMARY_PROMPT_TEMPLATE'}.format(goal=goal, action=action, reason=reason,`,
    t3a ? "      before_elements=before_elements if before_elements else 'Stand-in: no elements',"
      : '      before_elements=before_elements,',
    t3a ? "      after_elements=after_elements if after_elements else 'Stand-in: no elements')" : '      after_elements=after_elements)',
    '',
    `class ${kind.toUpperCase()}:`,
    '  def step(self, goal):',
    "    step_data = {'summary': None}",
    "    step_data['summary'] = ('Stand-in: no Reason/Action.')",
    "    step_data['summary'] = 'Stand-in: no JSONAction.'",
    "    step_data['summary'] = 'Stand-in: index past the list.'",
    "    step_data['summary'] = 'Stand-in: done.'",
    t3a ? "    step_data['summary'] = ('Stand-in: could not do ' + converted_action.action_type)" : "    step_data['summary'] = 'Stand-in: could not do it.'",
    ...(t3a ? [] : ["    step_data['summary'] = ('Stand-in: no summary: %s' % summary)"]),
    "    step_data['summary'] = (f'Chose {action} -> {summary}' if raw_response else 'Stand-in: no summary.')",
  ].join('\n');
}

