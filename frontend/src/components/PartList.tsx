import { useEffect, useId, useMemo, useRef, useState } from "react";
import type { PartCardData } from "../chat/parts";
import { MAX_VISIBLE_PARTS, visibleParts } from "../chat/parts";
import { PartCard } from "./PartCard";

export interface PartListProps {
  parts: readonly PartCardData[];
  /** Cards shown before "Show N more" (default MAX_VISIBLE_PARTS). */
  limit?: number;
}

/**
 * The part cards of one answer: the first few, then a "Show N more" button that reveals the
 * rest (an answer listing many parts would otherwise crowd the widget). Expanding moves focus
 * to the first card it revealed, since the button goes away.
 */
export function PartList({ parts, limit = MAX_VISIBLE_PARTS }: PartListProps) {
  const [expanded, setExpanded] = useState(false);
  const { shown, hidden } = useMemo(() => visibleParts(parts, expanded, limit), [parts, expanded, limit]);
  const gridId = useId();
  const gridRef = useRef<HTMLDivElement>(null);
  const focusFrom = useRef<number | null>(null);

  useEffect(() => {
    const from = focusFrom.current;
    if (from === null) return;
    focusFrom.current = null;
    const card = gridRef.current?.querySelectorAll<HTMLElement>('[data-testid="pc-part-card"]')[from];
    if (card) {
      card.tabIndex = -1;
      card.focus();
    }
  }, [expanded]);

  if (parts.length === 0) return null;
  return (
    <>
      <div className="pc-parts" data-testid="pc-parts" id={gridId} ref={gridRef}>
        {shown.map((p) => (
          <PartCard key={p.partNumber} part={p} />
        ))}
      </div>
      {hidden > 0 && (
        <button
          type="button"
          className="pc-parts__more"
          data-testid="show-more-parts"
          aria-expanded={false}
          aria-controls={gridId}
          onClick={() => {
            focusFrom.current = shown.length;
            setExpanded(true);
          }}
        >
          Show {hidden} more {hidden === 1 ? "part" : "parts"}
        </button>
      )}
    </>
  );
}
