import { useState, type KeyboardEvent, type Ref } from 'react';
import { useTranslation } from 'react-i18next';
import type { ProjectFact } from '@threadline/protocol';
import { useAppStore } from '../store';
import { IconPencil, IconPin, IconTrash, IconUndo } from './Icons';
import { FactEditForm } from './FactEditForm';

/** What the user may do with a fact, by where it is shown. */
export interface ProjectFactActions {
  accept?: () => void;
  reject?: () => void;
  save?: (content: string) => void;
  pin?: () => void;
  forget?: () => void;
  restore?: () => void;
}

/** Where a fact came from: what verified it, in which session, when. */
function Provenance({ fact }: { fact: ProjectFact }) {
  const { t, i18n } = useTranslation();
  const sessions = useAppStore((s) => s.sessions);
  const selectSession = useAppStore((s) => s.selectSession);
  const e = fact.evidence[0];
  if (!e) return null;
  const session = e.sessionId ? sessions.find((s) => s.id === e.sessionId) : undefined;
  const when = new Date(e.at).toLocaleDateString(i18n.language, { year: 'numeric', month: 'short', day: 'numeric' });
  // What verified it: the call as it ran, the question the user said yes to; an instruction is
  // the user's own words (its text), a typed or imported fact says so.
  const by =
    fact.source === 'user'
      ? t('project.addedByYou')
      : fact.source === 'import'
        ? t('project.imported')
        : fact.kind === 'instruction'
          ? t('project.saidByYou')
          : fact.kind === 'decision'
            ? t('project.confirmedByYou', { what: e.verifiedBy })
            : t('project.verifiedBy', { what: e.verifiedBy });
  return (
    <div className="fact-meta provenance" data-testid="project-fact-provenance">
      <span className="verified-by" title={e.verifiedBy}>
        {by}
      </span>
      {e.sessionId && (
        <>
          <span className="dot-sep" />
          {session ? (
            <button type="button" className="link-btn" onClick={() => void selectSession(session.id)}>
              {t('project.inSession', { title: session.title || t('sidebar.untitled') })}
            </button>
          ) : (
            <span>{t('project.deletedSession')}</span>
          )}
        </>
      )}
      <span className="dot-sep" />
      <span>{when}</span>
      {fact.evidence.length > 1 && (
        <>
          <span className="dot-sep" />
          <span>{t('project.seen', { count: fact.evidence.length })}</span>
        </>
      )}
    </div>
  );
}

/**
 * One project fact: its kind, text and where it came from, and the actions its place allows —
 * the inbox (accept, edit, reject; a stale fact: keep, forget), the accepted facts (pin, edit,
 * forget), the forgotten and superseded ones (restore). In the inbox the row itself takes keys:
 * A accept (keep), E edit, R reject (forget); the arrows move between rows (ProjectMemoryView).
 */
export function ProjectFactItem({
  fact,
  actions,
  inbox = false,
  itemRef,
  onKeyDown,
}: {
  fact: ProjectFact;
  actions: ProjectFactActions;
  inbox?: boolean;
  itemRef?: Ref<HTMLLIElement>;
  onKeyDown?: (e: KeyboardEvent<HTMLLIElement>) => void;
}) {
  const { t } = useTranslation();
  const [editing, setEditing] = useState(false);
  const code = fact.kind === 'command' || fact.kind === 'path';
  const stale = fact.status === 'accepted' && fact.stale !== null;
  const startEdit = () => setEditing(true);
  const keys = (e: KeyboardEvent<HTMLLIElement>) => {
    if (e.target !== e.currentTarget || e.altKey || e.ctrlKey || e.metaKey) return onKeyDown?.(e);
    const key = e.key.toLowerCase();
    if (key === 'a' && actions.accept) actions.accept();
    else if (key === 'r' && (actions.reject ?? actions.forget)) (actions.reject ?? actions.forget)!();
    else if (key === 'e' && actions.save && !stale) startEdit();
    else return onKeyDown?.(e);
    e.preventDefault();
  };
  return (
    <li
      ref={itemRef}
      className={`fact project-fact ${fact.pinned ? 'is-pinned' : ''} ${stale ? 'is-stale' : ''}`}
      data-testid={inbox ? 'project-inbox-item' : 'project-fact'}
      data-kind={fact.kind}
      data-status={fact.status}
      data-stale={fact.stale ?? undefined}
      tabIndex={inbox ? 0 : undefined}
      aria-label={inbox ? `${t(`project.kind.${fact.kind}`)}: ${fact.content}` : undefined}
      onKeyDown={inbox ? keys : undefined}
    >
      {editing && actions.save ? (
        <FactEditForm
          initial={fact.content}
          label={t('project.editLabel')}
          saveLabel={inbox ? t('project.saveAccept') : undefined}
          testIds={{ input: 'project-fact-edit-input', save: 'project-fact-save' }}
          onCancel={() => setEditing(false)}
          onSave={(text) => {
            setEditing(false);
            if (text !== fact.content) actions.save!(text);
            else if (inbox) actions.accept?.();
          }}
        />
      ) : (
        <>
          <div className="fact-content">
            {fact.pinned && <IconPin className="pin-mark" />}
            <span className="kind-chip">{t(`project.kind.${fact.kind}`)}</span>
            {code ? <code className="fact-code">{fact.content}</code> : <span>{fact.content}</span>}
            {fact.detail && (
              <span className="detail-chip">
                {fact.detail === 'correction' ? t('project.correction') : t(`project.purpose.${fact.detail}`)}
              </span>
            )}
          </div>
          <Provenance fact={fact} />
          {stale && (
            <div className="stale-word" data-testid="project-fact-stale">
              {t(`project.stale.${fact.stale}`)}
            </div>
          )}
          {(fact.status === 'forgotten' || fact.status === 'superseded') && (
            <div className="status-word">{t(`project.status.${fact.status}`)}</div>
          )}
          <div className="fact-actions">
            {actions.accept && (
              <button type="button" className="link-btn" onClick={actions.accept} data-testid="project-accept">
                {stale ? t('project.keep') : t('project.accept')}
              </button>
            )}
            {actions.save && !stale && (
              <button type="button" className="link-btn" onClick={startEdit} data-testid="project-edit">
                <IconPencil />
                {t('memory.edit')}
              </button>
            )}
            {actions.reject && (
              <button type="button" className="link-btn danger" onClick={actions.reject} data-testid="project-reject">
                {t('project.reject')}
              </button>
            )}
            {actions.pin && (
              <button type="button" className="link-btn" onClick={actions.pin} data-testid="project-pin">
                <IconPin />
                {fact.pinned ? t('memory.unpin') : t('memory.pin')}
              </button>
            )}
            {actions.forget && (
              <button type="button" className="link-btn danger" onClick={actions.forget} data-testid="project-forget">
                <IconTrash />
                {t('memory.forget')}
              </button>
            )}
            {actions.restore && (
              <button type="button" className="link-btn" onClick={actions.restore} data-testid="project-restore">
                <IconUndo />
                {t('memory.restore')}
              </button>
            )}
          </div>
        </>
      )}
    </li>
  );
}
