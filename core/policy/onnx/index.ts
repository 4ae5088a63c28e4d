/** ONNX export and ONNX Runtime scoring of the builtin policy (issue 8). */
export { exportPolicyOnnx, ONNX_OPSET, policyOnnxBytes, scorerOnnxBytes } from './export.js';
export { OnnxInputShapeError, OnnxPolicyDimsError, OnnxPolicyFileError, OnnxRuntimeUnavailableError } from './errors.js';
export { IO_NAMES, META, ONNX_POLICY_FORMAT, ONNX_POLICY_VERSION, parsePolicyMetadata, policyMetadataProps, type OnnxPolicyMetadata } from './metadata.js';
export { choose, OnnxPolicy, pendingOnnxPolicy } from './policy.js';
export { loadOnnxRuntime, OnnxPolicyModel, type OnnxForward, type OnnxSessionOptions } from './runtime.js';
