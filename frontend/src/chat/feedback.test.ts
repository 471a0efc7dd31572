import { describe, expect, it } from "vitest";
import type { ServerEvent } from "../protocol";
import { historyTurn, normalTurn, ready } from "../test/fixtures";
import { feedbackView } from "./feedback";
import type { ChatAction, ReducerState } from "./reducer";
import { FEEDBACK_NOT_FOUND, chatReducer, initialState } from "./reducer";
import type { AssistantMessage } from "./types";

const ev = (event: ServerEvent): ChatAction => ({ type: "server", event });
const run = (s: ReducerState, ...actions: ChatAction[]) => actions.reduce(chatReducer, s);
const answer = (s: ReducerState, turnId = "t1"): AssistantMessage => {
  const a = s.messages.find((m): m is AssistantMessage => m.role === "assistant" && m.turnId === turnId);
  if (!a) throw new Error(`no answer for ${turnId}`);
  return a;
};

/** A session with one finished answer (turn t1). */
function answered(): ReducerState {
  return run(
    initialState(),
    ev(ready()),
    { type: "send", id: "m1", text: "Does PS11752778 fit WDT780SAEM1?" },
    { type: "sent", id: "m1" },
    ...normalTurn("t1", "m1", 1).map(ev),
  );
}

describe("rating an answer (reducer)", () => {
  it("a sent rating is pending, feedback_saved makes it saved", () => {
    let s = chatReducer(answered(), { type: "feedback", turnId: "t1", rating: "down", reason: "wrong part" });
    expect(answer(s).feedback).toEqual({ rating: "down", reason: "wrong part", status: "pending" });
    s = chatReducer(s, ev({ type: "feedback_saved", turnId: "t1", rating: "down", reason: "wrong part" }));
    expect(answer(s).feedback).toEqual({ rating: "down", reason: "wrong part", status: "saved" });
  });

  it("feedback_saved carries no seq and does not move lastSeq", () => {
    const before = answered();
    const s = chatReducer(before, ev({ type: "feedback_saved", turnId: "t1", rating: "up" }));
    expect(s.lastSeq).toBe(before.lastSeq);
    expect(s.resyncNeeded).toBe(false);
    expect(answer(s).feedback).toEqual({ rating: "up", status: "saved" });
  });

  it("a new rating replaces the previous one", () => {
    const s = run(
      answered(),
      { type: "feedback", turnId: "t1", rating: "up" },
      ev({ type: "feedback_saved", turnId: "t1", rating: "up" }),
      { type: "feedback", turnId: "t1", rating: "down" },
    );
    expect(answer(s).feedback).toEqual({ rating: "down", status: "pending" });
  });

  it("error not_found clears the pending rating with a message, not the banner", () => {
    const s = run(
      answered(),
      { type: "feedback", turnId: "t1", rating: "up" },
      ev({ type: "error", code: "not_found", message: "no such turn", turnId: "t1" }),
    );
    expect(answer(s).feedback).toBeUndefined();
    expect(answer(s).feedbackError).toBe(FEEDBACK_NOT_FOUND);
    expect(s.error).toBeNull();
    // Rating again clears the message.
    const again = chatReducer(s, { type: "feedback", turnId: "t1", rating: "up" });
    expect(answer(again).feedbackError).toBeUndefined();
  });

  it("error not_found without a turn id clears every pending rating", () => {
    const s = run(
      answered(),
      { type: "feedback", turnId: "t1", rating: "down" },
      ev({ type: "error", code: "not_found", message: "no such turn" }),
    );
    expect(answer(s).feedback).toBeUndefined();
    expect(answer(s).feedbackError).toBe(FEEDBACK_NOT_FOUND);
  });

  it("a rating that could not be sent is cleared with its message", () => {
    const s = run(
      answered(),
      { type: "feedback", turnId: "t1", rating: "up" },
      { type: "feedback-unsent", turnId: "t1", message: "not connected" },
    );
    expect(answer(s).feedback).toBeUndefined();
    expect(answer(s).feedbackError).toBe("not connected");
  });

  it("a streaming answer cannot be rated", () => {
    const events = normalTurn("t1", "m1", 1);
    let s = run(initialState(), ev(ready()), { type: "send", id: "m1", text: "q" }, { type: "sent", id: "m1" });
    s = run(s, ...events.slice(0, 2).map(ev));
    expect(answer(s).status).toBe("streaming");
    const rated = chatReducer(s, { type: "feedback", turnId: "t1", rating: "up" });
    expect(rated).toBe(s);
  });

  it("history restores the stored rating after a reload", () => {
    const [user, assistant] = historyTurn("t1", "m1");
    const s = chatReducer(
      initialState(),
      ev(
        ready({
          resumed: true,
          seq: 6,
          history: [user!, { ...assistant!, feedback: { rating: "down", reason: "too vague" } }],
        }),
      ),
    );
    expect(answer(s).feedback).toEqual({ rating: "down", reason: "too vague", status: "saved" });
  });

  it("history without a rating shows none", () => {
    const s = chatReducer(initialState(), ev(ready({ resumed: true, seq: 6, history: historyTurn("t1", "m1") })));
    expect(answer(s).feedback).toBeUndefined();
  });
});

describe("feedbackView", () => {
  it("shows nothing pressed before a rating", () => {
    expect(feedbackView({})).toEqual({ rating: null, status: "none", note: null, reason: null, error: null });
  });
  it("pending, then saved, with the reason of a thumbs down", () => {
    expect(feedbackView({ feedback: { rating: "down", reason: "r", status: "pending" } })).toMatchObject({
      rating: "down",
      status: "pending",
      note: "Sending your rating…",
      reason: "r",
    });
    expect(feedbackView({ feedback: { rating: "up", status: "saved" } })).toMatchObject({
      rating: "up",
      note: "Thanks for your feedback.",
      reason: null,
    });
  });
  it("passes the error through", () => {
    expect(feedbackView({ feedbackError: "nope" }).error).toBe("nope");
  });
});
