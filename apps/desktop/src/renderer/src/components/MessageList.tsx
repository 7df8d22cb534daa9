import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useTranslation } from 'react-i18next';
import { useShallow } from 'zustand/react/shallow';
import { buildRows, pendingSteps, withCheckpoints, type PendingStep, type Row } from '../lib/transcript';
import { useAppStore } from '../store';
import { ToolCallCard } from './ToolCallCard';
import { IconAlert, IconChevronDown, IconRefresh, IconX } from './Icons';
import { Markdown } from './Markdown';
import { Reasoning } from './Reasoning';
import { MessageRow } from './MessageRow';
import { visibleRows } from '../lib/noticeView';
import { LiveCompactionDivider } from './CompactionDivider';
import { ProfileLink } from './ProfileLink';
import type { RetryStatus } from '../store/types';
import type { TFunction } from 'i18next';

type ListItem =
  | { type: 'row'; key: string; row: Row }
  | { type: 'stream'; key: string; step: PendingStep }
  | { type: 'thinking'; key: string }
  | { type: 'compacting'; key: string }
  | { type: 'error'; key: string };

const EMPTY: never[] = [];

/** Why nothing streams yet: the provider failed and the request goes again (with the wait it asked for). */
export function retryText(t: TFunction, r: RetryStatus): string {
  const vars = { reason: t(`chat.retrying.reason.${r.reason}`), attempt: r.attempt, max: r.maxRetries };
  // Under a second (or the SDK's own short backoff) is "now"; a provider's long wait is said.
  if (r.delayMs !== null && r.delayMs >= 1000)
    return t('chat.retrying.in', { ...vars, seconds: Math.ceil(r.delayMs / 1000) });
  return t('chat.retrying.now', vars);
}

/**
 * A height guess close to the measured one keeps the scroll position still while rows above the
 * viewport get measured (every wrong guess is a scroll correction, and a jump the user sees).
 */
export function estimateHeight(item: ListItem | undefined): number {
  if (!item) return 80;
  if (item.type !== 'row') return 60;
  const r = item.row;
  switch (r.kind) {
    case 'notice':
    case 'aborted':
      return 40;
    case 'divider':
      return 64;
    case 'checkpoint':
      return 52;
    case 'error':
      return 56;
    case 'tool':
      return 66;
    case 'user':
    case 'assistant': {
      const text = r.msg.content ?? '';
      const lines = text
        .split('\n')
        .reduce((n, l) => n + Math.max(1, Math.ceil(l.length / (r.kind === 'user' ? 70 : 90))), 0);
      const fences = (text.match(/```/g)?.length ?? 0) / 2;
      const tools = r.kind === 'assistant' ? r.tools.length * 48 : 0;
      return 20 + lines * 22 + fences * 50 + tools + (r.kind === 'assistant' ? 26 : 18);
    }
  }
}

export function MessageList({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation();
  const messages = useAppStore((s) => s.bySession[sessionId]?.messages ?? EMPTY);
  const compactions = useAppStore((s) => s.bySession[sessionId]?.compactions ?? EMPTY);
  const runtimeLevel = useAppStore((s) => s.settings?.cfpm.runtimeVisibility ?? 'brief');
  const gateLevel = useAppStore((s) => s.settings?.cfpm.toolGateVisibility ?? null) ?? runtimeLevel;
  const streams = useAppStore(useShallow((s) => Object.values(s.streaming).filter((x) => x.sessionId === sessionId)));
  const pendingTools = useAppStore(
    useShallow((s) => Object.values(s.tools).filter((x) => x.sessionId === sessionId && x.messageId)),
  );
  const busy = useAppStore((s) => Boolean(s.bySession[sessionId]?.busy));
  const error = useAppStore((s) => s.bySession[sessionId]?.error ?? null);
  const retry = useAppStore((s) => s.retry);
  const retrying = useAppStore((s) => s.bySession[sessionId]?.retrying ?? null);
  const dismissError = useAppStore((s) => s.dismissError);

  // The settings are a view of the record: a change re-renders every notice, past and future.
  const checkpoints = useAppStore((s) => s.bySession[sessionId]?.checkpoints ?? EMPTY);
  const rows = useMemo(
    () =>
      visibleRows(withCheckpoints(buildRows(messages, compactions), messages, checkpoints), runtimeLevel, gateLevel),
    [messages, compactions, checkpoints, runtimeLevel, gateLevel],
  );
  const live = useAppStore((s) => s.bySession[sessionId]?.liveCompaction ?? null);

  const items = useMemo<ListItem[]>(() => {
    const out: ListItem[] = rows.map((row) => ({ type: 'row', key: row.key, row }));
    const steps = pendingSteps(messages, streams, pendingTools);
    for (const step of steps) out.push({ type: 'stream', key: `s:${step.messageId}`, step });
    // A running compaction is shown where its divider will be; it is the only thing happening.
    if (live) out.push({ type: 'compacting', key: 'compacting' });
    // Waiting for an approval or a running tool is shown by its card, not by the thinking dots.
    else if (busy && steps.every((s) => s.text === '' && s.calls.length === 0))
      out.push({ type: 'thinking', key: 'thinking' });
    if (error) {
      // A newer error takes the place of the stored one it follows: one error banner at the end.
      const last = out.at(-1);
      if (last?.type === 'row' && last.row.kind === 'error') out.pop();
      out.push({ type: 'error', key: 'error' });
    }
    return out;
  }, [rows, streams, pendingTools, busy, error, messages, live]);

  // Computed once per list change: the virtualizer asks for every row's estimate on each re-measure.
  const estimates = useMemo(() => items.map(estimateHeight), [items]);

  const scrollRef = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const [showJump, setShowJump] = useState(false);

  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => estimates[i] ?? 80,
    overscan: 6,
    getItemKey: (i) => items[i]?.key ?? i,
    paddingStart: 24,
    paddingEnd: 24,
  });

  const scrollToEnd = useCallback(() => {
    const el = scrollRef.current;
    if (!el || items.length === 0) return;
    virtualizer.scrollToIndex(items.length - 1, { align: 'end' });
    // Measured heights settle a frame later; pin to the real bottom then.
    requestAnimationFrame(() => {
      if (atBottom.current && scrollRef.current) scrollRef.current.scrollTop = scrollRef.current.scrollHeight;
    });
  }, [items.length, virtualizer]);

  // A newly opened session starts at its end, and so does the list after the user sends: their
  // message and the reply to it are what they want to see, wherever they had scrolled to.
  const lastUserId = useMemo(
    () => messages.findLast((m) => m.role === 'user' && m.kind === 'normal')?.id ?? null,
    [messages],
  );
  useLayoutEffect(() => {
    atBottom.current = true;
    setShowJump(false);
  }, [sessionId, lastUserId]);

  // The list grows shorter when a card appears below it (held files, a notice): the end stays in view.
  useEffect(() => {
    const el = scrollRef.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const watch = new ResizeObserver(() => {
      if (atBottom.current) el.scrollTop = el.scrollHeight;
    });
    watch.observe(el);
    return () => watch.disconnect();
  }, []);

  const streamLen = streams.reduce((n, s) => n + s.text.length, 0) + pendingTools.length;
  useEffect(() => {
    if (atBottom.current) scrollToEnd();
  }, [items.length, streamLen, scrollToEnd]);

  // A search result: scroll to its message (rows not rendered yet are reached through the virtualizer).
  const focus = useAppStore((s) => (s.focus?.sessionId === sessionId ? s.focus : null));
  const [flash, setFlash] = useState<string | null>(null);
  useEffect(() => {
    if (!focus) return;
    const index = items.findIndex((it) => it.type === 'row' && it.row.key === focus.messageId);
    if (index < 0) return;
    virtualizer.scrollToIndex(index, { align: 'center' });
    // Where that left the list decides whether new messages follow and the jump button shows.
    requestAnimationFrame(() => {
      const el = scrollRef.current;
      if (!el) return;
      const bottom = el.scrollHeight - el.scrollTop - el.clientHeight < 48;
      atBottom.current = bottom;
      setShowJump(!bottom);
    });
    setFlash(focus.messageId);
    const timer = setTimeout(() => setFlash(null), 2500);
    return () => clearTimeout(timer);
    // Once per request (nonce) and once the list has rows, not on every list change.
  }, [focus?.nonce, items.length > 0]);

  const onScroll = () => {
    const el = scrollRef.current;
    if (!el) return;
    const bottom = el.scrollHeight - el.scrollTop - el.clientHeight < 48;
    atBottom.current = bottom;
    if (showJump === bottom) setShowJump(!bottom);
  };

  return (
    <div className="message-pane">
      <div className="message-scroll" ref={scrollRef} onScroll={onScroll} data-testid="message-list">
        <div className="message-canvas" style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((v) => {
            const item = items[v.index];
            if (!item) return null;
            return (
              <div
                key={v.key}
                data-index={v.index}
                ref={virtualizer.measureElement}
                className="message-slot"
                style={{ transform: `translateY(${v.start}px)` }}
              >
                <div className={`message-column ${item.type === 'row' && item.row.key === flash ? 'is-focused' : ''}`}>
                  {item.type === 'row' && <MessageRow row={item.row} sessionId={sessionId} />}
                  {item.type === 'stream' && (
                    <div className="msg msg-assistant is-streaming" data-testid="msg-streaming">
                      {item.step.reasoning && <Reasoning text={item.step.reasoning} live={item.step.text === ''} />}
                      {item.step.text !== '' && <Markdown text={item.step.text} streaming />}
                      {item.step.calls.length === 0 && <span className="caret" aria-hidden />}
                      {item.step.calls.map((call) => (
                        <ToolCallCard key={call.id} sessionId={sessionId} call={call} result={null} />
                      ))}
                    </div>
                  )}
                  {item.type === 'compacting' && live && <LiveCompactionDivider sessionId={sessionId} live={live} />}
                  {item.type === 'thinking' && (
                    <div className="thinking-row">
                      <div className="thinking" role="status" aria-label={t('chat.thinking')}>
                        <span />
                        <span />
                        <span />
                      </div>
                      {retrying && (
                        <p className="retry-status" role="status" data-testid="retry-status">
                          {retryText(t, retrying)}
                        </p>
                      )}
                    </div>
                  )}
                  {item.type === 'error' && error && (
                    <div className="inline-error" role="alert" data-testid="inline-error">
                      <IconAlert />
                      <span className="inline-error-text">{error.message}</span>
                      {error.code === 'provider_error' && <ProfileLink />}
                      <button type="button" className="btn btn-small" onClick={() => void retry(sessionId)}>
                        <IconRefresh />
                        {t('chat.error.retry')}
                      </button>
                      <button
                        type="button"
                        className="icon-btn"
                        aria-label={t('common.dismiss')}
                        title={t('common.dismiss')}
                        onClick={() => dismissError(sessionId)}
                      >
                        <IconX />
                      </button>
                    </div>
                  )}
                </div>
              </div>
            );
          })}
        </div>
      </div>
      {showJump && (
        <button
          type="button"
          className="jump-btn"
          aria-label={t('chat.jumpToLatest')}
          title={t('chat.jumpToLatest')}
          onClick={() => {
            atBottom.current = true;
            setShowJump(false);
            scrollToEnd();
          }}
        >
          <IconChevronDown />
        </button>
      )}
    </div>
  );
}
