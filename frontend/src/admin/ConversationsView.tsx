import { useState } from "react";
import type { AdminApi } from "./api";
import { ExportButtons } from "./ExportButtons";
import { FiltersForm } from "./FiltersForm";
import { SessionDetailView } from "./SessionDetailView";
import { SessionList } from "./SessionList";
import type { SessionFilters } from "./types";
import { NO_FILTERS } from "./types";
import { useSessionList } from "./useSessionList";

export interface ConversationsViewProps {
  api: AdminApi;
  onUnauthorized: (why: string) => void;
}

/** Filters, the conversation list with export, and the open conversation. */
export function ConversationsView({ api, onUnauthorized }: ConversationsViewProps) {
  const [filters, setFilters] = useState<SessionFilters>(NO_FILTERS);
  const [selected, setSelected] = useState<string | null>(null);
  const list = useSessionList(api, filters, onUnauthorized);
  return (
    <div className="ad-conversations">
      <FiltersForm value={filters} onApply={setFilters} />
      <ExportButtons api={api} filters={filters} onUnauthorized={onUnauthorized} />
      <div className="ad-split">
        <SessionList list={list} selected={selected} onSelect={setSelected} />
        {selected ? (
          <SessionDetailView
            key={selected}
            api={api}
            sessionId={selected}
            onUnauthorized={onUnauthorized}
            onClose={() => setSelected(null)}
          />
        ) : (
          <p className="ad-muted ad-detail-empty">Pick a conversation to read it.</p>
        )}
      </div>
    </div>
  );
}
