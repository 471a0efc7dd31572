import type { Context, ErrorCode, FieldError, FinishReason, Rating } from "../protocol";

export type ToolStatus = "running" | "done" | "failed";

export interface ToolCall {
  toolCallId: string;
  toolName: string;
  input: Record<string, unknown> | null;
  status: ToolStatus;
  output?: Record<string, unknown>;
  errorText?: string;
  errors?: FieldError[];
}

/**
 * user: queued (not written to a socket yet) → sent (written, waiting for `start`)
 *       → delivered (stored by the server); failed when the server refused it (busy, ...).
 * assistant: streaming → complete | partial | failed | interrupted.
 */
export type UserStatus = "queued" | "sent" | "delivered" | "failed";
export type AssistantStatus = "streaming" | "complete" | "partial" | "failed" | "interrupted";

export interface UserMessage {
  role: "user";
  id: string;
  text: string;
  turnId: string | null;
  status: UserStatus;
  errorCode?: ErrorCode;
  errorMessage?: string;
}

export interface AssistantMessage {
  role: "assistant";
  id: string;
  text: string;
  turnId: string;
  status: AssistantStatus;
  finishReason?: FinishReason;
  tools: ToolCall[];
  /** The shopper's rating of this answer: sent (pending) or stored (saved). */
  feedback?: FeedbackState;
  /** Why the last rating was not stored (shown next to the buttons). */
  feedbackError?: string;
}

/** pending: the feedback frame is written, no `feedback_saved` yet; saved: the server stored it. */
export interface FeedbackState {
  rating: Rating;
  reason?: string;
  status: "pending" | "saved";
}

export type ChatMessage = UserMessage | AssistantMessage;

export interface ChatError {
  code: ErrorCode;
  message: string;
  messageId?: string;
}

export interface Announcement {
  id: string;
  text: string;
  finishReason: FinishReason;
}

export interface ChatState {
  sessionId: string | null;
  /** Highest seq applied; null before any (e.g. after a page reload). */
  lastSeq: number | null;
  /** True once `ready` arrived on the current connection. */
  ready: boolean;
  messages: ChatMessage[];
  context: Context;
  /** The turn whose answer is streaming, if any. */
  activeTurnId: string | null;
  error: ChatError | null;
  /** Set when an answer finished live (not from history): what the live region announces. */
  announcement: Announcement | null;
  /** Set when an event arrived after a gap in seq: the client must resume to get the missing ones. */
  resyncNeeded: boolean;
  /**
   * A turn of this session that another server process is running (`turn_elsewhere`): this
   * connection cannot stream it. New messages wait (queued, not refused) until a later `ready`
   * shows it ended; the client reconnects now and then to find out.
   */
  elsewhereTurnId: string | null;
}
