/** The VLM policy: action formats, settings, endpoint profiles, the client and the policy (docs/policy-vlm.md). */
export { VLM_FORMAT_IDS, VlmFormatId, type ActionFormat, type FormatSample, type ParseContext, type ParsedOutput } from './format.js';
export { VLM_FORMATS, vlmFormat } from './formats/index.js';
export { COORDINATE_SPACES, CoordinateSpace, smartResize, SmartResizeError, pngSize, toScreen, fromScreen } from './geometry.js';
export { VlmFormatError, VlmCoordinateError, VlmEndpointError, UnknownVlmFormatError, EndpointProfileError, MissingApiKeyError } from './errors.js';
export { VlmEndpointSettings, VlmPolicySettings, type VlmPolicySettingsInput } from './settings.js';
export { VLM_SERVERS, VlmServer, pixelFields } from './server.js';
export { EndpointProfiles, type EndpointProfile } from './profiles.js';
export { PlainFileSecretStore, type SecretStore } from '../../util/secret-store.js';
export { VlmClient, resolveApiKey, type Completion } from './client.js';
export { VlmPolicy, VlmScreenshotMissingError, malformedDecision, type VlmExchange } from './policy.js';
export { buildMessages, elementsText, pngDataUrl, type ChatMessage } from './prompt.js';
export {
  PromptTemplateRef, PromptTemplateError, PromptTemplateNotLoadedError, PROMPT_PLACEHOLDERS, TEMPLATE_PACKAGES, fillTemplate, templateLabel, templatePlaceholders,
} from './prompt-template.js';
