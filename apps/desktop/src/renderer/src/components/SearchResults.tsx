import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { SEARCH_MARK, type SearchHit } from '@threadline/protocol';
import { useAppStore } from '../store';
import { chatRoutes } from '../store/routes';

/** A snippet with its matches marked (the host wraps them in control characters, never in HTML). */
export function Snippet({ text }: { text: string }) {
  const parts: React.ReactNode[] = [];
  let rest = text;
  let key = 0;
  for (;;) {
    const a = rest.indexOf(SEARCH_MARK.start);
    const b = a < 0 ? -1 : rest.indexOf(SEARCH_MARK.end, a);
    if (a < 0 || b < 0) break;
    if (a > 0) parts.push(rest.slice(0, a));
    parts.push(<mark key={key++}>{rest.slice(a + 1, b)}</mark>);
    rest = rest.slice(b + 1);
  }
  if (rest) parts.push(rest.replaceAll(SEARCH_MARK.start, '').replaceAll(SEARCH_MARK.end, ''));
  return <>{parts}</>;
}

/** Messages of every session that contain the query (full-text search), below the title matches. */
export function SearchResults({ query }: { query: string }) {
  const { t } = useTranslation();
  const openMessage = useAppStore((s) => s.openMessage);
  const openHelperMessage = useAppStore((s) => s.openHelperMessage);
  const [hits, setHits] = useState<SearchHit[] | null>(null);
  const [failed, setFailed] = useState(false);
  const q = query.trim();
  useEffect(() => {
    if (!q) {
      setHits(null);
      return;
    }
    let stale = false;
    // Typing settles before the host is asked: one search per pause, not per key.
    const timer = setTimeout(() => {
      chatRoutes.search({ query: q, limit: 30 }).then(
        (r) => {
          if (stale) return;
          setHits(r);
          setFailed(false);
        },
        () => {
          if (!stale) setFailed(true);
        },
      );
    }, 200);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [q]);
  if (!q || (hits === null && !failed)) return null;
  return (
    <section className="search-results" aria-label={t('search.inMessages')} data-testid="search-results">
      <div className="search-results-h">{t('search.inMessages')}</div>
      {failed && <div className="session-empty">{t('search.failed')}</div>}
      {hits?.length === 0 && <div className="session-empty">{t('search.noMessages')}</div>}
      <ul>
        {hits?.map((h) => (
          <li key={h.messageId}>
            <button
              type="button"
              className="search-hit"
              onClick={() =>
                void (h.parentSessionId
                  ? openHelperMessage(h.parentSessionId, h.sessionId, h.messageId)
                  : openMessage(h.sessionId, h.messageId))
              }
              data-testid="search-hit"
              data-message-id={h.messageId}
            >
              <span className="search-hit-title">
                {h.sessionTitle || t('sidebar.untitled')}
                <span className="search-hit-role">
                  {h.parentSessionId ? t('search.inHelper') : t(`search.role.${h.role}`)}
                </span>
              </span>
              <span className="search-hit-snippet">
                <Snippet text={h.snippet} />
              </span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
