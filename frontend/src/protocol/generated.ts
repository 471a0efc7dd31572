/* eslint-disable */
/**
 * GENERATED FILE: do not edit by hand.
 * Source: backend/partchat/schemas/protocol.schema.json
 * Regenerate with: npm run gen:protocol
 */

/**
 * partchat WebSocket wire protocol (/ws, JSON text frames). Single source of truth: the server validates client frames against $defs.ClientFrame, tests validate server events against $defs.ServerEvent, and frontend/src/protocol/generated.ts is generated from this file (npm run gen:protocol). See docs/protocol.md.
 */
export type ProtocolFrame = ClientFrame | ServerEvent;
export type ClientFrame = HelloFrame | MessageFrame | StopFrame | PingFrame | FeedbackFrame;
export type SessionId = string;
/**
 * Per-session event number; grows by one per session event.
 */
export type Seq = number;
export type TurnId = string;
/**
 * A shopper's rating of one answer.
 */
export type Rating = "up" | "down";
export type ServerEvent =
  | ReadyEvent
  | StartEvent
  | TextDeltaEvent
  | ToolInputAvailableEvent
  | ToolOutputAvailableEvent
  | ToolOutputErrorEvent
  | DataContextEvent
  | FinishEvent
  | ErrorEvent
  | PongEvent
  | FeedbackSavedEvent;
export type ApplianceType = "refrigerator" | "dishwasher" | null;
export type FinishReason = "stop" | "aborted" | "error" | "length";
export type ErrorCode =
  | "bad_frame"
  | "not_ready"
  | "unknown_type"
  | "message_too_long"
  | "rate_limited"
  | "busy"
  | "llm_unavailable"
  | "internal"
  | "storage_unavailable"
  | "server_restarting"
  | "turn_elsewhere"
  | "not_found";

/**
 * First frame on every connection. sessionId null starts a new session; lastSeq is the highest seq the client has applied (null: none, e.g. after a page reload).
 */
export interface HelloFrame {
  type: "hello";
  sessionId: SessionId | null;
  lastSeq: Seq | null;
}
/**
 * A user message. id is chosen by the client and makes the message idempotent: resending the same id never stores or runs it twice.
 */
export interface MessageFrame {
  type: "message";
  id: string;
  text: string;
}
/**
 * Cancel the turn in flight; the server answers with finish {finishReason: "aborted"}.
 */
export interface StopFrame {
  type: "stop";
}
export interface PingFrame {
  type: "ping";
}
/**
 * Rate the answer of a finished turn of this session. Idempotent: sending it again stores nothing new; a different rating or reason replaces the stored one. The server answers feedback_saved, or error not_found when the session has no such finished turn.
 */
export interface FeedbackFrame {
  type: "feedback";
  turnId: TurnId;
  rating: Rating;
  reason?: string;
}
/**
 * Answer to hello. seq is the session's current last seq (not a new one). resumed is false when a new session was started (no id, or an unknown one). Events after the client's lastSeq are replayed right after it.
 */
export interface ReadyEvent {
  type: "ready";
  sessionId: SessionId;
  resumed: boolean;
  context: Context;
  history: HistoryMessage[];
  inflight: Inflight | null;
  seq: Seq;
}
/**
 * What the session knows about the shopper's appliance.
 */
export interface Context {
  productModel: string | null;
  partNumber: string | null;
  symptoms: string[];
  applianceType: ApplianceType;
}
/**
 * A stored message. User messages carry the client message id as id.
 */
export interface HistoryMessage {
  id: string;
  role: "user" | "assistant";
  text: string;
  turnId: TurnId;
  status?: "complete" | "partial" | "failed" | "interrupted";
  toolOutputs?: ToolOutput[];
  feedback?: Feedback;
}
/**
 * A tool result stored with an assistant message (see docs/tool-results.md for the shapes).
 */
export interface ToolOutput {
  toolCallId: string;
  toolName: string;
  output: {
    [k: string]: unknown | undefined;
  };
}
/**
 * Assistant messages: the shopper's stored rating, when there is one.
 */
export interface Feedback {
  rating: Rating;
  reason?: string;
}
/**
 * The turn running right now in this session, if any.
 */
export interface Inflight {
  turnId: TurnId;
  messageId: string;
}
/**
 * The user message (messageId = the client message id) is stored; the turn runs.
 */
export interface StartEvent {
  type: "start";
  turnId: TurnId;
  messageId: string;
  seq: Seq;
}
export interface TextDeltaEvent {
  type: "text-delta";
  turnId: TurnId;
  delta: string;
  seq: Seq;
}
export interface ToolInputAvailableEvent {
  type: "tool-input-available";
  turnId: TurnId;
  toolCallId: string;
  toolName: string;
  input: {
    [k: string]: unknown | undefined;
  };
  seq: Seq;
}
export interface ToolOutputAvailableEvent {
  type: "tool-output-available";
  turnId: TurnId;
  toolCallId: string;
  toolName: string;
  output: {
    [k: string]: unknown | undefined;
  };
  seq: Seq;
}
export interface ToolOutputErrorEvent {
  type: "tool-output-error";
  turnId: TurnId;
  toolCallId: string;
  toolName: string;
  errorText: string;
  errors: FieldError[];
  seq: Seq;
}
export interface FieldError {
  path: string;
  message: string;
}
export interface DataContextEvent {
  type: "data-context";
  turnId: TurnId;
  context: Context;
  seq: Seq;
}
/**
 * The turn is over. text is the whole assistant answer as stored (authoritative over the concatenated deltas).
 */
export interface FinishEvent {
  type: "finish";
  turnId: TurnId;
  text: string;
  finishReason: FinishReason;
  seq: Seq;
}
/**
 * An error. seq is present when the error is part of the session's event stream (e.g. an error inside a turn), absent for connection-level errors (bad_frame, not_ready, busy, rate_limited, turn_elsewhere...). messageId names the client message the error refers to, when there is one.
 */
export interface ErrorEvent {
  type: "error";
  code: ErrorCode;
  message: string;
  turnId?: TurnId | null;
  messageId?: string | null;
  seq?: Seq | null;
}
/**
 * Answer to ping. Not part of the session's event stream.
 */
export interface PongEvent {
  type: "pong";
  seq?: Seq | null;
}
/**
 * The rating of turnId is stored. Not part of the session's event stream.
 */
export interface FeedbackSavedEvent {
  type: "feedback_saved";
  turnId: TurnId;
  rating: Rating;
  reason?: string;
}
