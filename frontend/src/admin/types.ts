/**
 * The operator JSON API's answers (/api/admin/*, backend/partchat/transport/admin_api.py). Timestamps
 * are ISO 8601 UTC strings; days are YYYY-MM-DD.
 */
import type { Context, Rating } from "../protocol";

export interface SessionSummary {
  sessionId: string;
  createdAt: string;
  updatedAt: string;
  turns: number;
  firstMessage: string;
  context: Context;
  ratings: { up: number; down: number };
  errors: number;
  toolErrors: number;
  /** Part and model numbers the shopper gave that the catalog does not know. */
  unknown: string[];
}

export interface SessionPage {
  items: SessionSummary[];
  nextCursor: string | null;
}

export interface AdminToolCall {
  toolCallId: string;
  round: number;
  name: string;
  arguments: Record<string, unknown>;
  ok: boolean;
  errorCode: string | null;
  durationMs: number;
  resultBytes: number;
  result: Record<string, unknown> | null;
}

export interface TurnTimings {
  queueMs: number | null;
  firstTokenMs: number | null;
  llmMs: number | null;
  toolsMs: number | null;
  totalMs: number | null;
}

export interface AdminTurn {
  turnId: string;
  startedAt: string;
  finishedAt: string | null;
  status: string;
  finishReason: string | null;
  model: string | null;
  user: { id: string; text: string };
  assistant: { text: string; status: string } | null;
  feedback: { rating: Rating; reason?: string; at: string } | null;
  timings: TurnTimings;
  toolCalls: AdminToolCall[];
}

export interface SessionDetail {
  sessionId: string;
  createdAt: string;
  updatedAt: string;
  context: Context;
  turns: AdminTurn[];
}

export interface CountedValue {
  value: string;
  count: number;
}

export interface DayAnswers {
  day: string;
  answers: number;
  negative: number;
}

export interface AdminStats {
  from: string | null;
  to: string | null;
  answers: number;
  answersPerDay: DayAnswers[];
  rated: number;
  negativeShare: number | null;
  topUnknownParts: CountedValue[];
  topUnknownModels: CountedValue[];
  topSymptoms: CountedValue[];
  toolCalls: number;
  toolErrorRate: number | null;
  ttftMs: { p50: number | null; p95: number | null };
}

/** The list and export filters, as the form holds them ("" / false: not filtered). */
export interface SessionFilters {
  feedback: "" | Rating;
  errors: boolean;
  toolErrors: boolean;
  unknown: boolean;
  symptom: string;
  from: string;
  to: string;
}

export const NO_FILTERS: SessionFilters = {
  feedback: "",
  errors: false,
  toolErrors: false,
  unknown: false,
  symptom: "",
  from: "",
  to: "",
};

export type ExportFormat = "jsonl" | "csv";
