import { useCallback, useState } from "react";
import type { FormEvent } from "react";
import type { AdminApi } from "./api";
import { AnswersChart } from "./AnswersChart";
import { formatMs, formatShare } from "./format";
import { TopList } from "./TopList";
import { useAdminResource } from "./useAdminResource";

export interface StatsViewProps {
  api: AdminApi;
  onUnauthorized: (why: string) => void;
}

function Figure({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <div className="ad-figure">
      <dt>{label}</dt>
      <dd data-testid={testId}>{value}</dd>
    </div>
  );
}

/** The aggregate figures over a date range (the server's default: the last 30 days). */
export function StatsView({ api, onUnauthorized }: StatsViewProps) {
  const [range, setRange] = useState<{ from: string; to: string }>({ from: "", to: "" });
  const [draft, setDraft] = useState(range);
  const load = useCallback(() => api.stats(range), [api, range]);
  const { data, loading, error } = useAdminResource(load, onUnauthorized);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setRange(draft);
  };

  return (
    <section className="ad-stats" data-testid="admin-stats" aria-busy={loading}>
      <form className="ad-filters" onSubmit={submit} aria-label="Date range">
        <label>
          From
          <input type="date" value={draft.from} onChange={(e) => setDraft({ ...draft, from: e.target.value })} data-testid="admin-stats-from" />
        </label>
        <label>
          To
          <input type="date" value={draft.to} onChange={(e) => setDraft({ ...draft, to: e.target.value })} data-testid="admin-stats-to" />
        </label>
        <button type="submit" className="ad-button ad-button--primary" data-testid="admin-stats-apply">
          Show
        </button>
      </form>
      {error && (
        <p className="ad-error" role="alert">
          {error}
        </p>
      )}
      {loading && <p className="ad-muted">Loading…</p>}
      {data && (
        <>
          <p className="ad-muted">
            {data.from} to {data.to} (UTC days)
          </p>
          <dl className="ad-figures">
            <Figure label="answers" value={String(data.answers)} testId="admin-stat-answers" />
            <Figure label="rated" value={String(data.rated)} testId="admin-stat-rated" />
            <Figure label="rated negative" value={formatShare(data.negativeShare)} testId="admin-stat-negative-share" />
            <Figure label="tool calls" value={String(data.toolCalls)} testId="admin-stat-tool-calls" />
            <Figure label="tool error rate" value={formatShare(data.toolErrorRate)} testId="admin-stat-tool-error-rate" />
            <Figure label="first token p50" value={formatMs(data.ttftMs.p50)} testId="admin-stat-ttft-p50" />
            <Figure label="first token p95" value={formatMs(data.ttftMs.p95)} testId="admin-stat-ttft-p95" />
          </dl>
          <section className="ad-card">
            <h3>Answers per day</h3>
            <AnswersChart days={data.answersPerDay} />
          </section>
          <div className="ad-tops">
            <TopList title="Unknown part numbers" items={data.topUnknownParts} testId="admin-top-parts" />
            <TopList title="Unknown models" items={data.topUnknownModels} testId="admin-top-models" />
            <TopList title="Top symptoms" items={data.topSymptoms} testId="admin-top-symptoms" />
          </div>
        </>
      )}
    </section>
  );
}
