import { describe, expect, it } from "vitest";
import type { FinishReason, ServerEvent } from "../protocol";
import { CONTEXT, FINAL_TEXT, SESSION, historyTurn, normalTurn, ready, turnElsewhere } from "../test/fixtures";
import type { ChatAction, ReducerState } from "./reducer";
import { assistantIdFor, chatReducer, initialState, isBusy, queuedMessages } from "./reducer";
import type { AssistantMessage, UserMessage } from "./types";
import finishStatusCases from "./finishStatus.cases.json";

const LOCAL_ACTIONS = new Set(["send", "sent", "disconnected", "retry-message", "dismiss-error", "tolerate-gaps", "server"]);

/** Applies server events (bare) and local actions in order. */
function run(state: ReducerState, ...items: (ServerEvent | ChatAction)[]): ReducerState {
  return items.reduce<ReducerState>((s, item) => {
    const action: ChatAction = LOCAL_ACTIONS.has(item.type)
      ? (item as ChatAction)
      : { type: "server", event: item as ServerEvent };
    return chatReducer(s, action);
  }, state);
}

const ev = (event: ServerEvent): ChatAction => ({ type: "server", event });

function assistants(s: ReducerState): AssistantMessage[] {
  return s.messages.filter((m): m is AssistantMessage => m.role === "assistant");
}
function users(s: ReducerState): UserMessage[] {
  return s.messages.filter((m): m is UserMessage => m.role === "user");
}

/** A fresh session that has sent message m1. */
function sentState(): ReducerState {
  return run(
    initialState(),
    ev(ready()),
    { type: "send", id: "m1", text: "Does PS11752778 fit WDT780SAEM1?" },
    { type: "sent", id: "m1" },
  );
}

describe("chatReducer: a normal turn", () => {
  it("queues, sends and delivers the user message", () => {
    let s = run(initialState(), ev(ready()), { type: "send", id: "m1", text: "hi" });
    expect(users(s)[0]).toMatchObject({ id: "m1", status: "queued" });
    expect(isBusy(s)).toBe(true);
    expect(queuedMessages(s).map((m) => m.id)).toEqual(["m1"]);
    s = chatReducer(s, { type: "sent", id: "m1" });
    expect(users(s)[0]!.status).toBe("sent");
    s = chatReducer(s, ev({ type: "start", turnId: "t1", messageId: "m1", seq: 1 }));
    expect(users(s)[0]).toMatchObject({ status: "delivered", turnId: "t1" });
    expect(s.activeTurnId).toBe("t1");
    expect(assistants(s)[0]).toMatchObject({ id: assistantIdFor("t1"), status: "streaming", text: "" });
  });

  it("streams text, tools and context, and finishes with the authoritative text", () => {
    const events = normalTurn("t1", "m1", 1);
    let s = sentState();
    const seen: string[] = [];
    for (const e of events) {
      s = chatReducer(s, ev(e));
      seen.push(assistants(s)[0]?.text ?? "");
    }
    expect(seen).toContain("Yes, **PS11752778** fits your ");
    const a = assistants(s)[0]!;
    expect(a.text).toBe(FINAL_TEXT);
    expect(a.status).toBe("complete");
    expect(a.finishReason).toBe("stop");
    expect(a.tools).toHaveLength(1);
    expect(a.tools[0]).toMatchObject({ toolName: "check_compatibility", status: "done" });
    expect(a.tools[0]!.input).toEqual({ partNumber: "PS11752778", model: "WDT780SAEM1" });
    expect(s.context).toEqual(CONTEXT);
    expect(s.activeTurnId).toBeNull();
    expect(s.lastSeq).toBe(8);
    expect(s.announcement).toEqual({ id: a.id, text: FINAL_TEXT, finishReason: "stop" });
    expect(isBusy(s)).toBe(false);
    expect(s.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("places the answer right after its question", () => {
    let s = run(initialState(), ev(ready()), { type: "send", id: "m1", text: "a" }, { type: "sent", id: "m1" });
    s = chatReducer(s, { type: "send", id: "m2", text: "b" });
    s = chatReducer(s, ev({ type: "start", turnId: "t1", messageId: "m1", seq: 1 }));
    expect(s.messages.map((m) => m.id)).toEqual(["m1", assistantIdFor("t1"), "m2"]);
  });
});

describe("chatReducer: tool events", () => {
  it("records a tool error with its field errors", () => {
    let s = sentState();
    s = run(
      s,
      { type: "start", turnId: "t1", messageId: "m1", seq: 1 },
      {
        type: "tool-input-available",
        turnId: "t1",
        toolCallId: "c1",
        toolName: "get_part_details",
        input: { partNumber: "XX" },
        seq: 2,
      },
      {
        type: "tool-output-error",
        turnId: "t1",
        toolCallId: "c1",
        toolName: "get_part_details",
        errorText: "invalid input",
        errors: [{ path: "/partNumber", message: "does not match '^PS\\d+$'" }],
        seq: 3,
      },
    );
    const t = assistants(s)[0]!.tools[0]!;
    expect(t.status).toBe("failed");
    expect(t.input).toEqual({ partNumber: "XX" });
    expect(t.errors).toEqual([{ path: "/partNumber", message: "does not match '^PS\\d+$'" }]);
  });

  it("keeps tool calls distinct and in order, never duplicated", () => {
    let s = sentState();
    const input = (id: string, seq: number): ServerEvent => ({
      type: "tool-input-available",
      turnId: "t1",
      toolCallId: id,
      toolName: "search_parts",
      input: { query: id },
      seq,
    });
    s = run(s, { type: "start", turnId: "t1", messageId: "m1", seq: 1 }, input("a", 2), input("b", 3));
    s = run(s, {
      type: "tool-output-available",
      turnId: "t1",
      toolCallId: "a",
      toolName: "search_parts",
      output: { ok: true, parts: [] },
      seq: 4,
    });
    const tools = assistants(s)[0]!.tools;
    expect(tools.map((t) => [t.toolCallId, t.status])).toEqual([
      ["a", "done"],
      ["b", "running"],
    ]);
  });

  it("marks tools still running as failed when the turn is aborted", () => {
    let s = sentState();
    s = run(
      s,
      { type: "start", turnId: "t1", messageId: "m1", seq: 1 },
      { type: "tool-input-available", turnId: "t1", toolCallId: "c", toolName: "search_parts", input: {}, seq: 2 },
      { type: "finish", turnId: "t1", text: "", finishReason: "aborted", seq: 3 },
    );
    expect(assistants(s)[0]!.tools[0]!.status).toBe("failed");
  });
});

describe("chatReducer: seq handling and replay", () => {
  it("drops events whose seq was already applied", () => {
    const events = normalTurn("t1", "m1", 1);
    let s = sentState();
    for (const e of events.slice(0, 6)) s = chatReducer(s, ev(e));
    const textBefore = assistants(s)[0]!.text;
    // The reconnect replays everything after an older lastSeq: duplicates included.
    for (const e of events.slice(2)) s = chatReducer(s, ev(e));
    expect(assistants(s)[0]!.text).toBe(FINAL_TEXT);
    expect(textBefore).toBe("Yes, **PS11752778** fits your ");
    expect(assistants(s)).toHaveLength(1);
    expect(assistants(s)[0]!.tools).toHaveLength(1);
  });

  it("a replay after reconnect (resumed, lastSeq) continues the streaming answer without doubling", () => {
    const events = normalTurn("t1", "m1", 1);
    let s = sentState();
    for (const e of events.slice(0, 5)) s = chatReducer(s, ev(e)); // through seq 5 (first delta)
    expect(s.lastSeq).toBe(5);
    s = chatReducer(s, { type: "disconnected" });
    expect(s.ready).toBe(false);
    s = run(
      s,
      ev(
        ready({
          resumed: true,
          seq: 6,
          context: CONTEXT,
          history: [{ id: "m1", role: "user", text: "Does PS11752778 fit WDT780SAEM1?", turnId: "t1" }],
          inflight: { turnId: "t1", messageId: "m1" },
        }),
      ),
    );
    expect(s.lastSeq).toBe(5);
    expect(s.activeTurnId).toBe("t1");
    expect(assistants(s)[0]!.text).toBe("Yes, **PS11752778** ");
    // Server replays seq 6 (and the client might see 5 again from a racing socket).
    for (const e of events.slice(4)) s = chatReducer(s, ev(e));
    expect(assistants(s)[0]!.text).toBe(FINAL_TEXT);
    expect(s.messages.map((m) => m.id)).toEqual(["m1", assistantIdFor("t1")]);
  });

  it("after a reload (lastSeq null) rebuilds the in-flight answer from its start, ignoring a partial copy in history", () => {
    const events = normalTurn("t2", "m2", 9);
    let s = initialState(SESSION);
    s = chatReducer(
      s,
      ev(
        ready({
          resumed: true,
          seq: 13,
          context: CONTEXT,
          history: [
            ...historyTurn("t1", "m1"),
            { id: "m2", role: "user", text: "And how do I install it?", turnId: "t2" },
            // A server that stores partial answers: the replay streams the same text again.
            { id: "srv-t2", role: "assistant", text: "Yes, **PS11752778** fits your ", turnId: "t2", status: "partial" },
          ],
          inflight: { turnId: "t2", messageId: "m2" },
        }),
      ),
    );
    expect(s.activeTurnId).toBe("t2");
    expect(assistants(s)).toHaveLength(1); // t1 only: t2 is rebuilt by the replay
    for (const e of events.slice(0, 6)) s = chatReducer(s, ev(e)); // seq 9..14
    const t2 = assistants(s).find((a) => a.turnId === "t2")!;
    expect(t2.text).toBe("Yes, **PS11752778** fits your ");
    expect(t2.status).toBe("streaming");
    expect(s.messages.map((m) => m.id)).toEqual(["m1", "srv-t1", "m2", assistantIdFor("t2")]);
  });

  it("history of a turn that completed while away wins over its replayed events", () => {
    const events = normalTurn("t1", "m1", 1);
    let s = sentState();
    for (const e of events.slice(0, 5)) s = chatReducer(s, ev(e));
    s = chatReducer(s, { type: "disconnected" });
    s = chatReducer(s, ev(ready({ resumed: true, seq: 8, context: CONTEXT, history: historyTurn("t1", "m1") })));
    expect(s.activeTurnId).toBeNull();
    expect(assistants(s)[0]!.text).toBe(FINAL_TEXT);
    for (const e of events.slice(5)) s = chatReducer(s, ev(e)); // replay 6..8
    expect(assistants(s)).toHaveLength(1);
    expect(assistants(s)[0]!.text).toBe(FINAL_TEXT);
    expect(assistants(s)[0]!.id).toBe("srv-t1");
    expect(s.lastSeq).toBe(8);
  });

  it("does not apply an event after a gap; asks for a resync instead", () => {
    let s = sentState();
    s = run(s, { type: "start", turnId: "t1", messageId: "m1", seq: 1 });
    s = run(s, { type: "text-delta", turnId: "t1", delta: "late", seq: 3 });
    expect(s.resyncNeeded).toBe(true);
    expect(assistants(s)[0]!.text).toBe("");
    expect(s.lastSeq).toBe(1);
    // Nothing more is applied until the resume...
    s = run(s, { type: "text-delta", turnId: "t1", delta: "x", seq: 2 });
    expect(assistants(s)[0]!.text).toBe("");
    // ...whose ready clears the flag, then the replay fills the gap in order.
    s = run(s, ev(ready({ resumed: true, seq: 3, inflight: { turnId: "t1", messageId: "m1" } })));
    expect(s.resyncNeeded).toBe(false);
    s = run(
      s,
      { type: "text-delta", turnId: "t1", delta: "a", seq: 2 },
      { type: "text-delta", turnId: "t1", delta: "b", seq: 3 },
    );
    expect(assistants(s)[0]!.text).toBe("ab");
  });

  it("tolerates gaps once told to", () => {
    let s = sentState();
    s = run(s, { type: "start", turnId: "t1", messageId: "m1", seq: 1 }, { type: "tolerate-gaps" });
    s = run(s, { type: "text-delta", turnId: "t1", delta: "a", seq: 5 });
    expect(assistants(s)[0]!.text).toBe("a");
  });

  it("a brand-new session (resumed false) takes lastSeq from ready (0) and keeps unsent messages only", () => {
    let s = sentState();
    s = run(s, ...normalTurn("t1", "m1", 1));
    s = chatReducer(s, { type: "send", id: "m9", text: "queued while offline" });
    s = chatReducer(s, { type: "disconnected" });
    s = chatReducer(s, ev(ready({ sessionId: "sess_fedcba9876543210", resumed: false, seq: 0 })));
    expect(s.sessionId).toBe("sess_fedcba9876543210");
    expect(s.lastSeq).toBe(0);
    expect(s.messages.map((m) => m.id)).toEqual(["m9"]);
    expect(users(s)[0]!.status).toBe("queued");
    // The new session's stream starts at 1.
    s = run(s, { type: "start", turnId: "n1", messageId: "m9", seq: 1 });
    expect(s.lastSeq).toBe(1);
  });

  it("follows the server when its stream is behind ours", () => {
    let s = run(initialState(SESSION), { type: "start", turnId: "t1", messageId: "m1", seq: 40 });
    expect(s.lastSeq).toBe(40);
    s = chatReducer(s, ev(ready({ resumed: true, seq: 3, history: historyTurn("t1", "m1") })));
    expect(s.lastSeq).toBe(3);
    // With a turn in flight the replay sets it: the first event is accepted.
    s = run(initialState(SESSION), { type: "start", turnId: "t1", messageId: "m1", seq: 40 }, { type: "disconnected" });
    expect(s.lastSeq).toBe(40);
    s = chatReducer(s, ev(ready({ resumed: true, seq: 5, inflight: { turnId: "t3", messageId: "m3" } })));
    expect(s.lastSeq).toBeNull();
    s = run(s, { type: "start", turnId: "t3", messageId: "m3", seq: 5 });
    expect(s.lastSeq).toBe(5);
    expect(s.resyncNeeded).toBe(false);
  });

  it("after a server crash, ready with a jumped seq and nothing in flight moves lastSeq there: no resync", () => {
    // The crashed turn streamed 1..5; its events were never stored. The restarted server
    // skipped ahead (seq block reserved per turn) and reports the turn as interrupted.
    const events = normalTurn("t1", "m1", 1);
    let s = sentState();
    for (const e of events.slice(0, 5)) s = chatReducer(s, ev(e));
    expect(s.lastSeq).toBe(5);
    s = chatReducer(s, { type: "disconnected" });
    s = chatReducer(
      s,
      ev(
        ready({
          resumed: true,
          seq: 100_001,
          context: CONTEXT,
          history: [
            { id: "m1", role: "user", text: "Does PS11752778 fit WDT780SAEM1?", turnId: "t1" },
            { id: "srv-t1", role: "assistant", text: "Yes, **PS11752778** ", turnId: "t1", status: "interrupted" },
          ],
          inflight: null,
        }),
      ),
    );
    expect(s.lastSeq).toBe(100_001);
    expect(s.resyncNeeded).toBe(false);
    // History replaces the local copy of the crashed answer: nothing lost, nothing doubled.
    expect(s.messages.map((m) => [m.id, m.status])).toEqual([
      ["m1", "delivered"],
      ["srv-t1", "interrupted"],
    ]);
    // The next turn continues after the jump and is applied, not treated as a gap.
    s = run(s, { type: "send", id: "m2", text: "again?" }, { type: "sent", id: "m2" }, ...normalTurn("t2", "m2", 100_002));
    expect(s.resyncNeeded).toBe(false);
    expect(s.lastSeq).toBe(100_009);
    expect(assistants(s).find((a) => a.turnId === "t2")).toMatchObject({ text: FINAL_TEXT, status: "complete" });
  });

  it("ready with nothing in flight: replayed events of turns already in history are dropped", () => {
    let s = run(sentState(), ...normalTurn("t1", "m1", 1).slice(0, 3));
    s = chatReducer(s, { type: "disconnected" });
    s = chatReducer(s, ev(ready({ resumed: true, seq: 8, context: CONTEXT, history: historyTurn("t1", "m1") })));
    expect(s.lastSeq).toBe(8);
    const before = s;
    s = run(s, ...normalTurn("t1", "m1", 1).slice(3)); // replay 4..8
    expect(s.messages).toBe(before.messages);
    expect(s.resyncNeeded).toBe(false);
  });

  it("after a crash jump with a turn in flight, the replay anchors the stream; a gap inside it still resyncs", () => {
    let s = run(sentState(), ...normalTurn("t1", "m1", 1).slice(0, 3)); // lastSeq 3
    s = chatReducer(s, { type: "disconnected" });
    // Meanwhile the server crashed (t1 interrupted) and another tab started t2 at 100_004.
    s = chatReducer(
      s,
      ev(
        ready({
          resumed: true,
          seq: 100_005,
          history: [
            { id: "m1", role: "user", text: "q", turnId: "t1" },
            { id: "srv-t1", role: "assistant", text: "", turnId: "t1", status: "interrupted" },
            { id: "m2", role: "user", text: "other tab", turnId: "t2" },
          ],
          inflight: { turnId: "t2", messageId: "m2" },
        }),
      ),
    );
    expect(s.lastSeq).toBe(3); // the replay follows: the gap check applies from it
    const t2 = normalTurn("t2", "m2", 100_004);
    s = run(s, t2[0]!, t2[1]!); // replay 100_004, 100_005
    expect(s.resyncNeeded).toBe(false);
    expect(s.lastSeq).toBe(100_005);
    expect(s.activeTurnId).toBe("t2");
    // A true gap in the live stream after the replay is still a gap.
    s = run(s, t2[3]!); // 100_007: 100_006 missing
    expect(s.resyncNeeded).toBe(true);
    expect(s.lastSeq).toBe(100_005);
  });

  it("with a turn in flight, a first event beyond ready.seq + 1 is a gap", () => {
    let s = run(sentState(), { type: "start", turnId: "t1", messageId: "m1", seq: 1 });
    s = chatReducer(s, { type: "disconnected" });
    s = chatReducer(s, ev(ready({ resumed: true, seq: 4, inflight: { turnId: "t1", messageId: "m1" } })));
    s = run(s, { type: "text-delta", turnId: "t1", delta: "x", seq: 6 });
    expect(s.resyncNeeded).toBe(true);
    expect(s.lastSeq).toBe(1);
  });

  it("a true gap during a live stream (no reconnect in between) still asks for a resync", () => {
    let s = chatReducer(sentState(), ev(ready({ resumed: true, seq: 50 })));
    expect(s.lastSeq).toBe(50);
    s = run(s, { type: "start", turnId: "t1", messageId: "m1", seq: 51 });
    s = run(s, { type: "text-delta", turnId: "t1", delta: "lost", seq: 53 });
    expect(s.resyncNeeded).toBe(true);
    expect(s.lastSeq).toBe(51);
    expect(assistants(s)[0]!.text).toBe("");
  });

  it("ignores pong and never lets it move lastSeq", () => {
    const s = sentState();
    expect(chatReducer(s, ev({ type: "pong" }))).toBe(s);
  });
});

describe("chatReducer: ready", () => {
  it("restores history (messages, tool outputs, status) and context", () => {
    const s = chatReducer(
      initialState(SESSION),
      ev(
        ready({
          resumed: true,
          seq: 8,
          context: CONTEXT,
          history: [
            ...historyTurn("t1", "m1"),
            { id: "m2", role: "user", text: "stop that", turnId: "t2" },
            { id: "a2", role: "assistant", text: "Half an", turnId: "t2", status: "interrupted" },
          ],
        }),
      ),
    );
    expect(s.ready).toBe(true);
    expect(s.sessionId).toBe(SESSION);
    expect(s.context).toEqual(CONTEXT);
    expect(s.messages.map((m) => [m.id, m.role, m.status])).toEqual([
      ["m1", "user", "delivered"],
      ["srv-t1", "assistant", "complete"],
      ["m2", "user", "delivered"],
      ["a2", "assistant", "interrupted"],
    ]);
    expect(assistants(s)[0]!.tools[0]).toMatchObject({ toolName: "check_compatibility", status: "done" });
    expect(s.activeTurnId).toBeNull();
    expect(s.announcement).toBeNull(); // history is not announced
    expect(s.lastSeq).toBe(8); // nothing in flight: the server's position

  });

  it("acknowledges a sent message the server already stored (in history or in flight)", () => {
    let s = run(initialState(SESSION), ev(ready({ resumed: true })), { type: "send", id: "m1", text: "q" });
    s = chatReducer(s, { type: "sent", id: "m1" });
    s = chatReducer(s, { type: "disconnected" });
    expect(users(s)[0]!.status).toBe("queued");
    s = chatReducer(s, ev(ready({ resumed: true, seq: 2, inflight: { turnId: "t1", messageId: "m1" } })));
    expect(users(s)[0]).toMatchObject({ status: "delivered", turnId: "t1" });
    expect(queuedMessages(s)).toHaveLength(0);
    expect(s.activeTurnId).toBe("t1");
  });

  it("keeps a queued message the server does not know, to be sent again", () => {
    let s = run(initialState(SESSION), ev(ready({ resumed: true })), { type: "send", id: "m1", text: "q" });
    s = chatReducer(s, { type: "sent", id: "m1" });
    s = chatReducer(s, { type: "disconnected" });
    s = chatReducer(s, ev(ready({ resumed: true, seq: 0 })));
    expect(queuedMessages(s).map((m) => m.id)).toEqual(["m1"]);
  });

  it("marks a local streaming answer whose turn the server forgot as interrupted", () => {
    let s = sentState();
    s = run(s, { type: "start", turnId: "t1", messageId: "m1", seq: 1 }, { type: "text-delta", turnId: "t1", delta: "Hel", seq: 2 });
    s = chatReducer(s, ev(ready({ resumed: true, seq: 2 })));
    expect(assistants(s)[0]).toMatchObject({ status: "interrupted", text: "Hel" });
    expect(s.activeTurnId).toBeNull();
  });
});

describe("chatReducer: finish reasons", () => {
  const finishWith = (finishReason: "aborted" | "error" | "length", text: string) => {
    let s = sentState();
    s = run(
      s,
      { type: "start", turnId: "t1", messageId: "m1", seq: 1 },
      { type: "text-delta", turnId: "t1", delta: "Partial ans", seq: 2 },
      { type: "finish", turnId: "t1", text, finishReason, seq: 3 },
    );
    return s;
  };

  it("aborted keeps the partial answer, marked partial as the store keeps it", () => {
    const s = finishWith("aborted", "Partial ans");
    expect(assistants(s)[0]).toMatchObject({ status: "partial", text: "Partial ans", finishReason: "aborted" });
    expect(s.activeTurnId).toBeNull();
    expect(s.announcement?.finishReason).toBe("aborted");
  });

  it("error marks the answer failed; an empty final text keeps the streamed one", () => {
    const s = finishWith("error", "");
    expect(assistants(s)[0]).toMatchObject({ status: "failed", text: "Partial ans" });
    expect(isBusy(s)).toBe(false);
  });

  it("length (the tool-round cap: the model wrapped up) marks the answer complete", () => {
    expect(assistants(finishWith("length", "Wrapped up"))[0]!.status).toBe("complete");
  });

  // The store's table too (tests/unit/store/test_sessions.py): a badge does not change on reload.
  it.each(finishStatusCases.cases)("$finishReason with text $text is $status, as stored", (c) => {
    let s = run(sentState(), { type: "start", turnId: "t1", messageId: "m1", seq: 1 });
    if (c.text) s = run(s, { type: "text-delta", turnId: "t1", delta: c.text, seq: 2 });
    const finishReason = c.finishReason as FinishReason;
    s = run(s, { type: "finish", turnId: "t1", text: c.text, finishReason, seq: c.text ? 3 : 2 });
    expect(assistants(s)[0]).toMatchObject({ status: c.status, finishReason: c.finishReason });
  });

  it("a finish for an unknown turn still shows the answer", () => {
    const s = run(initialState(), ev(ready()), {
      type: "finish",
      turnId: "tx",
      text: "Done.",
      finishReason: "stop",
      seq: 1,
    });
    expect(assistants(s)[0]).toMatchObject({ text: "Done.", status: "complete" });
  });
});

describe("chatReducer: error events", () => {
  it("busy refuses the waiting message (marked failed, retryable)", () => {
    let s = sentState();
    s = run(s, { type: "error", code: "busy", message: "a turn is running" });
    expect(users(s)[0]).toMatchObject({ status: "failed", errorCode: "busy" });
    expect(s.error).toEqual({ code: "busy", message: "a turn is running" });
    expect(isBusy(s)).toBe(false);
    s = chatReducer(s, { type: "retry-message", id: "m1" });
    expect(users(s)[0]!.status).toBe("queued");
    expect(users(s)[0]!.errorCode).toBeUndefined();
    expect(s.error).toBeNull();
  });

  it("server_restarting refuses the named message (not stored: it can be sent again)", () => {
    const s = run(sentState(), { type: "error", code: "server_restarting", message: "restarting", messageId: "m1" });
    expect(users(s)[0]).toMatchObject({ status: "failed", errorCode: "server_restarting" });
    expect(s.error?.code).toBe("server_restarting");
  });

  it("rate_limited names the message by messageId when given", () => {
    let s = run(
      initialState(),
      ev(ready()),
      { type: "send", id: "m1", text: "a" },
      { type: "sent", id: "m1" },
      { type: "send", id: "m2", text: "b" },
      { type: "sent", id: "m2" },
    );
    s = run(s, { type: "error", code: "rate_limited", message: "slow down", messageId: "m2" });
    expect(users(s).map((m) => m.status)).toEqual(["sent", "failed"]);
    expect(s.error?.messageId).toBe("m2");
  });

  it("an error inside a turn (with seq) does not refuse any message and is deduplicated", () => {
    let s = sentState();
    s = run(s, { type: "start", turnId: "t1", messageId: "m1", seq: 1 });
    const err: ServerEvent = { type: "error", code: "llm_unavailable", message: "LLM down", turnId: "t1", seq: 2 };
    s = run(s, err);
    expect(s.error?.code).toBe("llm_unavailable");
    expect(users(s)[0]!.status).toBe("delivered");
    s = chatReducer(s, { type: "dismiss-error" });
    s = run(s, err); // replayed
    expect(s.error).toBeNull();
    s = run(s, { type: "finish", turnId: "t1", text: "", finishReason: "error", seq: 3 }); // no text written
    expect(assistants(s)[0]!.status).toBe("failed");
  });

  it("a start clears a busy/rate-limit banner", () => {
    let s = sentState();
    s = run(s, { type: "error", code: "rate_limited", message: "slow" });
    s = chatReducer(s, { type: "retry-message", id: "m1" });
    s = chatReducer(s, { type: "sent", id: "m1" });
    s = run(s, { type: "error", code: "busy", message: "busy" });
    s = chatReducer(s, { type: "retry-message", id: "m1" });
    s = chatReducer(s, { type: "sent", id: "m1" });
    s = run(s, { type: "error", code: "rate_limited", message: "slow" }, { type: "start", turnId: "t1", messageId: "m1", seq: 1 });
    expect(s.error).toBeNull();
    expect(users(s)[0]!.status).toBe("delivered");
  });

  it("connection-level bad_frame / unknown_type only set the banner", () => {
    let s = sentState();
    s = run(s, { type: "error", code: "unknown_type", message: "?" });
    expect(users(s)[0]!.status).toBe("sent");
    expect(s.error?.code).toBe("unknown_type");
  });
});

describe("chatReducer: local actions", () => {
  it("ignores a second send with the same id", () => {
    const s = run(initialState(), { type: "send", id: "m1", text: "a" });
    expect(chatReducer(s, { type: "send", id: "m1", text: "a" })).toBe(s);
  });

  it("disconnected puts written-but-unacknowledged messages back in the queue", () => {
    let s = sentState();
    s = chatReducer(s, { type: "disconnected" });
    expect(users(s)[0]!.status).toBe("queued");
    expect(s.ready).toBe(false);
  });

  it("context events of a turn already final are ignored", () => {
    let s = chatReducer(initialState(SESSION), ev(ready({ resumed: true, seq: 8, history: historyTurn("t1", "m1") })));
    s = run(s, { type: "data-context", turnId: "t1", context: CONTEXT, seq: 4 });
    expect(s.context.productModel).toBeNull();
    expect(s.context).not.toBe(CONTEXT);
    expect(SESSION).toBeTruthy();
  });
});

describe("chatReducer: a turn running on another server (turn_elsewhere)", () => {
  const elsewhere = turnElsewhere("t9");
  const resumed = (history = historyTurn("t9", "m0").slice(0, 1)) =>
    ev(ready({ resumed: true, sessionId: SESSION, history }));

  it("holds new messages as queued instead of refusing them", () => {
    let s = run(initialState(SESSION), resumed(), elsewhere);
    expect(s.elsewhereTurnId).toBe("t9");
    expect(s.error?.code).toBe("turn_elsewhere");
    // sent before the client knew: the server's busy puts it back in the queue, not failed
    s = run(s, { type: "send", id: "m1", text: "and the filter?" }, { type: "sent", id: "m1" });
    s = run(s, { type: "error", code: "busy", message: "elsewhere", messageId: "m1" });
    expect(users(s).find((m) => m.id === "m1")!.status).toBe("queued");
    expect(s.error?.code).toBe("turn_elsewhere");
  });

  it("stays while a ready still lacks the answer; clears once the history has it", () => {
    let s = run(initialState(SESSION), resumed(), elsewhere, { type: "send", id: "m1", text: "next" });
    s = run(s, { type: "disconnected" }, resumed()); // still running: no answer in history
    expect(s.elsewhereTurnId).toBe("t9");
    expect(s.error?.code).toBe("turn_elsewhere");
    s = run(s, { type: "disconnected" }, resumed(historyTurn("t9", "m0")));
    expect(s.elsewhereTurnId).toBeNull();
    expect(s.error).toBeNull();
    expect(assistants(s)[0]).toMatchObject({ turnId: "t9", text: FINAL_TEXT });
    expect(queuedMessages(s).map((m) => m.id)).toEqual(["m1"]);
  });

  it("clears when this server now streams the turn, or the session is a new one", () => {
    let s = run(initialState(SESSION), resumed(), elsewhere);
    s = run(s, ev(ready({ resumed: true, sessionId: SESSION, inflight: { turnId: "t9", messageId: "m0" }, seq: 3 })));
    expect(s.elsewhereTurnId).toBeNull();
    s = run(initialState(SESSION), resumed(), elsewhere, ev(ready({ sessionId: "sess_fedcba9876543210" })));
    expect(s.elsewhereTurnId).toBeNull();
    expect(s.error).toBeNull();
  });
});
