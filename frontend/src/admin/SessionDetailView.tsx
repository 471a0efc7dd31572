import { useCallback } from "react";
import type { AdminApi } from "./api";
import { formatTime } from "./format";
import { TurnView } from "./TurnView";
import { useAdminResource } from "./useAdminResource";

export interface SessionDetailViewProps {
  api: AdminApi;
  sessionId: string;
  onUnauthorized: (why: string) => void;
  onClose: () => void;
}

/** One conversation, turn by turn, as the shopper saw it plus what the operator needs. */
export function SessionDetailView({ api, sessionId, onUnauthorized, onClose }: SessionDetailViewProps) {
  const load = useCallback(() => api.session(sessionId), [api, sessionId]);
  const { data, loading, error } = useAdminResource(load, onUnauthorized);
  const ctx = data?.context;
  return (
    <section className="ad-card ad-detail" data-testid="admin-detail" aria-label="Conversation" aria-busy={loading}>
      <header className="ad-detail__head">
        <h2>
          Conversation <code data-testid="admin-detail-id">{sessionId}</code>
        </h2>
        <button type="button" className="ad-button" onClick={onClose} data-testid="admin-detail-close">
          Close
        </button>
      </header>
      {loading && <p className="ad-muted">Loading…</p>}
      {error && (
        <p className="ad-error" role="alert">
          {error}
        </p>
      )}
      {data && (
        <>
          <p className="ad-muted">
            Started {formatTime(data.createdAt)} · last activity {formatTime(data.updatedAt)}
            {ctx?.productModel ? ` · model ${ctx.productModel}` : ""}
            {ctx?.partNumber ? ` · part ${ctx.partNumber}` : ""}
            {ctx?.applianceType ? ` · ${ctx.applianceType}` : ""}
            {ctx && ctx.symptoms.length > 0 ? ` · ${ctx.symptoms.join(", ")}` : ""}
          </p>
          <ol className="ad-turns">
            {data.turns.map((t) => (
              <TurnView key={t.turnId} turn={t} />
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
