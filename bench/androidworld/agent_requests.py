"""Checks the androidworld-t3a and androidworld-m3a presets' requests against AndroidWorld's own T3A and M3A code, on the
episodes of dump_agent_requests.ts: each step's action prompt is rebuilt by t3a/m3a._action_selection_prompt from the
screen's XML (representation_utils.xml_dump_to_ui_elements, the agents' element descriptions) and the history the agent
keeps (m3a_utils.parse_reason_action_output of each earlier reply, "Action selected: …. <summary reply>"); each summary
call's prompt by _summarize_prompt; M3A's set-of-marks by m3a_utils.add_ui_element_mark on the raw screenshot, and its
"after" label by add_screenshot_label, compared pixel by pixel.

AndroidWorld is not vendored: pass its checkout with --aw. Its modules that reach a model, adb or the environment are
stood in for (nothing of theirs is called); m3a_utils needs OpenCV (opencv-python-headless) for the marks.
"""

import argparse
import io
import json
import os
import sys
import types


def stub(name, **attrs):
  m = types.ModuleType(name)
  m.__dict__.update(attrs)
  sys.modules[name] = m
  return m


def import_agents(aw):
  sys.path.insert(0, aw)
  stub('android_world.agents.infer', LlmWrapper=object, MultimodalLlmWrapper=object)
  stub('android_world.env.adb_utils')
  stub('android_world.env.interface', AsyncEnv=object)
  stub('android_world.agents.base_agent', EnvironmentInteractingAgent=object, AgentInteractionResult=object)
  from android_world.agents import m3a, m3a_utils, t3a  # pylint: disable=import-outside-toplevel
  from android_world.env import representation_utils  # pylint: disable=import-outside-toplevel
  return t3a, m3a, m3a_utils, representation_utils


def main():
  p = argparse.ArgumentParser()
  p.add_argument('--aw', required=True, help='AndroidWorld checkout (google-research/android_world)')
  p.add_argument('dump', help='the folder dump_agent_requests.ts wrote')
  p.add_argument('--fixture', nargs=3, metavar=('PRESET', 'TEMPLATE', 'STEP'),
                 help="print AndroidWorld's own texts for a test fixture: the element descriptions of steps STEP-1 and STEP, "
                      'and the reason and action of each earlier reply as parse_reason_action_output reads them')
  args = p.parse_args()
  t3a, m3a, m3a_utils, ru = import_agents(args.aw)
  import numpy as np  # pylint: disable=import-outside-toplevel
  from PIL import Image  # pylint: disable=import-outside-toplevel

  def describe(kind, xml, size):
    els = ru.xml_dump_to_ui_elements(xml)
    if kind == 't3a':
      return els, t3a._generate_ui_elements_description_list_full(els, size)  # pylint: disable=protected-access
    return els, m3a._generate_ui_elements_description_list(els, size)  # pylint: disable=protected-access

  episodes = json.load(open(os.path.join(args.dump, 'episodes.json'), encoding='utf-8'))
  if args.fixture:
    preset, template, step = args.fixture[0], args.fixture[1], int(args.fixture[2])
    ep = next(e for e in episodes if e['preset'] == preset and e['template'] == template)
    kind = 't3a' if preset.endswith('t3a') else 'm3a'
    size = lambda st: (st['screen']['width'], st['screen']['height'])
    print(json.dumps({
        'elements': {str(k): describe(kind, ep['steps'][k]['xml'], size(ep['steps'][k]))[1] for k in (step - 1, step)},
        'replies': [m3a_utils.parse_reason_action_output(ep['steps'][k]['reply']) for k in range(step)],
    }, indent=1))
    return
  counts = {'action_prompts': 0, 'action_diff': 0, 'summary_prompts': 0, 'summary_diff': 0, 'marked_images': 0,
            'marked_diff_pixels': 0, 'marked_pixels': 0, 'marked_diff_outside_text': 0, 'label_diff_pixels': 0}
  for ep in episodes:
    kind = 't3a' if ep['preset'].endswith('t3a') else 'm3a'
    mod = t3a if kind == 't3a' else m3a
    history = []
    sep = ': ' if kind == 't3a' else '- '
    for k, st in enumerate(ep['steps']):
      size = (st['screen']['width'], st['screen']['height'])
      els, desc = describe(kind, st['xml'], size)
      summary = st.get('summary')
      if summary:
        prev = ep['steps'][summary['step']]
        reason, action = m3a_utils.parse_reason_action_output(prev['reply'])
        _, before = describe(kind, prev['xml'], size)
        if kind == 't3a':
          expected = t3a._summarize_prompt(ep['goal'], action, reason, before, desc)  # pylint: disable=protected-access
        else:
          expected = m3a._summarize_prompt(action, reason, ep['goal'], before, desc)  # pylint: disable=protected-access
        ours = summary['messages'][0]['content'][0]['text']
        counts['summary_prompts'] += 1
        if ours != expected:
          counts['summary_diff'] += 1
          print(f"{ep['preset']} {ep['template']} step {k}: the summary prompt differs")
        history.append('Step ' + str(len(history) + 1) + sep + f'Action selected: {action}. {summary["reply"]}')
      expected = mod._action_selection_prompt(ep['goal'], history, desc, None)  # pylint: disable=protected-access
      counts['action_prompts'] += 1
      if st['prompt'] != expected:
        counts['action_diff'] += 1
        print(f"{ep['preset']} {ep['template']} step {k}: the action prompt differs")
      if st.get('images'):
        base = os.path.join(args.dump, st['images'])
        raw = np.array(Image.open(base + '-raw.png').convert('RGB'))
        theirs = raw.copy()
        # Where either side writes an index: OpenCV's text box (getTextSize) at each putText, widened by 4 pixels
        # for the other font's glyphs.
        text_area = np.zeros(raw.shape[:2], bool)
        put_text = m3a_utils.cv2.putText
        def recording_put_text(img, text, org, font, scale, color, thickness):
          (w, h), base_line = m3a_utils.cv2.getTextSize(text, font, scale, thickness)
          text_area[max(0, org[1] - h - 4):max(0, org[1] + base_line + 4), max(0, org[0] - 4):max(0, org[0] + w + 4)] = True
          return put_text(img, text, org, font, scale, color, thickness=thickness)
        m3a_utils.cv2.putText = recording_put_text
        for i, e in enumerate(els):
          if m3a_utils.validate_ui_element(e, size):
            m3a_utils.add_ui_element_mark(theirs, e, i, size, (0, 0, size[0], size[1]), 0)
        m3a_utils.cv2.putText = put_text
        ours = np.array(Image.open(base + '-som.png').convert('RGB'))
        diff = (ours != theirs).any(axis=2)
        counts['marked_images'] += 1
        counts['marked_pixels'] += int((theirs != raw).any(axis=2).sum())
        counts['marked_diff_pixels'] += int(diff.sum())
        counts['marked_diff_outside_text'] += int((diff & ~text_area).sum())
        labelled = raw.copy()
        m3a_utils.add_screenshot_label(labelled, 'after')
        counts['label_diff_pixels'] += int((np.array(Image.open(base + '-label.png').convert('RGB')) != labelled).any(axis=2).sum())
  print(json.dumps(counts))


if __name__ == '__main__':
  main()
