import { useEffect, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '@threadline/protocol';
import { buildRows, type Row } from '../lib/transcript';
import { errorNoticeText } from '../lib/reasons';
import { taskLine } from '../lib/helpers';
import { useAppStore } from '../store';
import { Dialog } from './Dialog';
import { saveExport } from './ExportItems';
import { IconAlert, IconDownload, IconStop } from './Icons';
import { Markdown } from './Markdown';
import { NoticeChip } from './NoticeChip';
import { ToolCallCard } from './ToolCallCard';

const NONE: never[] = [];

/** One row of a helper's conversation: read-only (a helper is not a chat to continue). */
function HelperMessage({ row, helperId }: { row: Row; helperId: string }) {
  const { t } = useTranslation();
  switch (row.kind) {
    case 'user':
      return (
        <div className="msg msg-user" data-message-id={row.msg.id}>
          <div className="bubble">
            <div className="bubble-text">{row.msg.content}</div>
          </div>
        </div>
      );
    case 'assistant':
      return (
        <div className="msg msg-assistant" data-message-id={row.msg.id}>
          {row.msg.content && <Markdown text={row.msg.content} />}
          {row.tools.map((tc) => (
            <ToolCallCard key={tc.call.id} sessionId={helperId} call={tc.call} result={tc.result} />
          ))}
        </div>
      );
    case 'notice':
      return <NoticeChip msg={row.msg} />;
    case 'aborted':
      return (
        <div className="chip-wrap">
          <div className="chip chip-muted">
            <IconStop />
            <span className="chip-text">{t('chat.aborted')}</span>
          </div>
        </div>
      );
    case 'error':
      return (
        <div className="inline-error" role="alert">
          <IconAlert />
          <span className="inline-error-text">{errorNoticeText(row.msg.content, t) || t('chat.error.generic')}</span>
        </div>
      );
    default:
      return null;
  }
}

/**
 * A helper's own conversation over the chat: its task, what it said and every tool it ran, live
 * while it runs (its session's events), with Export. Opened from its row or a search result.
 */
export function HelperDialog() {
  const { t } = useTranslation();
  const open = useAppStore((s) => s.openHelper);
  const showHelper = useAppStore((s) => s.showHelper);
  const loadMessages = useAppStore((s) => s.loadMessages);
  const showToast = useAppStore((s) => s.showToast);
  const helperId = open?.helperId ?? null;
  const messages = useAppStore((s) => (helperId ? (s.bySession[helperId]?.messages ?? NONE) : NONE));
  const task = messages.find((m) => m.role === 'user' && m.kind === 'normal')?.content ?? '';
  const rows = useMemo(() => buildRows(messages, []), [messages]);

  useEffect(() => {
    if (helperId) void loadMessages(helperId).catch((err: unknown) => showToast(errorMessage(err)));
  }, [helperId, loadMessages, showToast]);

  // A search result: the message it found, once the conversation is there.
  const focus = open?.focusMessageId ?? null;
  useEffect(() => {
    if (!focus || messages.length === 0) return;
    document
      .querySelector(`.helper-dialog [data-message-id="${CSS.escape(focus)}"]`)
      ?.scrollIntoView({ block: 'center' });
  }, [focus, messages.length]);

  if (!helperId) return null;
  const exportIt = async () => {
    try {
      await saveExport(helperId, 'markdown');
    } catch (err) {
      showToast(t('export.failed', { message: errorMessage(err) }));
    }
  };
  return (
    <Dialog
      title={t('helpers.dialogTitle', { task: taskLine(task) })}
      onClose={() => showHelper(null)}
      testId="helper-dialog"
      footer={
        <>
          <button type="button" className="btn" onClick={() => void exportIt()} data-testid="helper-dialog-export">
            <IconDownload />
            {t('helpers.export')}
          </button>
          <button type="button" className="btn btn-primary" onClick={() => showHelper(null)} data-autofocus>
            {t('common.close')}
          </button>
        </>
      }
    >
      <div className="helper-dialog">
        {rows.length === 0 ? (
          <div className="muted">{t('helpers.loading')}</div>
        ) : (
          rows.map((row) => <HelperMessage key={row.key} row={row} helperId={helperId} />)
        )}
      </div>
    </Dialog>
  );
}
