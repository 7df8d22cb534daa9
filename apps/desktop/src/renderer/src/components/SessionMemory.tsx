import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  errorMessage,
  FactCategorySchema,
  type FactCategory,
  type MemoryCandidate,
  type MemoryFact,
} from '@threadline/protocol';
import { sessionMemoryRoutes } from '../store/routes';
import { useAppStore } from '../store';
import { IconPencil, IconPin, IconUndo, IconTrash } from './Icons';
import { EmptyMemory } from './EmptyMemory';
import { FactEditForm } from './FactEditForm';

const CATEGORIES = FactCategorySchema.options;
const EMPTY: never[] = [];

function FactItem({
  fact,
  onChanged,
  onError,
}: {
  fact: MemoryFact;
  onChanged: () => void;
  onError: (m: string) => void;
}) {
  const { t } = useTranslation();
  const [editing, setEditing] = useState(false);
  const gone = fact.status === 'forgotten' || fact.status === 'superseded';

  const run = async (p: Promise<unknown>) => {
    try {
      await p;
      onChanged();
    } catch (err) {
      onError(errorMessage(err));
    }
  };

  return (
    <li
      className={`fact ${gone ? 'is-gone' : ''} ${fact.pinned ? 'is-pinned' : ''}`}
      data-testid="fact"
      data-status={fact.status}
      data-pinned={fact.pinned}
    >
      {editing ? (
        <FactEditForm
          initial={fact.content}
          label={t('memory.editLabel')}
          testIds={{ input: 'fact-edit-input', save: 'fact-save' }}
          onCancel={() => setEditing(false)}
          onSave={(text) => {
            setEditing(false);
            if (text !== fact.content)
              void run(
                sessionMemoryRoutes.upsertFact({
                  sessionId: fact.sessionId,
                  id: fact.id,
                  category: fact.category,
                  content: text,
                  pinned: fact.pinned,
                }),
              );
          }}
        />
      ) : (
        <>
          <div className="fact-content">
            {fact.pinned && <IconPin className="pin-mark" />}
            <span>{fact.content}</span>
          </div>
          <div className="fact-meta">
            <span>{t(`memory.source.${fact.source}`)}</span>
            <span className="dot-sep" />
            <span>{t('memory.confidence', { value: Math.round(fact.confidence * 100) })}</span>
            {fact.evidenceCount > 1 && (
              <>
                <span className="dot-sep" />
                <span>{t('memory.evidence', { count: fact.evidenceCount })}</span>
              </>
            )}
            {fact.status !== 'active' && (
              <>
                <span className="dot-sep" />
                <span className="status-word">{t(`memory.status.${fact.status}`)}</span>
              </>
            )}
          </div>
          <div className="fact-actions">
            {gone ? (
              <button
                type="button"
                className="link-btn"
                onClick={() => void run(sessionMemoryRoutes.setFactStatus({ id: fact.id, status: 'active' }))}
                data-testid="fact-restore"
              >
                <IconUndo />
                {t('memory.restore')}
              </button>
            ) : (
              <>
                <button
                  type="button"
                  className="link-btn"
                  onClick={() =>
                    void run(
                      sessionMemoryRoutes.setFactStatus({ id: fact.id, status: fact.status, pinned: !fact.pinned }),
                    )
                  }
                  data-testid="fact-pin"
                >
                  <IconPin />
                  {fact.pinned ? t('memory.unpin') : t('memory.pin')}
                </button>
                <button type="button" className="link-btn" onClick={() => setEditing(true)} data-testid="fact-edit">
                  <IconPencil />
                  {t('memory.edit')}
                </button>
                <button
                  type="button"
                  className="link-btn danger"
                  onClick={() => void run(sessionMemoryRoutes.setFactStatus({ id: fact.id, status: 'forgotten' }))}
                  data-testid="fact-forget"
                >
                  <IconTrash />
                  {t('memory.forget')}
                </button>
              </>
            )}
          </div>
        </>
      )}
    </li>
  );
}

/**
 * What the panel lists before "show gone": active and stale facts, and a goal a newer instruction
 * superseded (a correction the user made: both are shown, the older one marked superseded).
 */
function shownByDefault(f: MemoryFact): boolean {
  if (f.status === 'forgotten') return false;
  return f.status !== 'superseded' || f.category === 'goal';
}
/** The session's memory: facts by category, editable; rejected candidates with reasons in debug. */
export function SessionMemory({ sessionId }: { sessionId: string }) {
  const { t, i18n } = useTranslation();
  const facts = useAppStore((s) => s.bySession[sessionId]?.facts ?? EMPTY);
  const candidates = useAppStore((s) => s.bySession[sessionId]?.candidates ?? EMPTY);
  const messages = useAppStore((s) => s.bySession[sessionId]?.messages ?? EMPTY);
  const snapshots = useMemo(() => messages.filter((m) => m.kind === 'memory_snapshot'), [messages]);
  const debug = useAppStore((s) => s.settings?.cfpm.runtimeVisibility === 'debug');
  const load = useAppStore((s) => s.loadMemory);
  const [error, setError] = useState<string | null>(null);
  const [category, setCategory] = useState<FactCategory>('note');
  const [content, setContent] = useState('');
  const [showGone, setShowGone] = useState(false);

  useEffect(() => {
    void load(sessionId);
  }, [sessionId, load]);

  const refresh = () => {
    setError(null);
    void load(sessionId);
  };
  const rejected = useMemo(() => groupRejected(candidates), [candidates]);
  const visible = facts.filter((f) => showGone || shownByDefault(f));
  const goneCount = facts.length - facts.filter(shownByDefault).length;

  return (
    <>
      <p className="muted small">{t('memory.intro')}</p>
      <form
        className="fact-add"
        onSubmit={(e) => {
          e.preventDefault();
          if (!content.trim()) return;
          void sessionMemoryRoutes.upsertFact({ sessionId, category, content: content.trim() }).then(
            () => {
              setContent('');
              refresh();
            },
            (err: unknown) => setError(errorMessage(err)),
          );
        }}
      >
        <select
          className="select"
          value={category}
          onChange={(e) => setCategory(e.target.value as FactCategory)}
          aria-label={t('memory.category')}
          data-testid="fact-add-category"
        >
          {CATEGORIES.map((c) => (
            <option key={c} value={c}>
              {t(`memory.categories.${c}`)}
            </option>
          ))}
        </select>
        <input
          className="input"
          value={content}
          onChange={(e) => setContent(e.target.value)}
          placeholder={t('memory.addPlaceholder')}
          aria-label={t('memory.addPlaceholder')}
          data-testid="fact-add-input"
        />
        <button type="submit" className="btn btn-small btn-primary" disabled={!content.trim()} data-testid="fact-add">
          {t('memory.add')}
        </button>
      </form>
      {error && (
        <div className="form-error" role="alert">
          {error}
        </div>
      )}
      {visible.length === 0 && <EmptyMemory />}
      {CATEGORIES.map((c) => {
        const list = visible
          .filter((f) => f.category === c)
          .sort((a, b) => Number(b.pinned) - Number(a.pinned) || b.updatedAt - a.updatedAt);
        if (list.length === 0) return null;
        return (
          <section key={c} className="fact-group" data-testid={`fact-group-${c}`}>
            <h4 className="fact-group-title">
              {t(`memory.categories.${c}`)}
              <span className="count">{list.length}</span>
            </h4>
            <ul className="fact-list">
              {list.map((f) => (
                <FactItem key={f.id} fact={f} onChanged={refresh} onError={setError} />
              ))}
            </ul>
          </section>
        );
      })}
      {goneCount > 0 && (
        <button type="button" className="link-btn" onClick={() => setShowGone(!showGone)}>
          {showGone ? t('memory.hideForgotten') : t('memory.showForgotten', { count: goneCount })}
        </button>
      )}
      {snapshots.length > 0 && (
        <section className="fact-group">
          <h4 className="fact-group-title">
            {t('memory.snapshots')}
            <span className="count">{snapshots.length}</span>
          </h4>
          {snapshots
            .slice(-5)
            .reverse()
            .map((m) => (
              <details key={m.id} className="snapshot">
                <summary>{new Date(m.createdAt).toLocaleString(i18n.language)}</summary>
                <pre className="tool-pre">{m.content}</pre>
              </details>
            ))}
        </section>
      )}
      {debug && (
        <section className="fact-group" data-testid="rejected-candidates">
          <h4 className="fact-group-title">
            {t('memory.rejected')}
            <span className="count">{rejected.length}</span>
          </h4>
          {rejected.length === 0 && <div className="muted small">{t('memory.noRejected')}</div>}
          <ul className="fact-list">
            {rejected.slice(0, 50).map(({ c, count }) => (
              <li key={c.id} className="fact candidate" data-testid="rejected-candidate" data-count={count}>
                <div className="fact-content">{c.content}</div>
                <div className="fact-meta">
                  <span>{t(`memory.categories.${c.category}`)}</span>
                  <span className="dot-sep" />
                  <span className="reason">{t(`memory.reason.${c.reason}`)}</span>
                  {count > 1 && (
                    <>
                      <span className="dot-sep" />
                      <span className="candidate-count">{t('memory.seenTimes', { count })}</span>
                    </>
                  )}
                </div>
              </li>
            ))}
          </ul>
        </section>
      )}
    </>
  );
}

/**
 * Each rejected candidate once (same category, text and reason), newest first, with how many
 * times it was seen: the same line rejected on every turn is one row, not a wall of repeats.
 */
export function groupRejected(candidates: readonly MemoryCandidate[]): { c: MemoryCandidate; count: number }[] {
  const byKey = new Map<string, { c: MemoryCandidate; count: number }>();
  for (const c of candidates) {
    if (c.decision !== 'rejected') continue;
    const key = `${c.category}\u0000${c.reason}\u0000${c.content.trim()}`;
    const hit = byKey.get(key);
    if (hit) {
      hit.count += 1;
      if (c.createdAt >= hit.c.createdAt) hit.c = c;
    } else byKey.set(key, { c, count: 1 });
  }
  return [...byKey.values()].sort((a, b) => b.c.createdAt - a.c.createdAt);
}
