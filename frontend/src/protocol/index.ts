export type * from "./generated";
import type { ClientFrame, Context, ServerEvent } from "./generated";

export const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;
export const MAX_MESSAGE_LENGTH = 4000;
/** Longest feedback reason the server accepts (FeedbackFrame.reason). */
export const MAX_FEEDBACK_REASON_LENGTH = 500;

export const EMPTY_CONTEXT: Context = {
  productModel: null,
  partNumber: null,
  symptoms: [],
  applianceType: null,
};

const SERVER_EVENT_TYPES = new Set<ServerEvent["type"]>([
  "ready",
  "start",
  "text-delta",
  "tool-input-available",
  "tool-output-available",
  "tool-output-error",
  "data-context",
  "finish",
  "error",
  "pong",
  "feedback_saved",
]);

/** Parses one server text frame. Returns null for anything that is not a known event. */
export function parseServerEvent(data: unknown): ServerEvent | null {
  if (typeof data !== "string") return null;
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const type = (value as { type?: unknown }).type;
  if (typeof type !== "string" || !SERVER_EVENT_TYPES.has(type as ServerEvent["type"])) return null;
  return value as ServerEvent;
}

export function encodeClientFrame(frame: ClientFrame): string {
  return JSON.stringify(frame);
}
