import { useMemo, useState } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import type { GateRewrite, StoredMessage, ToolCall } from '@threadline/protocol';
import { useAppStore } from '../store';
import { chatRoutes } from '../store/routes';
import { IconAlert, IconChevron, IconTool } from './Icons';
import { CopyButton } from './CopyButton';
import { headlineOf, reveal } from '../lib/reveal';
import { DenyControl } from './DenyControl';
import { DiffView, diffOf } from './DiffView';
import { statusOf } from '../lib/toolStatus';
import { RememberRule } from './RememberRule';
import { RuleLine, ruleNoteOf } from './RuleLine';

const PREVIEW_LINES = 12;
const PREVIEW_CHARS = 1500;
/** The write-time truncation marker of the engine (`…N tokens truncated…` / `…N chars truncated…`). */
const TRUNCATION_MARK = /…\d+ (tokens|chars) truncated…/;

function prettyArgs(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    return raw;
  }
}

/**
 * A one-line summary of the call for the header: the command, the path…, invisible characters
 * escaped; `shortened` when it is not the whole value (the body shows it whole).
 */
function headline(raw: string): { text: string; shortened: boolean } {
  try {
    const v = JSON.parse(raw) as Record<string, unknown>;
    for (const k of ['command', 'cmd', 'script', 'pattern', 'path', 'file', 'query']) {
      if (typeof v[k] === 'string') return headlineOf(reveal(v[k] as string).text);
    }
  } catch {
    /* not JSON: no headline */
  }
  return { text: '', shortened: false };
}

/** Images an MCP tool returned, of the kinds an <img> shows safely. */
const SAFE_IMAGE = /^image\/(png|jpeg|gif|webp)$/;

interface McpMeta {
  server: string;
  tool: string;
  images: { mimeType: string; data: string }[];
  structured: unknown;
}

/** What an MCP result carries beside its text (meta.mcp, written by the agent). */
function mcpMeta(result: StoredMessage | null): McpMeta | null {
  const m = result?.meta?.mcp as Partial<McpMeta> | undefined;
  if (!m || typeof m !== 'object' || typeof m.server !== 'string') return null;
  const images = Array.isArray(m.images)
    ? m.images.filter((i) => typeof i?.data === 'string' && SAFE_IMAGE.test(String(i?.mimeType)))
    : [];
  return { server: m.server, tool: String(m.tool ?? ''), images, structured: m.structured };
}

function formatDuration(ms: number | null, t: TFunction): string | null {
  if (ms === null) return null;
  return ms < 1000
    ? t('tool.durationMs', { value: Math.round(ms) })
    : t('tool.durationS', { value: (ms / 1000).toFixed(ms < 10_000 ? 1 : 0) });
}

/** The gate's part in a call: from the live state before it runs, from the result after. */
function gateOf(
  result: StoredMessage | null,
  live: GateRewrite | undefined,
): { target: GateRewrite['target']; path: string; declined: boolean } | null {
  const g = result?.meta?.gate as { target?: unknown; path?: unknown; declined?: unknown } | undefined;
  if (
    g &&
    (g.target === 'Desktop' || g.target === 'Documents' || g.target === 'Downloads') &&
    typeof g.path === 'string'
  )
    return { target: g.target, path: g.path, declined: g.declined === true };
  if (!result && live) return { target: live.target, path: live.path, declined: false };
  return null;
}

const ACCESS_LABEL = {
  outside: 'tool.accessOutside',
  credential: 'tool.accessCredential',
  protected: 'tool.accessProtected',
} as const;

interface Props {
  sessionId: string;
  call: ToolCall;
  result: StoredMessage | null;
}

export function ToolCallCard({ sessionId, call, result }: Props) {
  const { t } = useTranslation();
  const state = useAppStore((s) => s.tools[call.id]);
  const busy = useAppStore((s) => Boolean(s.bySession[sessionId]?.busy));
  const approve = useAppStore((s) => s.approve);
  const status = statusOf(result, state?.status, busy);
  const [open, setOpen] = useState(status === 'waiting');
  const [full, setFull] = useState(false);
  const [fetched, setFetched] = useState<{ state: 'idle' | 'loading' | 'error'; text: string | null }>({
    state: 'idle',
    text: null,
  });

  // What runs can differ from what the model asked for: the pre-tool gate may rewrite it. Before
  // the call runs the live state says so (asked before it acts), after it the result's meta.
  const gate = gateOf(result, state?.gate);
  const ran =
    typeof result?.meta?.ranArguments === 'string' && result.meta.ranArguments !== call.function.arguments
      ? result.meta.ranArguments
      : !result && state?.gate
        ? state.gate.rewrittenArguments
        : null;
  // What will run, with bidi controls, zero-width and other invisible characters shown escaped.
  const argsShown = useMemo(() => reveal(prettyArgs(call.function.arguments)), [call.function.arguments]);
  const ranShown = useMemo(() => (ran ? reveal(prettyArgs(ran)) : null), [ran]);
  const args = argsShown.text;
  const ranArgs = ranShown?.text ?? null;
  const accessPath = state?.access ? reveal(state.access.path) : null;
  const hidden = argsShown.flagged || ranShown?.flagged === true || accessPath?.flagged === true;
  const head = useMemo(() => headline(ran ?? call.function.arguments), [ran, call.function.arguments]);
  const output = result?.content ?? '';
  const mcp = useMemo(() => mcpMeta(result), [result]);
  const structured = useMemo(
    () => (mcp?.structured !== undefined ? JSON.stringify(mcp.structured, null, 2) : null),
    [mcp],
  );
  // The history leaves full outputs out; a truncated result fetches its full text on demand.
  const truncated = result !== null && (result.meta?.truncated === true || TRUNCATION_MARK.test(output));
  const fullOutput = result?.fullOutput ?? fetched.text ?? output;
  const lines = output.split('\n');
  const long = lines.length > PREVIEW_LINES || output.length > PREVIEW_CHARS || truncated;
  const shown = full ? fullOutput : lines.slice(0, PREVIEW_LINES).join('\n').slice(0, PREVIEW_CHARS);
  const toggleFull = async () => {
    if (full || !truncated || result?.fullOutput || fetched.text !== null || !result) return setFull(!full);
    setFetched({ state: 'loading', text: null });
    try {
      const r = await chatRoutes.fullOutput({ id: result.id });
      setFetched({ state: 'idle', text: r.text });
      setFull(true);
    } catch {
      setFetched({ state: 'error', text: null });
    }
  };
  const durationMs =
    state?.durationMs ?? (typeof result?.meta?.durationMs === 'number' ? result.meta.durationMs : null);
  const duration = formatDuration(durationMs, t);
  const waitedMs = typeof result?.meta?.approvalWaitMs === 'number' ? result.meta.approvalWaitMs : null;
  const waited = formatDuration(waitedMs, t);
  const expanded = open || status === 'waiting';
  // The change a file tool made (its result), or would make (the approval card, before it runs).
  const resultDiff = useMemo(() => diffOf(result?.meta), [result]);
  const diff = resultDiff ?? (!result ? (state?.diff ?? null) : null);
  // The rule that decided it: in its result once it ran or was refused, on the live state while it asks.
  const rule = ruleNoteOf(result?.meta) ?? (!result ? (state?.rule ?? null) : null);

  return (
    <div className={`tool-card status-${status}`} data-testid="tool-card" data-status={status}>
      <button type="button" className="tool-head" aria-expanded={expanded} onClick={() => setOpen(!open)}>
        <IconChevron className={`chev ${expanded ? 'open' : ''}`} />
        <IconTool />
        <span className="tool-name">{call.function.name}</span>
        {mcp && <span className="badge tool-source">{t('tool.mcpSource', { server: mcp.server })}</span>}
        {head.text && (
          <code className="tool-headline" data-testid="tool-headline">
            {head.text}
          </code>
        )}
        {head.shortened && (
          <span className="badge tool-shortened" title={t('tool.shortenedHint')} data-testid="tool-shortened">
            {t('tool.shortened')}
          </span>
        )}
        {hidden && (
          <span className="badge badge-error tool-hidden-badge" data-testid="tool-hidden-badge">
            {t('tool.hiddenBadge')}
          </span>
        )}
        <span className="spacer" />
        {waited && (
          <span className="tool-waited" title={t('tool.waitedHint')} data-testid="tool-waited">
            {t('tool.waited', { duration: waited })}
          </span>
        )}
        {duration && (
          <span className="tool-duration" title={t('tool.ranHint')} data-testid="tool-duration">
            {duration}
          </span>
        )}
        <span className={`badge badge-${status}`}>{t(`tool.status.${status}`)}</span>
      </button>
      {expanded && (
        <div className="tool-body">
          {gate && (
            <div className="tool-gate" data-testid="tool-gate" data-declined={gate.declined}>
              {t(gate.declined ? 'tool.gate.declined' : result ? 'tool.gate.used' : 'tool.gate.willUse', {
                target: t(`notice.cfpm.gate.target.${gate.target}`),
                path: gate.path,
              })}
            </div>
          )}
          {hidden && (
            <div className="tool-hidden" role="alert" data-testid="tool-hidden">
              <IconAlert />
              <span>{t('tool.hiddenChars')}</span>
            </div>
          )}
          <div className="tool-section-label">{gate ? t('tool.gate.asked') : t('tool.arguments')}</div>
          <pre className="tool-pre" data-testid="tool-args">
            {args}
          </pre>
          {ranArgs && (
            <>
              <div className="tool-section-label">
                {result ? (gate ? t('tool.gate.ran') : t('tool.ranInstead')) : t('tool.gate.willRun')}
              </div>
              <pre className="tool-pre" data-testid="tool-ran">
                {ranArgs}
              </pre>
            </>
          )}
          {diff && (
            <>
              <div className="tool-section-label">{t(result ? 'tool.diff.applied' : 'tool.diff.pending')}</div>
              <DiffView diff={diff} />
            </>
          )}
          {status === 'waiting' && state?.access && (
            <div
              className={`tool-access zone-${state.access.zone}`}
              data-testid="tool-access"
              data-reason={state.access.reason}
            >
              <IconAlert />
              <span>
                {t(ACCESS_LABEL[state.access.zone])} <code className="tool-access-path">{accessPath?.text}</code>
                {state.access.reason && (
                  <span className="tool-access-reason" data-testid="tool-access-reason">
                    {t(`tool.accessReason.${state.access.reason}`)}
                  </span>
                )}
              </span>
            </div>
          )}
          {rule && <RuleLine note={rule} waiting={status === 'waiting'} />}
          {status === 'waiting' && state?.sandbox && (
            <div className={`tool-access tool-sandbox sandbox-${state.sandbox.state}`} data-testid="tool-sandbox">
              <IconAlert />
              <span>
                {state.sandbox.state === 'outside_requested'
                  ? t('sandbox.card.outside')
                  : t('sandbox.card.unavailable', { why: t(`sandbox.none.${state.sandbox.reason ?? 'disabled'}`) })}
              </span>
            </div>
          )}
          {status === 'waiting' && (
            <div className="tool-approval" role="group" aria-label={t('tool.approvalGroup')}>
              <span className="tool-approval-text">{t('tool.approvalPrompt', { name: call.function.name })}</span>
              <button
                type="button"
                className="btn btn-primary"
                onClick={() => void approve(sessionId, call.id, 'approve')}
                data-testid="approve"
              >
                {t('tool.approve')}
              </button>
              {gate && (
                <button
                  type="button"
                  className="btn"
                  title={t('tool.gate.runOriginalHint')}
                  onClick={() => void approve(sessionId, call.id, 'approve', { useOriginal: true })}
                  data-testid="approve-original"
                >
                  {t('tool.gate.runOriginal')}
                </button>
              )}
              <DenyControl sessionId={sessionId} toolCallId={call.id} />
            </div>
          )}
          {status === 'waiting' && state?.rules && (
            <RememberRule sessionId={sessionId} toolCallId={call.id} options={state.rules} />
          )}
          {result && (
            <>
              <div className="tool-section-label">
                {t('tool.output')}
                <CopyButton getText={() => fullOutput} />
              </div>
              <pre className="tool-pre tool-output" data-testid="tool-output">
                {shown}
              </pre>
              {long && (
                <button
                  type="button"
                  className="link-btn"
                  onClick={() => void toggleFull()}
                  disabled={fetched.state === 'loading'}
                  data-testid="tool-show-full"
                >
                  {full
                    ? t('tool.showLess')
                    : fetched.state === 'loading'
                      ? t('tool.loadingFull')
                      : truncated && fullOutput === output
                        ? t('tool.showFullOutput')
                        : t('tool.showFull', { count: fullOutput.split('\n').length })}
                </button>
              )}
              {fetched.state === 'error' && <div className="form-error">{t('tool.fullOutputError')}</div>}
              {mcp && mcp.images.length > 0 && (
                <div className="tool-images" data-testid="tool-images">
                  {mcp.images.map((img, i) => (
                    <img
                      key={i}
                      className="tool-image"
                      src={`data:${img.mimeType};base64,${img.data}`}
                      alt={t('tool.imageAlt', { index: i + 1, name: call.function.name })}
                    />
                  ))}
                </div>
              )}
              {structured !== null && (
                <>
                  <div className="tool-section-label">
                    {t('tool.structured')}
                    <CopyButton getText={() => structured} />
                  </div>
                  <pre className="tool-pre" data-testid="tool-structured">
                    {structured}
                  </pre>
                </>
              )}
            </>
          )}
        </div>
      )}
    </div>
  );
}
