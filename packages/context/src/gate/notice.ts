/** The gate notice `[CFPM_TOOL_GATE_V1] {json}`. */
import { GATE_NOTICE_PREFIX, formatNotice, type GateNoticePayload, type VisibilityLevel } from '@threadline/protocol';
import { cutText } from '../memory/render';
import { normalizeVisibility } from '../memory/notice';
import type { KnownFolder } from './probes';

export const MAX_NOTICE_COMMAND_CHARS = 320;

export interface GateNoticeInput {
  tool: string;
  target: KnownFolder;
  path: string;
  originalCommand: string;
  rewrittenCommand: string;
}

/**
 * The gate's own visibility (`cfpm.toolGateVisibility`) when set, else the runtime visibility.
 * null when the resulting level is `off`. A rewrite always happened when this is called, so
 * `brief` and `debug` both show it.
 */
export function formatGateNotice(
  input: GateNoticeInput,
  visibility: VisibilityLevel | string | null | undefined,
  runtimeVisibility: VisibilityLevel | string | null = 'brief',
): string | null {
  const runtime = normalizeVisibility(runtimeVisibility ?? 'brief');
  const level =
    visibility === null || visibility === undefined || visibility === ''
      ? runtime
      : normalizeVisibility(visibility, runtime);
  if (level === 'off') return null;
  const payload: GateNoticePayload = {
    version: 'v1',
    verbosity: level,
    action: 'rewrite_known_folder_probe',
    tool: cutText(input.tool, 120),
    target: input.target,
    path: cutText(input.path, MAX_NOTICE_COMMAND_CHARS),
    originalCommand: cutText(input.originalCommand, MAX_NOTICE_COMMAND_CHARS),
    rewrittenCommand: cutText(input.rewrittenCommand, MAX_NOTICE_COMMAND_CHARS),
  };
  return formatNotice(GATE_NOTICE_PREFIX, payload);
}
