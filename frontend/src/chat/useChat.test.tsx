import { act, renderHook } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FINAL_TEXT, SESSION, historyTurn, normalTurn, ready, turnElsewhere } from "../test/fixtures";
import { fakeSockets, memoryStorage } from "../test/fakeSocket";
import { ChatClient, FEEDBACK_OFFLINE, SESSION_STORAGE_KEY, wsUrl } from "./client";
import type { ChatClientOptions } from "./client";
import { useChat } from "./useChat";

function makeClient(over: Partial<ChatClientOptions> = {}) {
  const socks = fakeSockets();
  const storage = memoryStorage();
  let n = 0;
  const client = new ChatClient({
    server: "https://shop.example",
    socketFactory: socks.factory,
    storage,
    random: () => 0.5,
    now: () => Date.now(),
    eventTarget: null,
    idFactory: () => `msg-${++n}`,
    ...over,
  });
  return { client, storage, ...socks };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("wsUrl", () => {
  it("maps http(s) origins to ws(s) /ws", () => {
    expect(wsUrl("https://shop.example")).toBe("wss://shop.example/ws");
    expect(wsUrl("http://127.0.0.1:8000/some/page")).toBe("ws://127.0.0.1:8000/ws");
    expect(wsUrl("", "https://page.example/help?x=1")).toBe("wss://page.example/ws");
    expect(wsUrl(undefined, "http://localhost:5173/")).toBe("ws://localhost:5173/ws");
  });
});

describe("ChatClient", () => {
  it("says hello first, with the stored session id, and stores the id from ready", () => {
    const storage = memoryStorage({ [SESSION_STORAGE_KEY]: SESSION });
    const { client, last } = makeClient({ storage });
    client.start();
    const s = last();
    expect(s.url).toBe("wss://shop.example/ws");
    s.open();
    expect(s.sent[0]).toEqual({ type: "hello", sessionId: SESSION, lastSeq: null });
    s.receive(ready({ sessionId: "sess_new_0000000000000", resumed: false }));
    expect(storage.data.get(SESSION_STORAGE_KEY)).toBe("sess_new_0000000000000");
    expect(client.getSnapshot().status).toBe("open");
    client.stop();
  });

  it("ignores a malformed stored session id", () => {
    const { client, last } = makeClient({ storage: memoryStorage({ [SESSION_STORAGE_KEY]: "bad id!" }) });
    client.start();
    last().open();
    expect(last().sent[0]).toEqual({ type: "hello", sessionId: null, lastSeq: null });
    client.stop();
  });

  it("queues a message while the socket is down and sends it after ready", () => {
    const { client, last } = makeClient();
    client.start();
    const id = client.send("  How can I install part number PS11752778?  ");
    expect(id).toBe("msg-1");
    const s = last();
    s.open();
    expect(s.frames("message")).toHaveLength(0); // not before ready
    s.receive(ready());
    expect(s.frames("message")).toEqual([
      { type: "message", id: "msg-1", text: "How can I install part number PS11752778?" },
    ]);
    expect(client.getSnapshot().busy).toBe(true);
    client.stop();
  });

  it("resumes with lastSeq after a drop and resends an unacknowledged message with the same id", () => {
    const { client, sockets, last } = makeClient();
    client.start();
    last().open();
    last().receive(ready({ sessionId: SESSION }));
    client.send("Does PS11752778 fit WDT780SAEM1?");
    const turn = normalTurn("t1", "msg-1", 1);
    last().receive(...turn.slice(0, 5));
    client.send("second question"); // queued behind the running turn
    expect(last().frames("message").map((f) => f.id)).toEqual(["msg-1"]);
    last().drop(1006);
    expect(client.getSnapshot().status).toBe("reconnecting");
    vi.advanceTimersByTime(10_000);
    expect(sockets).toHaveLength(2);
    last().open();
    expect(last().sent[0]).toEqual({ type: "hello", sessionId: SESSION, lastSeq: 5 });
    last().receive(ready({ sessionId: SESSION, resumed: true, seq: 8, inflight: { turnId: "t1", messageId: "msg-1" } }));
    // The turn is still running: the second message waits.
    expect(last().frames("message")).toHaveLength(0);
    last().receive(...turn.slice(3)); // replay 4..8, 4 and 5 are duplicates
    const answer = client.getSnapshot().state.messages.find((m) => m.role === "assistant");
    expect(answer?.text).toBe(FINAL_TEXT);
    expect(last().frames("message")).toEqual([{ type: "message", id: "msg-2", text: "second question" }]);
    client.stop();
  });

  it("backs off exponentially with jitter, capped at 10 s, and resets after ready", () => {
    const { client, sockets, last } = makeClient({ random: () => 1 });
    client.start();
    for (let i = 0; i < 8; i++) {
      last().drop(1006);
      vi.advanceTimersByTime(client.backoffHistory[client.backoffHistory.length - 1]!);
    }
    expect(client.backoffHistory).toEqual([500, 1000, 2000, 4000, 8000, 10_000, 10_000, 10_000]);
    expect(sockets).toHaveLength(9);
    last().open();
    last().receive(ready());
    last().drop(1006);
    expect(client.backoffHistory[client.backoffHistory.length - 1]).toBe(500);
    client.stop();
  });

  it("jitter keeps each delay within [cap/2, cap]", () => {
    const values = [0, 0.25, 0.99];
    const { client, last } = makeClient({ random: () => values.shift() ?? 0 });
    client.start();
    last().drop();
    vi.advanceTimersByTime(1000);
    last().drop();
    vi.advanceTimersByTime(1000);
    last().drop();
    expect(client.backoffHistory[0]).toBe(250);
    expect(client.backoffHistory[1]).toBe(625);
    expect(client.backoffHistory[2]).toBeGreaterThanOrEqual(1000);
    expect(client.backoffHistory[2]).toBeLessThanOrEqual(2000);
    client.stop();
  });

  it("reconnects when a turn runs and nothing arrives for 30 s (stall watchdog)", () => {
    const { client, sockets, last } = makeClient();
    client.start();
    last().open();
    last().receive(ready({ sessionId: SESSION }));
    client.send("question");
    last().receive({ type: "start", turnId: "t1", messageId: "msg-1", seq: 1 });
    const first = last();
    vi.advanceTimersByTime(20_000);
    expect(first.closedWith).toBeNull();
    expect(first.frames("ping").length).toBeGreaterThan(0); // keep-alive pings while quiet
    vi.advanceTimersByTime(15_000);
    expect(first.closedWith).not.toBeNull();
    vi.advanceTimersByTime(1_000);
    expect(sockets).toHaveLength(2);
    last().open();
    expect(last().sent[0]).toEqual({ type: "hello", sessionId: SESSION, lastSeq: 1 });
    client.stop();
  });

  it("does not reconnect an idle connection just because it is quiet", () => {
    const { client, sockets, last } = makeClient();
    client.start();
    last().open();
    last().receive(ready());
    vi.advanceTimersByTime(120_000);
    expect(sockets).toHaveLength(1);
    client.stop();
  });

  it("reconnects at once when the page becomes visible or the network comes back", () => {
    const doc = new EventTarget() as EventTarget & { visibilityState: string };
    doc.visibilityState = "visible";
    const win = new EventTarget();
    const { client, sockets, last } = makeClient({
      eventTarget: { doc: doc as unknown as Document, win: win as unknown as Window },
    });
    client.start();
    last().open();
    last().receive(ready());
    last().drop(1006); // a backoff timer is pending
    win.dispatchEvent(new Event("online"));
    expect(sockets).toHaveLength(2);
    last().drop(1006);
    doc.dispatchEvent(new Event("visibilitychange"));
    expect(sockets).toHaveLength(3);
    client.stop();
  });

  it("stops retrying when the server refuses the origin (1008); retry() reconnects", () => {
    const { client, sockets, last } = makeClient();
    client.start();
    last().drop(1008);
    vi.advanceTimersByTime(60_000);
    expect(sockets).toHaveLength(1);
    expect(client.getSnapshot().status).toBe("closed");
    expect(client.getSnapshot().connectionError).toMatch(/origin/);
    client.retry();
    expect(sockets).toHaveLength(2);
    client.stop();
  });

  it("after a refused origin (1008), going online or visible does not reconnect; only retry() does", () => {
    const doc = new EventTarget() as EventTarget & { visibilityState: string };
    doc.visibilityState = "visible";
    const win = new EventTarget();
    const { client, sockets, last } = makeClient({
      eventTarget: { doc: doc as unknown as Document, win: win as unknown as Window },
    });
    client.start();
    last().drop(1008);
    win.dispatchEvent(new Event("online"));
    doc.dispatchEvent(new Event("visibilitychange"));
    vi.advanceTimersByTime(60_000);
    expect(sockets).toHaveLength(1);
    expect(client.getSnapshot().status).toBe("closed");
    client.retry();
    expect(sockets).toHaveLength(2);
    last().open();
    last().receive(ready());
    last().drop(1006);
    win.dispatchEvent(new Event("online")); // accepted again: back to normal reconnects
    expect(sockets).toHaveLength(3);
    client.stop();
  });

  it("reconnects to resume when it sees a gap in seq", () => {
    const { client, sockets, last } = makeClient();
    client.start();
    last().open();
    last().receive(ready({ sessionId: SESSION }));
    client.send("q");
    last().receive({ type: "start", turnId: "t1", messageId: "msg-1", seq: 1 });
    last().receive({ type: "text-delta", turnId: "t1", delta: "b", seq: 3 });
    expect(sockets).toHaveLength(2);
    last().open();
    expect(last().sent[0]).toEqual({ type: "hello", sessionId: SESSION, lastSeq: 1 });
    client.stop();
  });

  it("does not loop reconnecting when the server's seq jumped after a crash", () => {
    const { client, sockets, last } = makeClient();
    client.start();
    last().open();
    last().receive(ready({ sessionId: SESSION }));
    client.send("Does PS11752778 fit WDT780SAEM1?");
    last().receive(...normalTurn("t1", "msg-1", 1).slice(0, 5)); // lastSeq 5, then the server crashes
    last().drop(1006);
    vi.advanceTimersByTime(10_000);
    expect(sockets).toHaveLength(2);
    last().open();
    expect(last().sent[0]).toEqual({ type: "hello", sessionId: SESSION, lastSeq: 5 });
    last().receive(
      ready({
        sessionId: SESSION,
        resumed: true,
        seq: 100_000,
        history: [
          { id: "msg-1", role: "user", text: "Does PS11752778 fit WDT780SAEM1?", turnId: "t1" },
          { id: "srv-t1", role: "assistant", text: "Yes, **PS11752778** ", turnId: "t1", status: "interrupted" },
        ],
        inflight: null,
      }),
    );
    expect(client.getSnapshot().state.lastSeq).toBe(100_000);
    client.send("second question");
    expect(last().frames("message").map((f) => f.id)).toEqual(["msg-2"]);
    last().receive(...normalTurn("t2", "msg-2", 100_001));
    vi.advanceTimersByTime(60_000);
    expect(sockets).toHaveLength(2); // no resync reconnect
    expect(client.getSnapshot().state.resyncNeeded).toBe(false);
    expect(client.getSnapshot().state.lastSeq).toBe(100_008);
    const answers = client.getSnapshot().state.messages.filter((m) => m.role === "assistant");
    expect(answers.map((a) => [a.id, a.status])).toEqual([
      ["srv-t1", "interrupted"],
      ["assistant-t2", "complete"],
    ]);
    // The next resume starts from the server's position.
    last().drop(1006);
    vi.advanceTimersByTime(10_000);
    last().open();
    expect(last().sent[0]).toEqual({ type: "hello", sessionId: SESSION, lastSeq: 100_008 });
    client.stop();
  });

  it("sends stop, and emits 'message' and 'ready' events", () => {
    const { client, last } = makeClient();
    const onMessage = vi.fn();
    const onReady = vi.fn();
    client.on("message", onMessage);
    client.on("ready", onReady);
    client.start();
    last().open();
    last().receive(ready({ sessionId: SESSION }));
    expect(onReady).toHaveBeenCalledWith({ sessionId: SESSION, resumed: false });
    client.send("q");
    last().receive({ type: "start", turnId: "t1", messageId: "msg-1", seq: 1 });
    client.stopTurn();
    expect(last().frames("stop")).toHaveLength(1);
    last().receive({ type: "finish", turnId: "t1", text: "Part", finishReason: "aborted", seq: 2 });
    expect(onMessage).toHaveBeenCalledWith({ id: "assistant-t1", text: "Part", finishReason: "aborted" });
    client.stop();
  });

  it("a busy refusal is not resent automatically; retry() resends the same id", () => {
    const { client, last } = makeClient();
    client.start();
    last().open();
    last().receive(ready());
    client.send("q");
    last().receive({ type: "error", code: "busy", message: "busy" });
    expect(client.getSnapshot().busy).toBe(false);
    expect(last().frames("message")).toHaveLength(1);
    client.retry();
    expect(last().frames("message").map((f) => f.id)).toEqual(["msg-1", "msg-1"]);
    client.stop();
  });

  it("turn_elsewhere: holds messages, rechecks with growing delays, and sends once the answer is in", () => {
    const { client, sockets, last } = makeClient();
    client.start();
    last().open();
    last().receive(ready({ sessionId: SESSION }));
    last().receive(turnElsewhere());
    client.send("and the water filter?");
    expect(last().frames("message")).toHaveLength(0); // held, not refused by the server
    expect(client.getSnapshot().state.messages[0]).toMatchObject({ status: "queued" });
    // first recheck within [1 s, 2 s]: a new socket, still running elsewhere
    vi.advanceTimersByTime(2_000);
    expect(sockets).toHaveLength(2);
    last().open();
    last().receive(ready({ sessionId: SESSION, resumed: true, history: historyTurn("t9", "m0").slice(0, 1) }));
    last().receive(turnElsewhere());
    expect(last().frames("message")).toHaveLength(0);
    vi.advanceTimersByTime(1_999); // the second delay is in [2 s, 4 s]
    expect(sockets).toHaveLength(2);
    vi.advanceTimersByTime(2_001);
    expect(sockets).toHaveLength(3);
    last().open();
    last().receive(ready({ sessionId: SESSION, resumed: true, history: historyTurn("t9", "m0") }));
    const snap = client.getSnapshot();
    expect(snap.state.error).toBeNull();
    expect(snap.state.messages.find((m) => m.role === "assistant")?.text).toBe(FINAL_TEXT);
    expect(last().frames("message")).toEqual([{ type: "message", id: "msg-1", text: "and the water filter?" }]);
    vi.advanceTimersByTime(20_000); // under the 30 s stall watchdog
    expect(sockets).toHaveLength(3); // no more rechecks
    client.stop();
  });

  it("turn_elsewhere: Retry reconnects even though the socket is open", () => {
    const { client, sockets, last } = makeClient();
    client.start();
    last().open();
    last().receive(ready({ sessionId: SESSION }));
    last().receive(turnElsewhere());
    client.retry();
    expect(sockets).toHaveLength(2);
    expect(sockets[0]!.closedWith).toBe(4001);
    client.stop();
  });
});

describe("ChatClient: rating an answer", () => {
  it("writes the feedback frame (reason trimmed, capped at 500) and shows it pending until saved", () => {
    const { client, last } = makeClient();
    client.start();
    const s = last();
    s.open();
    s.receive(ready());
    client.send("Does PS11752778 fit WDT780SAEM1?");
    s.receive(...normalTurn("t1", "msg-1", 1));
    client.sendFeedback("t1", "down", `  ${"x".repeat(600)}  `);
    const frames = s.frames("feedback");
    expect(frames).toHaveLength(1);
    expect(frames[0]).toMatchObject({ type: "feedback", turnId: "t1", rating: "down" });
    expect(frames[0]!.reason).toHaveLength(500);
    const answer = () => client.state.messages.find((m) => m.role === "assistant");
    expect(answer()).toMatchObject({ feedback: { rating: "down", status: "pending" } });
    s.receive({ type: "feedback_saved", turnId: "t1", rating: "down", reason: "x".repeat(500) });
    expect(answer()).toMatchObject({ feedback: { rating: "down", status: "saved" } });
    client.sendFeedback("t1", "up", "   ");
    expect(s.frames("feedback")[1]).toEqual({ type: "feedback", turnId: "t1", rating: "up" });
    client.stop();
  });

  it("without a ready connection nothing is written and the answer says why", () => {
    const { client, last } = makeClient();
    client.start();
    const s = last();
    s.open();
    s.receive(ready({ resumed: true, seq: 6, history: historyTurn("t1", "m1") }));
    s.drop();
    client.sendFeedback("t1", "up");
    expect(s.frames("feedback")).toHaveLength(0);
    const a = client.state.messages.find((m) => m.role === "assistant");
    expect(a).toMatchObject({ feedbackError: FEEDBACK_OFFLINE });
    expect(a && "feedback" in a).toBe(false);
    client.stop();
  });
});

describe("useChat", () => {
  it("connects on mount, exposes state and actions, and closes on unmount", () => {
    const socks = fakeSockets();
    const { result, unmount } = renderHook(() =>
      useChat({ server: "http://127.0.0.1:8000", socketFactory: socks.factory, storage: null, eventTarget: null }),
    );
    expect(result.current.status).toBe("connecting");
    const s = socks.last();
    act(() => {
      s.open();
      s.receive(ready());
    });
    expect(result.current.status).toBe("open");
    let id: string | null = null;
    act(() => {
      id = result.current.send("hello there");
    });
    expect(result.current.busy).toBe(true);
    expect(result.current.messages[0]).toMatchObject({ role: "user", text: "hello there", status: "sent" });
    act(() => {
      s.receive(...normalTurn("t1", id!, 1));
    });
    expect(result.current.busy).toBe(false);
    expect(result.current.streaming).toBe(false);
    expect(result.current.messages[1]).toMatchObject({ role: "assistant", text: FINAL_TEXT, status: "complete" });
    expect(result.current.context.productModel).toBe("WDT780SAEM1");
    expect(result.current.announcement?.text).toBe(FINAL_TEXT);
    unmount();
    expect(s.closedWith).toBe(1000);
  });
});
