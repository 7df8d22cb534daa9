import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { inInbox, type ProjectFact, type ProjectFactKind } from '@threadline/protocol';
import { RpcError } from '../transport';
import { projectMemoryRoutes } from '../store/routes';
import { useAppStore } from '../store';
import { download } from './ExportItems';
import { ProjectFactItem, type ProjectFactActions } from './ProjectFactItem';

/** The kinds in the order the prompt's block has them: the user's words first. */
const KINDS: readonly ProjectFactKind[] = ['instruction', 'decision', 'command', 'path'];
/** Reasons the runtime gives for a refusal (RpcError.reason) that have their own sentence. */
const REASONS = new Set(['credential', 'duplicate', 'gone', 'not_in_project', 'not_an_export', 'no_folder']);

/** A failed call in the user's language: the sentence of its reason, else a general one. */
function useFailure(): (err: unknown) => string {
  const { t } = useTranslation();
  return (err) =>
    err instanceof RpcError && err.reason && REASONS.has(err.reason)
      ? t(`project.errors.${err.reason}`)
      : t('project.errors.generic');
}

/** The inbox: new candidates and stale facts, one row each, driven by keys as by clicks. */
function Inbox({
  sessionId,
  facts,
  act,
}: {
  sessionId: string;
  facts: ProjectFact[];
  act: (p: Promise<unknown>) => void;
}) {
  const { t } = useTranslation();
  const rows = useRef<(HTMLLIElement | null)[]>([]);
  /** A decided row: once it has left the list, focus goes to the row now in its place. */
  const [decidedRow, setDecidedRow] = useState<{ id: string; index: number } | null>(null);
  const candidates = facts.filter((f) => f.status === 'candidate');
  useEffect(() => {
    if (decidedRow === null || facts.some((f) => f.id === decidedRow.id)) return;
    rows.current[Math.min(decidedRow.index, facts.length - 1)]?.focus();
    setDecidedRow(null);
  }, [facts, decidedRow]);
  const decided = (i: number, p: Promise<unknown>) => {
    setDecidedRow({ id: facts[i]!.id, index: i });
    act(p);
  };
  const move = (i: number) => (e: KeyboardEvent<HTMLLIElement>) => {
    const to = e.key === 'ArrowDown' ? i + 1 : e.key === 'ArrowUp' ? i - 1 : null;
    if (to === null || to < 0 || to >= facts.length) return;
    e.preventDefault();
    rows.current[to]?.focus();
  };
  return (
    <section className="fact-group project-inbox" data-testid="project-inbox" aria-label={t('project.inbox')}>
      <h4 className="fact-group-title">
        {t('project.inbox')}
        <span className="count">{facts.length}</span>
        <span className="spacer" />
        {candidates.length > 1 && (
          <button
            type="button"
            className="btn btn-small"
            onClick={() => act(projectMemoryRoutes.decide({ ids: candidates.map((f) => f.id), decision: 'accept' }))}
            data-testid="project-accept-all"
          >
            {t('project.acceptAll', { count: candidates.length })}
          </button>
        )}
      </h4>
      <p className="muted small">{t('project.inboxHint')}</p>
      <ul className="fact-list" role="list">
        {facts.map((f, i) => {
          const stale = f.status === 'accepted';
          const actions: ProjectFactActions = stale
            ? {
                accept: () => decided(i, projectMemoryRoutes.decide({ ids: [f.id], decision: 'accept' })),
                forget: () => decided(i, projectMemoryRoutes.setFactStatus({ id: f.id, status: 'forgotten' })),
              }
            : {
                accept: () => decided(i, projectMemoryRoutes.decide({ ids: [f.id], decision: 'accept' })),
                reject: () => decided(i, projectMemoryRoutes.decide({ ids: [f.id], decision: 'reject' })),
                save: (content) =>
                  decided(i, projectMemoryRoutes.upsertFact({ sessionId, id: f.id, kind: f.kind, content })),
              };
          return (
            <ProjectFactItem
              key={f.id}
              fact={f}
              inbox
              actions={actions}
              itemRef={(el) => {
                rows.current[i] = el;
              }}
              onKeyDown={move(i)}
            />
          );
        })}
      </ul>
    </section>
  );
}

/**
 * The project's memory in the Memory panel: its root, the inbox, the accepted facts by kind (with
 * where each came from: pin, edit, forget), the forgotten and superseded ones (restore), export and
 * import. Changes arrive as `project.updated` (the store reloads it); a refusal is one sentence.
 */
export function ProjectMemoryView({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation();
  const memory = useAppStore((s) => s.bySession[sessionId]?.project);
  const openSettings = useAppStore((s) => s.openSettings);
  const failure = useFailure();
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [showGone, setShowGone] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);

  if (!memory) return <div className="muted">{t('project.loading')}</div>;
  if (memory.project === null)
    return (
      <p className="muted small" data-testid="project-no-folder">
        {t('project.noFolder')}
      </p>
    );

  const act = (p: Promise<unknown>) => {
    setError(null);
    setNote(null);
    p.catch((err: unknown) => setError(failure(err)));
  };
  // Edits of a candidate carry the session (the route finds the project by it).
  const withSession = (f: ProjectFact): ProjectFactActions => ({
    pin: () => act(projectMemoryRoutes.setFactStatus({ id: f.id, status: 'accepted', pinned: !f.pinned })),
    save: (content) =>
      act(projectMemoryRoutes.upsertFact({ sessionId, id: f.id, kind: f.kind, content, pinned: f.pinned })),
    forget: () => act(projectMemoryRoutes.setFactStatus({ id: f.id, status: 'forgotten' })),
  });
  const inbox = memory.facts.filter(inInbox);
  const kept = memory.facts.filter((f) => f.status === 'accepted' && f.stale === null);
  const gone = memory.facts.filter((f) => f.status === 'forgotten' || f.status === 'superseded');

  const exportAs = (format: 'json' | 'markdown') =>
    act(
      projectMemoryRoutes
        .export({ sessionId, format })
        .then((file) => download(file.filename, format === 'json' ? 'application/json' : 'text/markdown', file.text)),
    );
  const importFile = async (file: File) => {
    setError(null);
    setNote(null);
    try {
      const result = await projectMemoryRoutes.import({ sessionId, text: await file.text() });
      setNote(t('project.importedCount', { added: result.added, skipped: result.skipped }));
    } catch (err) {
      setError(failure(err));
    }
  };

  return (
    <div className="project-memory" data-testid="project-memory">
      <p className="muted small">{t('project.intro')}</p>
      <div className="project-root" title={memory.project} data-testid="project-root">
        {memory.project}
      </div>
      <div className="row-gap project-files">
        <button type="button" className="link-btn" onClick={() => exportAs('markdown')} data-testid="project-export-md">
          {t('project.exportMarkdown')}
        </button>
        <button type="button" className="link-btn" onClick={() => exportAs('json')} data-testid="project-export-json">
          {t('project.exportJson')}
        </button>
        <button
          type="button"
          className="link-btn"
          onClick={() => fileInput.current?.click()}
          data-testid="project-import"
        >
          {t('project.import')}
        </button>
        <input
          ref={fileInput}
          type="file"
          accept=".json,.md,.markdown,application/json,text/markdown"
          hidden
          onChange={(e) => {
            const file = e.target.files?.[0];
            e.target.value = '';
            if (file) void importFile(file);
          }}
          data-testid="project-import-input"
        />
      </div>
      {!memory.enabled && (
        <p className="notice-line" data-testid="project-off">
          {t('project.off')}{' '}
          <button type="button" className="link-btn" onClick={() => openSettings('context')}>
            {t('project.openSettings')}
          </button>
        </p>
      )}
      {error && (
        <div className="form-error" role="alert" data-testid="project-error">
          {error}
        </div>
      )}
      {note && (
        <div className="muted small" role="status" data-testid="project-note">
          {note}
        </div>
      )}
      {inbox.length > 0 && <Inbox sessionId={sessionId} facts={inbox} act={act} />}
      {kept.length === 0 && inbox.length === 0 && <div className="muted empty-facts">{t('project.empty')}</div>}
      {KINDS.map((kind) => {
        const list = kept
          .filter((f) => f.kind === kind)
          .sort((a, b) => Number(b.pinned) - Number(a.pinned) || a.createdAt - b.createdAt);
        if (list.length === 0) return null;
        return (
          <section key={kind} className="fact-group" data-testid={`project-group-${kind}`}>
            <h4 className="fact-group-title">
              {t(`project.kinds.${kind}`)}
              <span className="count">{list.length}</span>
            </h4>
            <ul className="fact-list">
              {list.map((f) => (
                <ProjectFactItem key={f.id} fact={f} actions={withSession(f)} />
              ))}
            </ul>
          </section>
        );
      })}
      {gone.length > 0 && (
        <button
          type="button"
          className="link-btn"
          onClick={() => setShowGone(!showGone)}
          data-testid="project-show-gone"
        >
          {showGone ? t('project.hideGone') : t('project.showGone', { count: gone.length })}
        </button>
      )}
      {showGone && (
        <ul className="fact-list is-gone-list">
          {gone.map((f) => (
            <ProjectFactItem
              key={f.id}
              fact={f}
              actions={{ restore: () => act(projectMemoryRoutes.setFactStatus({ id: f.id, status: 'accepted' })) }}
            />
          ))}
        </ul>
      )}
    </div>
  );
}
