import type { SessionList as SessionListState } from "./useSessionList";
import { formatTime } from "./format";

export interface SessionListProps {
  list: SessionListState;
  selected: string | null;
  onSelect: (sessionId: string) => void;
}

/** Recent conversations, newest first; "Load more" follows the API's cursor. */
export function SessionList({ list, selected, onSelect }: SessionListProps) {
  return (
    <section className="ad-list" aria-label="Conversations" aria-busy={list.loading}>
      {list.error && (
        <p className="ad-error" role="alert" data-testid="admin-list-error">
          {list.error}
        </p>
      )}
      {list.loaded && list.items.length === 0 && (
        <p className="ad-muted" data-testid="admin-list-empty">
          No conversations match these filters.
        </p>
      )}
      <ul className="ad-list__items" data-testid="admin-sessions">
        {list.items.map((s) => (
          <li key={s.sessionId}>
            <button
              type="button"
              className="ad-session"
              aria-current={s.sessionId === selected ? "true" : undefined}
              onClick={() => onSelect(s.sessionId)}
              data-testid="admin-session"
              data-session-id={s.sessionId}
            >
              <span className="ad-session__first">{s.firstMessage || "(no message)"}</span>
              <span className="ad-session__meta">
                {formatTime(s.updatedAt)} · {s.turns} {s.turns === 1 ? "turn" : "turns"}
                {s.context.productModel ? ` · ${s.context.productModel}` : ""}
              </span>
              <span className="ad-session__badges">
                {s.ratings.down > 0 && <span className="ad-badge ad-badge--bad">{s.ratings.down} negative</span>}
                {s.ratings.up > 0 && <span className="ad-badge ad-badge--good">{s.ratings.up} positive</span>}
                {s.errors > 0 && <span className="ad-badge ad-badge--bad">{s.errors} errors</span>}
                {s.toolErrors > 0 && <span className="ad-badge ad-badge--warn">{s.toolErrors} tool failures</span>}
                {s.unknown.length > 0 && <span className="ad-badge ad-badge--warn">unknown: {s.unknown.join(", ")}</span>}
              </span>
            </button>
          </li>
        ))}
      </ul>
      {list.loading && <p className="ad-muted">Loading…</p>}
      {list.nextCursor && !list.loading && (
        <button type="button" className="ad-button" onClick={list.loadMore} data-testid="admin-load-more">
          Load more
        </button>
      )}
    </section>
  );
}
