/** Part cards from tool outputs (docs/tool-results.md): `part`, `parts[]`, `candidates[].part`. */
import type { ToolCall } from "./types";

export type Fit = "fits" | "not_listed" | "unknown_model" | null;

export interface PartCardData {
  partNumber: string;
  mfrNumber: string | null;
  name: string;
  brand: string | null;
  partType: string | null;
  priceCents: number | null;
  price: string | null;
  availability: string | null;
  inStock: boolean | null;
  videoUrl: string | null;
  difficulty: string | null;
  installTime: string | null;
  rating: number | null;
  reviewCount: number | null;
  fit: Fit;
  model: string | null;
  /** Why it was suggested (diagnose_repair candidates). */
  reason?: string;
}

function str(v: unknown): string | null {
  return typeof v === "string" && v.trim() ? v : null;
}
function num(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

export function toPartCard(value: unknown): PartCardData | null {
  if (typeof value !== "object" || value === null) return null;
  const o = value as Record<string, unknown>;
  const partNumber = str(o.partNumber);
  if (!partNumber) return null;
  const fit = o.fit === "fits" || o.fit === "not_listed" || o.fit === "unknown_model" ? o.fit : null;
  return {
    partNumber,
    mfrNumber: str(o.mfrNumber),
    name: str(o.name) ?? partNumber,
    brand: str(o.brand),
    partType: str(o.partType),
    priceCents: num(o.priceCents),
    price: str(o.price),
    availability: str(o.availability),
    inStock: typeof o.inStock === "boolean" ? o.inStock : null,
    videoUrl: str(o.videoUrl),
    difficulty: str(o.difficulty),
    installTime: str(o.installTime),
    rating: num(o.rating),
    reviewCount: num(o.reviewCount),
    fit,
    model: str(o.model),
  };
}

/** All part cards of one tool output, in order. */
export function partsFromOutput(output: unknown): PartCardData[] {
  if (typeof output !== "object" || output === null) return [];
  const o = output as Record<string, unknown>;
  if (o.ok === false) return [];
  const out: PartCardData[] = [];
  const single = toPartCard(o.part);
  if (single) out.push(single);
  if (Array.isArray(o.parts)) {
    for (const p of o.parts) {
      const card = toPartCard(p);
      if (card) out.push(card);
    }
  }
  if (Array.isArray(o.candidates)) {
    for (const c of o.candidates) {
      if (typeof c !== "object" || c === null) continue;
      const card = toPartCard((c as Record<string, unknown>).part);
      const reason = str((c as Record<string, unknown>).reason);
      if (card) out.push(reason ? { ...card, reason } : card);
    }
  }
  return out;
}

/**
 * Part cards of one assistant message, de-duplicated by partNumber. A later result about the
 * same part fills in what an earlier one lacked (e.g. the fit from check_compatibility).
 */
export function partsForMessage(tools: readonly ToolCall[]): PartCardData[] {
  const byNumber = new Map<string, PartCardData>();
  for (const t of tools) {
    if (t.status !== "done" || !t.output) continue;
    for (const card of partsFromOutput(t.output)) {
      const prev = byNumber.get(card.partNumber);
      if (!prev) {
        byNumber.set(card.partNumber, card);
        continue;
      }
      const merged: PartCardData = { ...prev };
      for (const key of Object.keys(card) as (keyof PartCardData)[]) {
        const v = card[key];
        if (v !== null && v !== undefined && (key === "fit" || key === "model" || merged[key] === null || merged[key] === undefined)) {
          (merged as unknown as Record<string, unknown>)[key] = v;
        }
      }
      byNumber.set(card.partNumber, merged);
    }
  }
  return [...byNumber.values()];
}

/** Part cards shown per answer before "Show N more": more crowds the widget. */
export const MAX_VISIBLE_PARTS = 5;

export interface VisibleParts {
  shown: PartCardData[];
  /** How many cards the "Show N more" button would add (0: no button). */
  hidden: number;
}

/** The cards an answer shows: the first `limit`, or all of them once expanded. */
export function visibleParts(
  parts: readonly PartCardData[],
  expanded: boolean,
  limit: number = MAX_VISIBLE_PARTS,
): VisibleParts {
  const cap = Math.max(0, Math.floor(limit));
  if (expanded || parts.length <= cap) return { shown: [...parts], hidden: 0 };
  return { shown: parts.slice(0, cap), hidden: parts.length - cap };
}
