/**
 * What can be wrong with an ONNX policy model. Each error names the file and carries the bad value,
 * so `awb eval --policy model.onnx` and the API can say exactly what to fix.
 */

/** The file cannot be used at all: unreadable, not an ONNX model, not an awb policy export, or refused by ONNX Runtime. */
export class OnnxPolicyFileError extends Error {
  override name = 'OnnxPolicyFileError';
  constructor(readonly path: string, readonly problems: readonly string[]) {
    super(`Bad ONNX policy ${path}: ${problems.join('; ')}`);
  }
}

/** The model's dimensions disagree: with its own encoder config, or the graph's inputs/outputs with its metadata. */
export class OnnxPolicyDimsError extends Error {
  override name = 'OnnxPolicyDimsError';
  constructor(readonly path: string, message: string, readonly got: unknown) {
    super(`ONNX policy ${path}: ${message} (got ${JSON.stringify(got)})`);
  }
}

/** A forward call whose inputs do not fit the model: a feature matrix that is not n × F with n ≥ 1, or a bad temperature. */
export class OnnxInputShapeError extends Error {
  override name = 'OnnxInputShapeError';
  constructor(readonly path: string, message: string, readonly got: unknown) {
    super(`ONNX policy ${path}: ${message} (got ${JSON.stringify(got)})`);
  }
}

/** onnxruntime-node could not be imported (not installed, or its native binary missing for this platform). */
export class OnnxRuntimeUnavailableError extends Error {
  override name = 'OnnxRuntimeUnavailableError';
  constructor(readonly reason: string) {
    super(`onnxruntime-node is not available: ${reason}`);
  }
}

export function reasonOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
