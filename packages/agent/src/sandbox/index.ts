export {
  detectSandbox,
  SEATBELT_PROGRAM,
  type DetectOptions,
  type NoSandboxReason,
  type SandboxInfo,
  type SandboxKind,
} from './detect';
export { SANDBOX_HIDDEN_IN_HOME, SANDBOX_READ_ONLY_IN_FOLDER, sandboxHiddenPaths, sandboxReadOnlyPaths } from './paths';
export { bwrapArgs, seatbeltProfile, wrapCommand, type WrapInput, type Wrapped } from './wrap';
export { sandboxFailure, sandboxFailureHint } from './failure';
export { SandboxService, commandsSentence, type SandboxRun, type SandboxServiceOptions } from './service';
export { plainGitConfig, protectedBefore, removeCreatedProtected, type ProtectedBefore } from './guard';
