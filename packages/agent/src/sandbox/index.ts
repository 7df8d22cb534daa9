export {
  detectSandbox,
  seccompHelper,
  SEATBELT_PROGRAM,
  type DetectOptions,
  type NoSandboxReason,
  type SandboxInfo,
  type SandboxKind,
} from './detect';
export {
  SANDBOX_HIDDEN_IN_HOME,
  SANDBOX_READ_ONLY_IN_FOLDER,
  envFilesIn,
  sandboxHiddenPaths,
  sandboxReadOnlyPaths,
  socketPlaces,
} from './paths';
export {
  bwrapArgs,
  proxyEnv,
  seatbeltProfile,
  wrapCommand,
  type SandboxHome,
  type WrapInput,
  type Wrapped,
} from './wrap';
export { SANDBOX_HOME_READ_ONLY, homeReadOnlyMounts } from './home';
export { NetworkProxy, PROXY_PORT_INSIDE } from './network';
export {
  hiddenSettingsNote,
  sandboxFailure,
  sandboxFailureHint,
  sandboxFailureNote,
  type SandboxStop,
} from './failure';
export { SandboxService, commandsSentence, runInput, type SandboxRun, type SandboxServiceOptions } from './service';
export { gitRefusalHint, plainGitConfig } from './gitGuard';
export { guardCommand, type GuardedCommand, type LeftoverHooks } from './commandGuard';
export { classifyLeftovers, type Leftover } from './leftovers';
export { HeldFiles } from './heldFiles';
export { TurnLeftovers } from './turnLeftovers';
