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
export { gitRefusalHint, plainGitConfig } from './gitGuard';
export { guardCommand, type GuardedCommand, type LeftoverHooks } from './commandGuard';
export { classifyLeftovers, type Leftover } from './leftovers';
export { HeldFiles } from './heldFiles';
export { TurnLeftovers } from './turnLeftovers';
