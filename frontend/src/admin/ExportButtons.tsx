import { useState } from "react";
import type { AdminApi } from "./api";
import { AdminApiError } from "./api";
import { saveBlob } from "./download";
import type { ExportFormat, SessionFilters } from "./types";

export interface ExportButtonsProps {
  api: AdminApi;
  filters: SessionFilters;
  onUnauthorized: (why: string) => void;
}

/** Downloads the filtered conversations as JSON Lines (one session a line) or CSV (one turn a row). */
export function ExportButtons({ api, filters, onUnauthorized }: ExportButtonsProps) {
  const [busy, setBusy] = useState<ExportFormat | null>(null);
  const [status, setStatus] = useState<string | null>(null);

  const run = async (format: ExportFormat) => {
    setBusy(format);
    setStatus(null);
    try {
      const { blob, filename } = await api.exportFile(format, filters);
      saveBlob(blob, filename);
      setStatus(`Saved ${filename}.`);
    } catch (err) {
      if (err instanceof AdminApiError && err.unauthorized) onUnauthorized("The token is no longer accepted.");
      setStatus(`Export failed: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      setBusy(null);
    }
  };

  return (
    <div className="ad-export" role="group" aria-label="Export the filtered conversations">
      <button type="button" className="ad-button" disabled={busy !== null} onClick={() => void run("jsonl")} data-testid="admin-export-jsonl">
        {busy === "jsonl" ? "Exporting…" : "Export JSON Lines"}
      </button>
      <button type="button" className="ad-button" disabled={busy !== null} onClick={() => void run("csv")} data-testid="admin-export-csv">
        {busy === "csv" ? "Exporting…" : "Export CSV"}
      </button>
      <span className="ad-muted" role="status" data-testid="admin-export-status">
        {status}
      </span>
    </div>
  );
}
