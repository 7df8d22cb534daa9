/** The pre-tool command gate: pure, with an injected file-existence check. */
export {
  applyToolGate,
  isTrustedFact,
  folderFromFact,
  type ToolGateInput,
  type ToolGateResult,
  type GateSkipReason,
  type GatePlatform,
} from './apply';
export { formatGateNotice, MAX_NOTICE_COMMAND_CHARS, type GateNoticeInput } from './notice';
export { findProbes, KNOWN_FOLDERS, type KnownFolder, type ProbeMatch, type ProbeShell } from './probes';
export { asksToReverify } from './reverify';
