/**
 * The pure core of the chat client: server events and local actions in, state out.
 * No I/O, no timers, no randomness: everything here is unit-tested on recorded event
 * sequences (reducer.test.ts). The socket side lives in client.ts.
 *
 * Resume rules (docs/protocol.md):
 * - every session event carries `seq`, one more than the previous one; an event whose seq is
 *   not above `lastSeq` was already applied and is dropped;
 * - an event after a gap (seq > lastSeq + 1) is not applied: `resyncNeeded` asks the client to
 *   reconnect and resume from `lastSeq`, so nothing is applied out of order;
 * - `ready.seq` is the seq of the session's last event, and after a server crash it jumps
 *   ahead of anything the client saw (the server skips the seqs reserved for the crashed
 *   turn). With nothing in flight, `lastSeq` becomes `ready.seq`: `history` has every
 *   completed turn, so replayed events up to it add nothing and the live stream continues at
 *   `ready.seq + 1`. With a turn in flight the replay follows `ready`: its first event may
 *   jump over `lastSeq + 1` (not beyond `ready.seq + 1`), and the gap check applies from it;
 * - `ready.history` is the server's truth for completed turns. An assistant message that is
 *   final (from history or finished live) never takes more events: the replay of a turn that
 *   completed while we were away cannot double its text;
 * - the in-flight turn's assistant message is never taken from history: either we kept our
 *   own copy (we resumed with lastSeq, the replay continues after it) or the replay rebuilds
 *   it from its `start`.
 */
import type {
  Context,
  ErrorCode,
  FinishReason,
  HistoryMessage,
  Rating,
  ReadyEvent,
  ServerEvent,
} from "../protocol";
import { EMPTY_CONTEXT } from "../protocol";
import type {
  AssistantMessage,
  ChatMessage,
  ChatState,
  FeedbackState,
  ToolCall,
  UserMessage,
} from "./types";
import { finishStatus } from "./finishStatus";

export type ChatAction =
  | { type: "server"; event: ServerEvent }
  /** The user wrote a message: it is queued until a socket is ready. */
  | { type: "send"; id: string; text: string }
  /** The message frame was written to an open, ready socket. */
  | { type: "sent"; id: string }
  /** The socket closed: messages written but not acknowledged go back to the queue. */
  | { type: "disconnected" }
  /** Put a refused message back in the queue. */
  | { type: "retry-message"; id: string }
  | { type: "dismiss-error" }
  /** After repeated resyncs that did not close a gap: apply events after gaps anyway. */
  | { type: "tolerate-gaps" }
  /** The feedback frame for a finished answer was written: its rating is pending. */
  | { type: "feedback"; turnId: string; rating: Rating; reason?: string }
  /** The feedback frame could not be written (no ready connection). */
  | { type: "feedback-unsent"; turnId: string; message: string };

/** Shown when the server does not know the rated answer (error `not_found`). */
export const FEEDBACK_NOT_FOUND = "Your rating could not be saved: this answer is not stored any more.";

export interface ReducerState extends ChatState {
  tolerateGaps: boolean;
  /**
   * Set by a `ready` with a turn in flight: its `seq`. Until the first stream event after it,
   * that event starts the replay (or the live stream) and may jump over `lastSeq + 1` as far
   * as `replayUntil + 1`; null otherwise.
   */
  replayUntil: number | null;
}

export function initialState(sessionId: string | null = null): ReducerState {
  return {
    sessionId,
    lastSeq: null,
    ready: false,
    messages: [],
    context: EMPTY_CONTEXT,
    activeTurnId: null,
    error: null,
    announcement: null,
    resyncNeeded: false,
    tolerateGaps: false,
    replayUntil: null,
    elsewhereTurnId: null,
  };
}

export function assistantIdFor(turnId: string): string {
  return `assistant-${turnId}`;
}

/** Errors that refuse a client message that was not stored (it can be sent again). */
const MESSAGE_REFUSALS = new Set<ErrorCode>([
  "busy",
  "rate_limited",
  "message_too_long",
  "not_ready",
  "storage_unavailable",
  "server_restarting",
  "llm_unavailable",
  "internal",
]);

export function chatReducer(state: ReducerState, action: ChatAction): ReducerState {
  switch (action.type) {
    case "server":
      return applyServerEvent(state, action.event);
    case "send": {
      if (state.messages.some((m) => m.id === action.id)) return state;
      const msg: UserMessage = {
        role: "user",
        id: action.id,
        text: action.text,
        turnId: null,
        status: "queued",
      };
      return { ...state, messages: [...state.messages, msg] };
    }
    case "sent":
      return mapUser(state, action.id, (m) => (m.status === "queued" ? { ...m, status: "sent" } : m));
    case "disconnected":
      return {
        ...state,
        ready: false,
        messages: state.messages.map((m) =>
          m.role === "user" && m.status === "sent" ? { ...m, status: "queued" } : m,
        ),
      };
    case "retry-message": {
      const next = mapUser(state, action.id, (m) => {
        if (m.status !== "failed") return m;
        const { errorCode: _c, errorMessage: _m, ...rest } = m;
        return { ...rest, status: "queued" };
      });
      return next.error?.messageId === action.id || next.error?.code === "busy"
        ? { ...next, error: null }
        : next;
    }
    case "dismiss-error":
      return state.error ? { ...state, error: null } : state;
    case "tolerate-gaps":
      return { ...state, tolerateGaps: true, resyncNeeded: false };
    case "feedback":
      return mapFinishedAssistant(state, action.turnId, (a) =>
        withFeedback(a, action.rating, action.reason, "pending"),
      );
    case "feedback-unsent":
      return mapFinishedAssistant(state, action.turnId, (a) => clearFeedback(a, action.message));
  }
}

/** Whether an answer can be rated: it is over (not streaming). */
export function canRate(m: ChatMessage): m is AssistantMessage {
  return m.role === "assistant" && m.status !== "streaming";
}

/** The answer with this rating (and no error message). */
function withFeedback<A extends Omit<AssistantMessage, "feedback">>(
  a: A,
  rating: Rating,
  reason: string | undefined,
  status: FeedbackState["status"],
): A & { feedback: FeedbackState } {
  const { feedbackError: _e, ...rest } = a;
  return { ...(rest as A), feedback: { rating, ...(reason ? { reason } : {}), status } };
}

function clearFeedback(a: AssistantMessage, message: string): AssistantMessage {
  const { feedback: _f, ...rest } = a;
  return { ...rest, feedbackError: message };
}

function mapFinishedAssistant(
  state: ReducerState,
  turnId: string,
  fn: (a: AssistantMessage) => AssistantMessage,
): ReducerState {
  const target = findAssistant(state.messages, turnId);
  if (!target || !canRate(target)) return state;
  return { ...state, messages: state.messages.map((m) => (m === target ? fn(target) : m)) };
}

/** `feedback_saved`: the rating is stored (the server's copy wins over what we sent). */
function applyFeedbackSaved(state: ReducerState, turnId: string, rating: Rating, reason?: string): ReducerState {
  return mapFinishedAssistant(state, turnId, (a) => withFeedback(a, rating, reason, "saved"));
}

/**
 * Error `not_found` answers a feedback frame about a turn the server does not have: the
 * rating of that turn (or, when the error names none, every pending one) is cleared with a
 * message. Returns null when no pending rating matches (the error is then a plain error).
 */
function applyFeedbackNotFound(state: ReducerState, turnId: string | null, message: string): ReducerState | null {
  let changed = false;
  const messages = state.messages.map((m) => {
    if (m.role !== "assistant" || !m.feedback) return m;
    if (turnId ? m.turnId !== turnId : m.feedback.status !== "pending") return m;
    changed = true;
    return clearFeedback(m, message);
  });
  return changed ? { ...state, messages } : null;
}

function applyServerEvent(state: ReducerState, ev: ServerEvent): ReducerState {
  if (ev.type === "ready") return applyReady(state, ev);
  if (ev.type === "pong") return state;
  if (ev.type === "feedback_saved") return applyFeedbackSaved(state, ev.turnId, ev.rating, ev.reason);
  if (ev.type === "error" && ev.code === "not_found" && ev.seq == null) {
    const cleared = applyFeedbackNotFound(state, ev.turnId ?? null, FEEDBACK_NOT_FOUND);
    if (cleared) return cleared;
  }

  const seq = ev.seq;
  if (typeof seq === "number") {
    if (state.resyncNeeded && !state.tolerateGaps) return state;
    if (state.lastSeq !== null) {
      if (seq <= state.lastSeq) return state; // already applied (replay / duplicate)
      // The first event after a ready with a turn in flight starts the replay: the seqs it
      // jumps over were never stored (a crash) or belong to turns `history` already has.
      const replayStart = state.replayUntil !== null && seq <= state.replayUntil + 1;
      if (seq > state.lastSeq + 1 && !replayStart && !state.tolerateGaps) {
        return { ...state, resyncNeeded: true };
      }
    }
    state = { ...state, lastSeq: seq, replayUntil: null };
  }

  switch (ev.type) {
    case "start":
      return applyStart(state, ev.turnId, ev.messageId);
    case "text-delta":
      return withLiveAssistant(state, ev.turnId, (a) =>
        ev.delta ? { ...a, text: a.text + ev.delta } : a,
      );
    case "tool-input-available":
      return withLiveAssistant(state, ev.turnId, (a) =>
        upsertTool(a, ev.toolCallId, (t) =>
          t
            ? { ...t, input: ev.input }
            : { toolCallId: ev.toolCallId, toolName: ev.toolName, input: ev.input, status: "running" },
        ),
      );
    case "tool-output-available":
      return withLiveAssistant(state, ev.turnId, (a) =>
        upsertTool(a, ev.toolCallId, (t) => ({
          toolCallId: ev.toolCallId,
          toolName: ev.toolName,
          input: t?.input ?? null,
          status: "done",
          output: ev.output,
        })),
      );
    case "tool-output-error":
      return withLiveAssistant(state, ev.turnId, (a) =>
        upsertTool(a, ev.toolCallId, (t) => ({
          toolCallId: ev.toolCallId,
          toolName: ev.toolName,
          input: t?.input ?? null,
          status: "failed",
          errorText: ev.errorText,
          errors: ev.errors,
        })),
      );
    case "data-context": {
      const a = findAssistant(state.messages, ev.turnId);
      if (a && a.status !== "streaming") return state; // old news: ready.context is newer
      return { ...state, context: normaliseContext(ev.context) };
    }
    case "finish":
      return applyFinish(state, ev.turnId, ev.text, ev.finishReason);
    case "error":
      return applyError(state, ev.code, ev.message, ev.turnId ?? null, ev.messageId ?? null);
  }
}

function applyReady(state: ReducerState, ev: ReadyEvent): ReducerState {
  const { inflight, history } = ev;
  // Same session, resumed: our local messages are still meaningful. Otherwise only what the
  // user has not had delivered yet survives (it is sent again to the new session).
  const sameSession = ev.resumed && (state.sessionId === null || state.sessionId === ev.sessionId);
  const local = sameSession
    ? state.messages
    : state.messages.filter((m) => m.role === "user" && (m.status === "queued" || m.status === "sent"));

  const historyIds = new Set(history.map((h) => h.id));
  const historyTurns = new Set(history.map((h) => h.turnId));
  const messages: ChatMessage[] = [];

  for (const h of history) {
    // The in-flight turn's answer is rebuilt by the replay (or continued from our copy).
    if (inflight && h.role === "assistant" && h.turnId === inflight.turnId) continue;
    messages.push(fromHistory(h));
  }

  if (inflight) {
    if (!historyIds.has(inflight.messageId)) {
      const u = local.find((m) => m.role === "user" && m.id === inflight.messageId);
      if (u && u.role === "user") messages.push({ ...u, status: "delivered", turnId: inflight.turnId });
    }
    // Keep our copy of the streaming answer only if the replay continues after our lastSeq.
    if (sameSession && state.lastSeq !== null) {
      const a = findAssistant(local, inflight.turnId);
      if (a) messages.push(a.status === "streaming" ? a : { ...a, status: "streaming" });
    }
  }

  const placed = new Set(messages.map((m) => m.id));
  for (const m of local) {
    if (placed.has(m.id)) continue;
    if (m.role === "user") {
      if (historyIds.has(m.id) || inflight?.messageId === m.id) continue;
      if (m.status === "delivered") continue; // the server no longer has it: nothing to resend
      messages.push(m.status === "sent" ? { ...m, status: "queued" } : m);
    } else {
      if (historyTurns.has(m.turnId) || inflight?.turnId === m.turnId) continue;
      // A turn the server does not list any more: keep what was shown, as interrupted.
      messages.push(m.status === "streaming" ? { ...m, status: "interrupted" } : m);
    }
  }

  // Nothing in flight: the server's position is ours (history holds every completed turn, so
  // replayed events up to ready.seq add nothing), whatever lastSeq we had: this is how the
  // client follows the seq jump after a server crash instead of taking it for lost events.
  // A turn in flight: its events are replayed after ready, from our lastSeq (or from its start).
  let lastSeq: number | null = ev.seq;
  if (inflight) {
    lastSeq = sameSession ? state.lastSeq : null;
    if (lastSeq !== null && lastSeq > ev.seq) lastSeq = null; // the server's stream went back
  }

  // A turn that was running on another server: ended once its answer is in the history (every
  // ending stores one, even a failed or interrupted turn), or this server now streams it. Until
  // then the server repeats `turn_elsewhere` right after this ready, so nothing flickers.
  let { elsewhereTurnId, error } = state;
  if (elsewhereTurnId !== null) {
    const ended =
      !sameSession ||
      inflight?.turnId === elsewhereTurnId ||
      history.some((h) => h.role === "assistant" && h.turnId === elsewhereTurnId);
    if (ended) {
      elsewhereTurnId = null;
      if (error?.code === "turn_elsewhere") error = null;
    }
  }
  return {
    ...state,
    error,
    elsewhereTurnId,
    sessionId: ev.sessionId,
    lastSeq,
    replayUntil: inflight ? ev.seq : null,
    ready: true,
    messages,
    context: normaliseContext(ev.context),
    activeTurnId: inflight ? inflight.turnId : null,
    resyncNeeded: false,
  };
}

function applyStart(state: ReducerState, turnId: string, messageId: string): ReducerState {
  let messages = state.messages.map((m) =>
    m.role === "user" && m.id === messageId && m.status !== "delivered"
      ? { ...m, status: "delivered" as const, turnId, errorCode: undefined, errorMessage: undefined }
      : m,
  );
  const existing = findAssistant(messages, turnId);
  if (existing && existing.status !== "streaming") {
    return { ...state, messages };
  }
  if (!existing) {
    const a = newAssistant(turnId);
    const userIndex = messages.findIndex((m) => m.role === "user" && m.id === messageId);
    messages =
      userIndex >= 0
        ? [...messages.slice(0, userIndex + 1), a, ...messages.slice(userIndex + 1)]
        : [...messages, a];
  }
  const error = state.error && isRefusal(state.error.code) ? null : state.error;
  return { ...state, messages, activeTurnId: turnId, error };
}

function applyFinish(
  state: ReducerState,
  turnId: string,
  text: string,
  finishReason: FinishReason,
): ReducerState {
  const activeTurnId = state.activeTurnId === turnId ? null : state.activeTurnId;
  const existing = findAssistant(state.messages, turnId);
  if (existing && existing.status !== "streaming") {
    return activeTurnId === state.activeTurnId ? state : { ...state, activeTurnId };
  }
  const base = existing ?? newAssistant(turnId);
  const finalText = text || base.text;
  const done: AssistantMessage = {
    ...base,
    text: finalText,
    status: finishStatus(finishReason, text),
    finishReason,
    tools: base.tools.map((t) =>
      t.status === "running" ? { ...t, status: finishReason === "stop" ? "done" : "failed" } : t,
    ),
  };
  const messages = existing
    ? state.messages.map((m) => (m === existing ? done : m))
    : [...state.messages, done];
  return {
    ...state,
    messages,
    activeTurnId,
    announcement: { id: done.id, text: finalText, finishReason },
  };
}

function applyError(
  state: ReducerState,
  code: ErrorCode,
  message: string,
  turnId: string | null,
  messageId: string | null,
): ReducerState {
  if (code === "turn_elsewhere") {
    return { ...state, elsewhereTurnId: turnId, error: { code, message } };
  }
  let messages = state.messages;
  if (code === "busy" && !turnId && state.elsewhereTurnId !== null) {
    // Sent before the client learned the session's turn runs elsewhere: it waits, not fails.
    return {
      ...state,
      messages: messages.map((m) =>
        m.role === "user" && m.status === "sent" && (!messageId || m.id === messageId)
          ? { ...m, status: "queued" as const }
          : m,
      ),
    };
  }
  if (!turnId && MESSAGE_REFUSALS.has(code)) {
    const target = messageId
      ? messages.find((m) => m.role === "user" && m.id === messageId && m.status !== "delivered")
      : messages.find((m) => m.role === "user" && m.status === "sent");
    if (target) {
      messages = messages.map((m) =>
        m === target ? { ...m, status: "failed" as const, errorCode: code, errorMessage: message } : m,
      );
    }
  }
  return {
    ...state,
    messages,
    error: { code, message, ...(messageId ? { messageId } : {}) },
  };
}

function isRefusal(code: ErrorCode): boolean {
  return code === "busy" || code === "rate_limited";
}

function newAssistant(turnId: string): AssistantMessage {
  return { role: "assistant", id: assistantIdFor(turnId), text: "", turnId, status: "streaming", tools: [] };
}

function findAssistant(messages: readonly ChatMessage[], turnId: string): AssistantMessage | undefined {
  for (const m of messages) if (m.role === "assistant" && m.turnId === turnId) return m;
  return undefined;
}

/** Applies fn to the turn's streaming answer (created if missing); final answers stay as they are. */
function withLiveAssistant(
  state: ReducerState,
  turnId: string,
  fn: (a: AssistantMessage) => AssistantMessage,
): ReducerState {
  const existing = findAssistant(state.messages, turnId);
  if (existing && existing.status !== "streaming") return state;
  if (!existing) {
    return {
      ...state,
      messages: [...state.messages, fn(newAssistant(turnId))],
      activeTurnId: turnId,
    };
  }
  const updated = fn(existing);
  if (updated === existing) return state;
  return { ...state, messages: state.messages.map((m) => (m === existing ? updated : m)) };
}

function upsertTool(
  a: AssistantMessage,
  toolCallId: string,
  fn: (t: ToolCall | undefined) => ToolCall,
): AssistantMessage {
  const i = a.tools.findIndex((t) => t.toolCallId === toolCallId);
  if (i < 0) return { ...a, tools: [...a.tools, fn(undefined)] };
  const tools = a.tools.slice();
  tools[i] = fn(a.tools[i]);
  return { ...a, tools };
}

function mapUser(state: ReducerState, id: string, fn: (m: UserMessage) => UserMessage): ReducerState {
  let changed = false;
  const messages = state.messages.map((m) => {
    if (m.role !== "user" || m.id !== id) return m;
    const n = fn(m);
    if (n !== m) changed = true;
    return n;
  });
  return changed ? { ...state, messages } : state;
}

function fromHistory(h: HistoryMessage): ChatMessage {
  if (h.role === "user") {
    return { role: "user", id: h.id, text: h.text, turnId: h.turnId, status: "delivered" };
  }
  const answer: AssistantMessage = {
    role: "assistant",
    id: h.id,
    text: h.text,
    turnId: h.turnId,
    status: h.status ?? "complete",
    tools: (h.toolOutputs ?? []).map((t) => ({
      toolCallId: t.toolCallId,
      toolName: t.toolName,
      input: null,
      status: "done" as const,
      output: t.output,
    })),
  };
  return h.feedback ? withFeedback(answer, h.feedback.rating, h.feedback.reason, "saved") : answer;
}

function normaliseContext(c: Context | null | undefined): Context {
  if (!c) return EMPTY_CONTEXT;
  return {
    productModel: c.productModel ?? null,
    partNumber: c.partNumber ?? null,
    symptoms: Array.isArray(c.symptoms) ? c.symptoms : [],
    applianceType: c.applianceType ?? null,
  };
}

/** Derived: a message is waiting to be answered, or an answer is streaming. */
export function isBusy(state: ChatState): boolean {
  return (
    state.activeTurnId !== null ||
    state.messages.some((m) => m.role === "user" && (m.status === "queued" || m.status === "sent"))
  );
}

export function queuedMessages(state: ChatState): UserMessage[] {
  return state.messages.filter((m): m is UserMessage => m.role === "user" && m.status === "queued");
}
