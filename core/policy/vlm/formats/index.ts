import { UnknownVlmFormatError } from '../errors.js';
import { VLM_FORMAT_IDS, type ActionFormat, type VlmFormatId } from '../format.js';
import { androidWorldFormat } from './androidworld.js';
import { mobileRlFormat } from './mobilerl.js';
import { qwenMobileUseFormat } from './qwen-mobile-use.js';
import { uiTarsFormat } from './ui-tars.js';

/** The action formats, as data: one entry each (id, description, prompt, parse, render, samples). */
export const VLM_FORMATS: { readonly [K in VlmFormatId]: ActionFormat & { id: K } } = {
  androidworld: androidWorldFormat as ActionFormat & { id: 'androidworld' },
  'ui-tars': uiTarsFormat as ActionFormat & { id: 'ui-tars' },
  mobilerl: mobileRlFormat as ActionFormat & { id: 'mobilerl' },
  'qwen-mobile-use': qwenMobileUseFormat as ActionFormat & { id: 'qwen-mobile-use' },
};

export function vlmFormat(id: string): ActionFormat {
  if (!(VLM_FORMAT_IDS as readonly string[]).includes(id)) throw new UnknownVlmFormatError(id, VLM_FORMAT_IDS);
  return VLM_FORMATS[id as VlmFormatId];
}
