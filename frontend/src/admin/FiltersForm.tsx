import { useId, useState } from "react";
import type { FormEvent } from "react";
import type { SessionFilters } from "./types";
import { NO_FILTERS } from "./types";

export interface FiltersFormProps {
  value: SessionFilters;
  onApply: (filters: SessionFilters) => void;
}

/** The list's filters: edited here, applied (list, export) on "Apply". */
export function FiltersForm({ value, onApply }: FiltersFormProps) {
  const [draft, setDraft] = useState<SessionFilters>(value);
  const id = useId();
  const set = <K extends keyof SessionFilters>(key: K, v: SessionFilters[K]) => setDraft((d) => ({ ...d, [key]: v }));

  const submit = (e: FormEvent) => {
    e.preventDefault();
    onApply({ ...draft, symptom: draft.symptom.trim() });
  };
  const reset = () => {
    setDraft(NO_FILTERS);
    onApply(NO_FILTERS);
  };

  return (
    <form className="ad-filters" onSubmit={submit} data-testid="admin-filters" aria-label="Filter conversations">
      <label>
        Feedback
        <select
          value={draft.feedback}
          onChange={(e) => set("feedback", e.target.value as SessionFilters["feedback"])}
          data-testid="admin-filter-feedback"
        >
          <option value="">any</option>
          <option value="down">rated negative</option>
          <option value="up">rated positive</option>
        </select>
      </label>
      <label className="ad-check">
        <input type="checkbox" checked={draft.errors} onChange={(e) => set("errors", e.target.checked)} data-testid="admin-filter-errors" />
        errors
      </label>
      <label className="ad-check">
        <input
          type="checkbox"
          checked={draft.toolErrors}
          onChange={(e) => set("toolErrors", e.target.checked)}
          data-testid="admin-filter-tool-errors"
        />
        tool failures
      </label>
      <label className="ad-check">
        <input type="checkbox" checked={draft.unknown} onChange={(e) => set("unknown", e.target.checked)} data-testid="admin-filter-unknown" />
        unknown parts / models
      </label>
      <label>
        Symptom
        <input
          type="search"
          value={draft.symptom}
          maxLength={200}
          placeholder="e.g. Not draining"
          onChange={(e) => set("symptom", e.target.value)}
          data-testid="admin-filter-symptom"
        />
      </label>
      <label htmlFor={`${id}-from`}>
        From
        <input id={`${id}-from`} type="date" value={draft.from} onChange={(e) => set("from", e.target.value)} data-testid="admin-filter-from" />
      </label>
      <label htmlFor={`${id}-to`}>
        To
        <input id={`${id}-to`} type="date" value={draft.to} onChange={(e) => set("to", e.target.value)} data-testid="admin-filter-to" />
      </label>
      <div className="ad-filters__actions">
        <button type="submit" className="ad-button ad-button--primary" data-testid="admin-filter-apply">
          Apply
        </button>
        <button type="button" className="ad-button" onClick={reset} data-testid="admin-filter-reset">
          Reset
        </button>
      </div>
    </form>
  );
}
