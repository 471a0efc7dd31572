/**
 * ChatClient owns the WebSocket: hello/resume, reconnect with backoff and jitter, the send
 * queue, a ping + stall watchdog, and reconnects on `visibilitychange` / `online`.
 * All state changes go through the pure reducer; React reads it with useSyncExternalStore
 * (useChat.ts). The socket factory, storage, timers and randomness are injectable for tests.
 */
import type { ClientFrame, Rating, ServerEvent } from "../protocol";
import {
  encodeClientFrame,
  parseServerEvent,
  SESSION_ID_PATTERN,
  MAX_FEEDBACK_REASON_LENGTH,
  MAX_MESSAGE_LENGTH,
} from "../protocol";
import type { ChatAction, ReducerState } from "./reducer";
import { chatReducer, initialState, isBusy, queuedMessages } from "./reducer";
import type { Announcement } from "./types";

export const SESSION_STORAGE_KEY = "partchat.sessionId";
export const FEEDBACK_OFFLINE = "Your rating was not sent: not connected. Try again in a moment.";

/** The subset of the browser WebSocket the client uses. */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number; reason?: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}

export type SocketFactory = (url: string) => SocketLike;

export type ConnectionStatus = "connecting" | "open" | "reconnecting" | "closed";

export interface ChatClientOptions {
  /** Origin of the partchat server ("" or undefined: the page's origin). */
  server?: string;
  socketFactory?: SocketFactory;
  /** Where the session id is kept; null disables persistence. Default: localStorage. */
  storage?: Pick<Storage, "getItem" | "setItem" | "removeItem"> | null;
  random?: () => number;
  now?: () => number;
  setTimeout?: (fn: () => void, ms: number) => unknown;
  clearTimeout?: (id: unknown) => void;
  /** Base delay of the reconnect backoff (ms). */
  backoffBaseMs?: number;
  /** Cap of the reconnect backoff (ms). */
  backoffMaxMs?: number;
  /** No frame for this long while a turn runs → reconnect (ms). */
  stallMs?: number;
  /** Ping interval while connected (ms). */
  pingMs?: number;
  /** Browser events source (visibilitychange/online); null disables. */
  eventTarget?: { doc?: Document | null; win?: Window | null } | null;
  idFactory?: () => string;
}

export interface ChatSnapshot {
  state: ReducerState;
  status: ConnectionStatus;
  busy: boolean;
  /** The socket could not be used (refused origin, closed for good...). */
  connectionError: string | null;
}

export type ChatClientEvent = "ready" | "message" | "status";
type Listener = (payload: unknown) => void;

/** Close codes after which reconnecting would fail the same way. */
const FATAL_CLOSE_CODES = new Set([1008, 1009]);
const ELSEWHERE_BASE_MS = 2_000;
const ELSEWHERE_MAX_MS = 30_000;
/** About six minutes of rechecks: a turn elsewhere normally ends in seconds. */
const ELSEWHERE_MAX_CHECKS = 15;

export function wsUrl(server: string | undefined, pageHref?: string): string {
  const base = server && server.trim() ? server.trim() : pageHref ?? globalThis.location?.href ?? "http://localhost/";
  const url = new URL("/ws", base);
  url.protocol = url.protocol === "https:" ? "wss:" : url.protocol === "wss:" ? "wss:" : "ws:";
  url.hash = "";
  url.search = "";
  return url.toString();
}

function defaultStorage(): Pick<Storage, "getItem" | "setItem" | "removeItem"> | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null; // storage blocked (third-party iframe, privacy mode)
  }
}

function defaultId(): string {
  const c = globalThis.crypto;
  if (c && typeof c.randomUUID === "function") return c.randomUUID();
  return `m-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
}

export class ChatClient {
  private readonly opts: Required<
    Pick<ChatClientOptions, "backoffBaseMs" | "backoffMaxMs" | "stallMs" | "pingMs">
  > &
    ChatClientOptions;
  private readonly storage: Pick<Storage, "getItem" | "setItem" | "removeItem"> | null;
  private readonly factory: SocketFactory;
  private snapshot: ChatSnapshot;
  private readonly subscribers = new Set<() => void>();
  private readonly listeners = new Map<ChatClientEvent, Set<Listener>>();

  private socket: SocketLike | null = null;
  private started = false;
  private everReady = false;
  private attempt = 0;
  private reconnectTimer: unknown = null;
  private watchdogTimer: unknown = null;
  private lastFrameAt = 0;
  private resyncs = 0;
  /** The server refused this page (1008): only a user action (retry) reconnects. */
  private refused = false;
  private lastPingAt = 0;
  /** Rechecks of a turn running on another server (`turn_elsewhere`), and the pending one. */
  private elsewhereChecks = 0;
  private elsewhereTimer: unknown = null;
  /** Delays chosen for reconnects, newest last (exposed for tests and diagnostics). */
  readonly backoffHistory: number[] = [];

  constructor(options: ChatClientOptions = {}) {
    this.opts = {
      backoffBaseMs: 500,
      backoffMaxMs: 10_000,
      stallMs: 30_000,
      pingMs: 15_000,
      ...options,
    };
    this.storage = options.storage === undefined ? defaultStorage() : options.storage;
    this.factory =
      options.socketFactory ?? ((url: string) => new WebSocket(url) as unknown as SocketLike);
    let stored: string | null;
    try {
      stored = this.storage?.getItem(SESSION_STORAGE_KEY) ?? null;
    } catch {
      stored = null;
    }
    const sessionId = stored && SESSION_ID_PATTERN.test(stored) ? stored : null;
    this.snapshot = {
      state: initialState(sessionId),
      status: "connecting",
      busy: false,
      connectionError: null,
    };
  }

  // ---- store interface (useSyncExternalStore) ----

  subscribe = (fn: () => void): (() => void) => {
    this.subscribers.add(fn);
    return () => this.subscribers.delete(fn);
  };

  getSnapshot = (): ChatSnapshot => this.snapshot;

  on(event: ChatClientEvent, fn: Listener): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(fn);
    return () => set.delete(fn);
  }

  private emit(event: ChatClientEvent, payload: unknown): void {
    for (const fn of this.listeners.get(event) ?? []) {
      try {
        fn(payload);
      } catch (err) {
        console.error("partchat listener failed", err);
      }
    }
  }

  private update(patch: Partial<Omit<ChatSnapshot, "state">>, action?: ChatAction): void {
    const prev = this.snapshot;
    const state = action ? chatReducer(prev.state, action) : prev.state;
    const next: ChatSnapshot = { ...prev, ...patch, state, busy: isBusy(state) };
    if (
      next.state === prev.state &&
      next.status === prev.status &&
      next.connectionError === prev.connectionError
    ) {
      return;
    }
    this.snapshot = next;
    if (next.status !== prev.status) this.emit("status", next.status);
    for (const fn of this.subscribers) fn();
  }

  private dispatch(action: ChatAction): void {
    this.update({}, action);
  }

  get state(): ReducerState {
    return this.snapshot.state;
  }

  // ---- lifecycle ----

  start(): void {
    if (this.started) return;
    this.started = true;
    this.refused = false;
    this.addBrowserListeners();
    this.connect();
  }

  stop(): void {
    if (!this.started) return;
    this.started = false;
    this.removeBrowserListeners();
    this.clearReconnect();
    this.clearElsewhereCheck();
    this.clearWatchdog();
    this.dropSocket(1000, "client stopped");
    this.update({ status: "closed" });
  }

  /** Reconnect now (after an error, or the user pressed retry). */
  reconnectNow(): void {
    this.refused = false;
    if (!this.started) {
      this.start();
      return;
    }
    this.clearReconnect();
    this.attempt = 0;
    this.dropSocket(4001, "reconnect");
    this.connect();
  }

  // ---- user actions ----

  /** Queues a user message and sends it as soon as the session is ready. Returns its id. */
  send(text: string): string | null {
    const trimmed = text.trim();
    if (!trimmed) return null;
    const id = (this.opts.idFactory ?? defaultId)();
    this.dispatch({ type: "send", id, text: trimmed.slice(0, MAX_MESSAGE_LENGTH) });
    this.flushQueue();
    return id;
  }

  stopTurn(): void {
    this.write({ type: "stop" });
  }

  /** Retry: failed messages go back to the queue; a dead connection reconnects. */
  retry(): void {
    for (const m of this.snapshot.state.messages) {
      if (m.role === "user" && m.status === "failed") this.dispatch({ type: "retry-message", id: m.id });
    }
    this.dispatch({ type: "dismiss-error" });
    this.update({ connectionError: null });
    this.elsewhereChecks = 0;
    // A turn on another server is only seen to end by a new `ready`: reconnect for one.
    if (!this.isReady() || this.snapshot.state.elsewhereTurnId !== null) this.reconnectNow();
    else this.flushQueue();
  }

  /**
   * Rates a finished answer. The rating shows as pending until `feedback_saved`; without a
   * ready connection nothing is sent and the answer says so.
   */
  sendFeedback(turnId: string, rating: Rating, reason?: string): void {
    const trimmed = reason?.trim().slice(0, MAX_FEEDBACK_REASON_LENGTH);
    const frame: ClientFrame = { type: "feedback", turnId, rating, ...(trimmed ? { reason: trimmed } : {}) };
    if (this.write(frame)) {
      this.dispatch({ type: "feedback", turnId, rating, ...(trimmed ? { reason: trimmed } : {}) });
    } else {
      this.dispatch({ type: "feedback-unsent", turnId, message: FEEDBACK_OFFLINE });
    }
  }

  retryMessage(id: string): void {
    this.dispatch({ type: "retry-message", id });
    this.flushQueue();
  }

  dismissError(): void {
    this.dispatch({ type: "dismiss-error" });
    this.update({ connectionError: null });
  }

  // ---- socket ----

  private isReady(): boolean {
    return this.socket !== null && this.socket.readyState === 1 && this.snapshot.state.ready;
  }

  private connect(): void {
    if (!this.started) return;
    const url = wsUrl(this.opts.server);
    let socket: SocketLike;
    try {
      socket = this.factory(url);
    } catch (err) {
      this.update({ connectionError: `Cannot connect: ${String(err)}` });
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    this.update({ status: this.everReady ? "reconnecting" : "connecting" });

    socket.onopen = () => {
      if (this.socket !== socket) return;
      this.lastFrameAt = this.now();
      const st = this.snapshot.state;
      this.rawWrite(socket, { type: "hello", sessionId: st.sessionId, lastSeq: st.lastSeq });
      this.armWatchdog();
    };
    socket.onmessage = (ev) => {
      if (this.socket !== socket) return;
      this.lastFrameAt = this.now();
      const event = parseServerEvent(ev.data);
      if (event) this.handleEvent(event);
    };
    socket.onerror = () => {
      /* onclose follows and does the work */
    };
    socket.onclose = (ev) => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.clearWatchdog();
      this.dispatch({ type: "disconnected" });
      if (!this.started) return;
      if (FATAL_CLOSE_CODES.has(ev.code)) {
        const why =
          ev.code === 1008
            ? "The chat server refused this page (origin not allowed)."
            : "A message was too big for the chat server.";
        this.update({ status: "closed", connectionError: why });
        if (ev.code === 1008) {
          this.refused = true; // retrying cannot help; the user can press retry
          return;
        }
      }
      this.scheduleReconnect();
    };
  }

  private handleEvent(event: ServerEvent): void {
    const before = this.snapshot.state;
    if (event.type === "ready") {
      this.everReady = true;
      this.attempt = 0;
      try {
        this.storage?.setItem(SESSION_STORAGE_KEY, event.sessionId);
      } catch {
        /* storage full or blocked: the session lasts as long as the page */
      }
      this.update({ status: "open", connectionError: null }, { type: "server", event });
      if (this.snapshot.state.elsewhereTurnId === null) this.elsewhereChecks = 0;
      this.emit("ready", { sessionId: event.sessionId, resumed: event.resumed });
      this.flushQueue();
      return;
    }
    this.dispatch({ type: "server", event });
    const after = this.snapshot.state;
    if (event.type === "error" && event.code === "turn_elsewhere") this.scheduleElsewhereCheck();
    if (after.lastSeq !== before.lastSeq) this.resyncs = 0;
    if (after.resyncNeeded && !before.resyncNeeded) {
      // A gap in seq: resume from what we have. If that keeps failing, stop insisting.
      this.resyncs += 1;
      if (this.resyncs > 3) {
        this.dispatch({ type: "tolerate-gaps" });
      } else {
        this.reconnectNow();
      }
      return;
    }
    if (after.announcement && after.announcement !== before.announcement) {
      this.emit("message", after.announcement satisfies Announcement);
    }
    this.flushQueue();
  }

  /** Sends queued messages, one at a time: the server runs one turn per session. */
  private flushQueue(): void {
    if (!this.isReady()) return;
    const st = this.snapshot.state;
    if (st.activeTurnId !== null || st.elsewhereTurnId !== null) return;
    if (st.messages.some((m) => m.role === "user" && m.status === "sent")) return;
    const next = queuedMessages(st)[0];
    if (!next) return;
    if (this.write({ type: "message", id: next.id, text: next.text })) {
      this.dispatch({ type: "sent", id: next.id });
      this.armWatchdog();
    }
  }

  private write(frame: ClientFrame): boolean {
    const s = this.socket;
    if (!s || s.readyState !== 1) return false;
    if (frame.type !== "hello" && !this.snapshot.state.ready) return false;
    return this.rawWrite(s, frame);
  }

  private rawWrite(s: SocketLike, frame: ClientFrame): boolean {
    try {
      s.send(encodeClientFrame(frame));
      return true;
    } catch {
      return false;
    }
  }

  private dropSocket(code: number, reason: string): void {
    const s = this.socket;
    this.socket = null;
    this.clearWatchdog();
    if (s) {
      s.onopen = s.onmessage = s.onerror = null;
      s.onclose = null;
      try {
        s.close(code, reason);
      } catch {
        /* already closed */
      }
      this.dispatch({ type: "disconnected" });
    }
  }

  /** Exponential backoff with jitter: delay in [cap/2, cap], cap = min(max, base·2^attempt). */
  nextBackoff(): number {
    return this.jittered(Math.min(this.opts.backoffMaxMs, this.opts.backoffBaseMs * 2 ** this.attempt));
  }

  /** A delay in [cap/2, cap]. */
  private jittered(cap: number): number {
    const rnd = (this.opts.random ?? Math.random)();
    return Math.round(cap / 2 + (cap / 2) * rnd);
  }

  private scheduleReconnect(): void {
    if (!this.started || this.reconnectTimer !== null) return;
    const delay = this.nextBackoff();
    this.attempt += 1;
    this.backoffHistory.push(delay);
    if (this.snapshot.status !== "closed") {
      this.update({ status: this.everReady ? "reconnecting" : "connecting" });
    }
    this.reconnectTimer = this.timeout(() => {
      this.reconnectTimer = null;
      this.connect();
    }, delay);
  }

  /**
   * Another server process runs this session's turn: reconnect later to see whether it ended
   * (its answer then comes in `ready.history` and waiting messages go). Delays double from 2 s
   * to 30 s with jitter; after ELSEWHERE_MAX_CHECKS the banner's Retry starts over.
   */
  private scheduleElsewhereCheck(): void {
    if (!this.started || this.elsewhereTimer !== null) return;
    if (this.elsewhereChecks >= ELSEWHERE_MAX_CHECKS) return;
    const delay = this.jittered(Math.min(ELSEWHERE_MAX_MS, ELSEWHERE_BASE_MS * 2 ** this.elsewhereChecks));
    this.elsewhereChecks += 1;
    this.elsewhereTimer = this.timeout(() => {
      this.elsewhereTimer = null;
      if (this.snapshot.state.elsewhereTurnId !== null) this.reconnectNow();
    }, delay);
  }

  private clearElsewhereCheck(): void {
    if (this.elsewhereTimer !== null) {
      this.clearTimer(this.elsewhereTimer);
      this.elsewhereTimer = null;
    }
  }

  private clearReconnect(): void {
    if (this.reconnectTimer !== null) {
      this.clearTimer(this.reconnectTimer);
      this.reconnectTimer = null;
    }
  }

  // ---- watchdog: pings while connected; reconnects when a turn runs and nothing arrives ----

  private armWatchdog(): void {
    this.clearWatchdog();
    if (!this.socket) return;
    const tick = Math.min(5_000, this.opts.pingMs, this.opts.stallMs);
    this.watchdogTimer = this.timeout(() => {
      this.watchdogTimer = null;
      this.checkStall();
    }, tick);
  }

  private clearWatchdog(): void {
    if (this.watchdogTimer !== null) {
      this.clearTimer(this.watchdogTimer);
      this.watchdogTimer = null;
    }
  }

  private checkStall(): void {
    if (!this.socket || !this.started) return;
    const now = this.now();
    const quietFor = now - this.lastFrameAt;
    if (this.snapshot.busy && quietFor >= this.opts.stallMs) {
      this.dropSocket(4002, "stalled");
      this.scheduleReconnect();
      return;
    }
    if (this.snapshot.state.ready && now - this.lastPingAt >= this.opts.pingMs && quietFor >= this.opts.pingMs / 2) {
      this.lastPingAt = now;
      this.write({ type: "ping" });
    }
    this.armWatchdog();
  }

  // ---- browser events ----

  private onVisibility = (): void => {
    const doc = this.opts.eventTarget?.doc ?? globalThis.document;
    if (doc?.visibilityState !== "visible" || this.refused) return;
    if (!this.socket || this.socket.readyState > 1) {
      this.reconnectNow();
    } else if (this.isReady()) {
      this.write({ type: "ping" }); // a half-dead socket shows up through the watchdog
    }
  };

  private onOnline = (): void => {
    if (this.refused) return;
    if (!this.socket || this.socket.readyState !== 1) this.reconnectNow();
  };

  private addBrowserListeners(): void {
    if (this.opts.eventTarget === null) return;
    const doc = this.opts.eventTarget?.doc ?? globalThis.document;
    const win = this.opts.eventTarget?.win ?? (typeof window !== "undefined" ? window : null);
    doc?.addEventListener("visibilitychange", this.onVisibility);
    win?.addEventListener("online", this.onOnline);
  }

  private removeBrowserListeners(): void {
    if (this.opts.eventTarget === null) return;
    const doc = this.opts.eventTarget?.doc ?? globalThis.document;
    const win = this.opts.eventTarget?.win ?? (typeof window !== "undefined" ? window : null);
    doc?.removeEventListener("visibilitychange", this.onVisibility);
    win?.removeEventListener("online", this.onOnline);
  }

  // ---- injectable clock ----

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  private timeout(fn: () => void, ms: number): unknown {
    return (this.opts.setTimeout ?? ((f: () => void, m: number) => globalThis.setTimeout(f, m)))(fn, ms);
  }

  private clearTimer(id: unknown): void {
    (this.opts.clearTimeout ?? ((i: unknown) => globalThis.clearTimeout(i as number)))(id);
  }
}
