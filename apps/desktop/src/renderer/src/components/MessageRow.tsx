import { memo, useState } from 'react';
import type { StoredMessage } from '@threadline/protocol';
import { chatRoutes } from '../store/routes';
import { useTranslation } from 'react-i18next';
import type { Row } from '../lib/transcript';
import { errorNoticeText, interruptedCall, providerLink } from '../lib/reasons';
import { ProfileLink } from './ProfileLink';
import { useAppStore } from '../store';
import { CompactionDivider } from './CompactionDivider';
import { CheckpointRow } from './CheckpointRow';
import { CopyButton } from './CopyButton';
import { IconAlert, IconEyeOff, IconPencil, IconRefresh, IconStop } from './Icons';
import { MessageEditor, VersionSwitcher } from './BranchControls';
import { Markdown } from './Markdown';
import { Reasoning } from './Reasoning';
import { NoticeChip } from './NoticeChip';
import { CallCard } from './CallCard';
import { HelperList } from './DelegateCard';
import { MessageAttachments } from './Attachments';
import { visibleUserText } from '../lib/attachFile';
import { attachmentRefs } from '../lib/attachRefs';

function HiddenTag() {
  const { t } = useTranslation();
  return (
    <span className="hidden-tag" title={t('chat.hidden.hint')} data-testid="hidden-tag">
      <IconEyeOff />
      {t('chat.hidden.label')}
    </span>
  );
}

/**
 * An answer cut off (stopped, or the provider failed mid-way): always said, not only on hover;
 * the latest one offers Continue, which asks the model to go on from where it stopped.
 */
function PartialNote({ sessionId, last }: { sessionId: string; last: boolean | undefined }) {
  const { t } = useTranslation();
  const busy = useAppStore((s) => Boolean(s.bySession[sessionId]?.busy));
  const send = useAppStore((s) => s.send);
  return (
    <div className="partial-note">
      <span className="partial-tag" data-testid="partial-tag">
        <IconAlert />
        {t('chat.partial')}
      </span>
      {last && (
        <button
          type="button"
          className="btn btn-small"
          disabled={busy}
          onClick={() => void send(sessionId, t('chat.continueText'))}
          data-testid="continue-button"
        >
          {t('chat.continue')}
        </button>
      )}
    </div>
  );
}

/**
 * A paste too big for the model's window: the model got head + tail; the user can open the whole
 * text they sent (fetched on request, it may be megabytes).
 */
function CutUserText({ msg }: { msg: StoredMessage }) {
  const { t } = useTranslation();
  const [full, setFull] = useState<string | null>(null);
  const [state, setState] = useState<'idle' | 'loading' | 'error'>('idle');
  const open = async () => {
    setState('loading');
    try {
      setFull((await chatRoutes.fullOutput({ id: msg.id })).text ?? msg.content ?? '');
      setState('idle');
    } catch {
      setState('error');
    }
  };
  return (
    <>
      <div className="bubble-text">{full ?? msg.content}</div>
      <div className="bubble-note">
        {full === null ? (
          <button
            type="button"
            className="link-btn"
            onClick={() => void open()}
            disabled={state === 'loading'}
            data-testid="user-show-full"
          >
            {state === 'loading' ? t('chat.cut.loading') : t('chat.cut.show')}
          </button>
        ) : (
          <button type="button" className="link-btn" onClick={() => setFull(null)}>
            {t('chat.cut.hide')}
          </button>
        )}
        <span className="muted">{state === 'error' ? t('chat.cut.error') : t('chat.cut.note')}</span>
      </div>
    </>
  );
}

/** One transcript row; memoized because the virtual list re-renders rows on every scroll. */
export const MessageRow = memo(function MessageRow({ row, sessionId }: { row: Row; sessionId: string }) {
  const { t } = useTranslation();
  const retry = useAppStore((s) => s.retry);
  const regenerate = useAppStore((s) => s.regenerate);
  const busy = useAppStore((s) => Boolean(s.bySession[sessionId]?.busy));
  const [editing, setEditing] = useState(false);
  switch (row.kind) {
    case 'user': {
      // A cut paste is edited whole elsewhere; commands to the app are not conversation.
      const editable = row.msg.meta?.truncated !== true && row.msg.visibility.agent;
      const refs = attachmentRefs(row.msg);
      const shown = visibleUserText(row.msg.content, refs);
      return (
        <div
          className={`msg msg-user ${row.hidden ? 'is-hidden' : ''}`}
          data-testid="msg-user"
          data-seq={row.msg.seq}
          data-message-id={row.msg.id}
        >
          {editing ? (
            <MessageEditor
              sessionId={sessionId}
              messageId={row.msg.id}
              initial={shown}
              onDone={() => setEditing(false)}
            />
          ) : (
            <div className="bubble">
              {row.msg.meta?.truncated === true ? (
                <CutUserText msg={row.msg} />
              ) : (
                shown !== '' && <div className="bubble-text">{shown}</div>
              )}
              <MessageAttachments refs={refs} />
            </div>
          )}
          {!editing && (
            <div className="msg-actions msg-actions-user">
              {row.hidden && <HiddenTag />}
              {row.versions && <VersionSwitcher sessionId={sessionId} versions={row.versions} />}
              {editable && (
                <button
                  type="button"
                  className="icon-btn"
                  disabled={busy}
                  aria-label={t('chat.edit.action')}
                  title={t('chat.edit.action')}
                  onClick={() => setEditing(true)}
                  data-testid="edit-message"
                >
                  <IconPencil />
                </button>
              )}
            </div>
          )}
        </div>
      );
    }
    case 'assistant':
      return (
        <div
          className={`msg msg-assistant ${row.hidden ? 'is-hidden' : ''}`}
          data-testid="msg-assistant"
          data-seq={row.msg.seq}
        >
          {typeof row.msg.meta?.reasoning === 'string' && <Reasoning text={row.msg.meta.reasoning} live={false} />}
          {row.msg.content && <Markdown text={row.msg.content} />}
          {row.tools.map((tc) => (
            <CallCard key={tc.call.id} sessionId={sessionId} call={tc.call} result={tc.result} />
          ))}
          {row.msg.meta?.partial === true && <PartialNote sessionId={sessionId} last={row.last} />}
          <div className="msg-actions">
            {row.hidden && <HiddenTag />}
            {row.versions && <VersionSwitcher sessionId={sessionId} versions={row.versions} />}
            {row.msg.content && <CopyButton getText={() => row.msg.content ?? ''} />}
            {row.last && (
              <button
                type="button"
                className="icon-btn"
                disabled={busy}
                aria-label={t('chat.regenerate')}
                title={t('chat.regenerate')}
                onClick={() => void regenerate(sessionId)}
                data-testid="regenerate"
              >
                <IconRefresh />
              </button>
            )}
          </div>
        </div>
      );
    case 'tool':
      return (
        <div className={`msg msg-assistant ${row.hidden ? 'is-hidden' : ''}`} data-seq={row.msg.seq}>
          <CallCard
            sessionId={sessionId}
            call={{
              id: row.msg.tool_call_id ?? row.msg.id,
              type: 'function',
              function: { name: row.msg.name ?? t('tool.unknown'), arguments: '' },
            }}
            result={row.msg}
          />
          {row.hidden && <HiddenTag />}
        </div>
      );
    case 'notice':
      return <NoticeChip msg={row.msg} tally={row.tally} />;
    case 'aborted':
      return (
        <div className="chip-wrap" data-testid="turn-aborted">
          <div className="chip chip-muted">
            <IconStop />
            <span className="chip-text">{t('chat.aborted')}</span>
          </div>
        </div>
      );
    case 'error': {
      // Helpers a crash stopped: their rows, as they ended, under the notice.
      const stopped = interruptedCall(row.msg.content);
      return (
        <>
          <div className="inline-error" role="alert" data-testid="inline-error">
            <IconAlert />
            <span className="inline-error-text">{errorNoticeText(row.msg.content, t) || t('chat.error.generic')}</span>
            {providerLink(row.msg.content) && <ProfileLink />}
            {row.versions && <VersionSwitcher sessionId={sessionId} versions={row.versions} />}
            {row.retryable && (
              <button
                type="button"
                className="btn btn-small"
                disabled={busy}
                onClick={() => void retry(sessionId)}
                data-testid="retry-button"
              >
                <IconRefresh />
                {t('chat.error.retry')}
              </button>
            )}
          </div>
          {stopped && <HelperList sessionId={sessionId} toolCallId={stopped} />}
        </>
      );
    }
    case 'checkpoint':
      return <CheckpointRow checkpoint={row.checkpoint} sessionId={sessionId} />;
    case 'divider':
      return (
        <CompactionDivider
          sessionId={sessionId}
          compaction={row.compaction}
          latest={row.latest}
          inserted={row.inserted}
        />
      );
  }
});
