/**
 * The VLM policy's named errors. A format error is the model's fault (its output is not an action
 * in the format it was asked for): the episode records it as an unparseable step. An endpoint error
 * is nobody's verdict on the task (unreachable, too slow, HTTP errors, not a chat completion): the
 * policy throws it and the episode ends as a policy error, which training ignores.
 */

/** Output that is not an action of the format; `output` is the model's text, `reason` says what is wrong. */
export class VlmFormatError extends Error {
  override name = 'VlmFormatError';
  constructor(readonly format: string, readonly output: string, readonly reason: string) {
    super(`${format}: ${reason} (output: ${JSON.stringify(output.length > 160 ? `${output.slice(0, 159)}…` : output)})`);
  }
}

/** A point or box the model gave that falls outside the screen once scaled to device pixels. */
export class VlmCoordinateError extends VlmFormatError {
  override name = 'VlmCoordinateError';
  constructor(format: string, output: string, readonly point: readonly number[], readonly screen: { width: number; height: number }) {
    super(format, output, `point (${point.map((v) => Math.round(v * 10) / 10).join(', ')}) is outside the ${screen.width}x${screen.height} screen`);
  }
}

/** The endpoint gave no usable completion (after retries where retryable). The message never holds the API key. */
export class VlmEndpointError extends Error {
  override name = 'VlmEndpointError';
  constructor(readonly endpoint: string, readonly kind: 'endpoint' | 'reply', readonly reason: string, readonly attempts: number) {
    super(`Endpoint ${endpoint}: ${reason} (after ${attempts} attempt${attempts === 1 ? '' : 's'})`);
  }
}

/** A format id that is not in the registry. */
export class UnknownVlmFormatError extends Error {
  override name = 'UnknownVlmFormatError';
  constructor(readonly format: string, known: readonly string[]) {
    super(`Unknown VLM action format ${JSON.stringify(format)}; known: ${known.join(', ')}`);
  }
}

/** A named endpoint profile that does not exist, or a settings file that does not read. */
export class EndpointProfileError extends Error {
  override name = 'EndpointProfileError';
  constructor(readonly profile: string, reason: string) {
    super(`Endpoint profile ${JSON.stringify(profile)}: ${reason}`);
  }
}

/** The settings name an environment variable for the API key and it is unset. */
export class MissingApiKeyError extends Error {
  override name = 'MissingApiKeyError';
  constructor(readonly variable: string) {
    super(`The endpoint's API key is read from $${variable}, which is not set`);
  }
}
