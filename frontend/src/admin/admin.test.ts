import { describe, expect, it } from "vitest";
import { chartBars } from "./chart";
import { formatMs, formatShare, formatTime } from "./format";
import { INITIAL_LIST, listReducer } from "./listState";
import { TOKEN_KEY, clearToken, loadToken, saveToken } from "./token";
import type { SessionSummary } from "./types";

const summary = (id: string): SessionSummary => ({
  sessionId: id,
  createdAt: "2026-11-25T10:00:00Z",
  updatedAt: "2026-11-25T10:01:00Z",
  turns: 1,
  firstMessage: "hi",
  context: { productModel: null, partNumber: null, symptoms: [], applianceType: null },
  ratings: { up: 0, down: 0 },
  errors: 0,
  toolErrors: 0,
  unknown: [],
});

describe("listReducer", () => {
  it("loads the first page, then appends the next with its cursor", () => {
    let s = listReducer(INITIAL_LIST, { type: "request", request: 1, append: false });
    expect(s.loading).toBe(true);
    s = listReducer(s, { type: "loaded", request: 1, append: false, page: { items: [summary("a"), summary("b")], nextCursor: "c1" } });
    expect(s.items.map((i) => i.sessionId)).toEqual(["a", "b"]);
    expect(s.nextCursor).toBe("c1");
    expect(s.loaded).toBe(true);
    s = listReducer(s, { type: "request", request: 2, append: true });
    expect(s.items).toHaveLength(2); // kept while the next page loads
    s = listReducer(s, { type: "loaded", request: 2, append: true, page: { items: [summary("b"), summary("c")], nextCursor: null } });
    expect(s.items.map((i) => i.sessionId)).toEqual(["a", "b", "c"]);
    expect(s.nextCursor).toBeNull();
  });

  it("new filters start over and drop the answer of an older request", () => {
    let s = listReducer(INITIAL_LIST, { type: "request", request: 1, append: false });
    s = listReducer(s, { type: "loaded", request: 1, append: false, page: { items: [summary("a")], nextCursor: "c" } });
    s = listReducer(s, { type: "request", request: 2, append: false });
    expect(s.items).toEqual([]);
    const stale = listReducer(s, { type: "loaded", request: 1, append: false, page: { items: [summary("old")], nextCursor: null } });
    expect(stale).toBe(s);
    s = listReducer(s, { type: "failed", request: 2, message: "boom" });
    expect(s).toMatchObject({ loading: false, error: "boom" });
  });
});

describe("token storage", () => {
  it("keeps the token under one key and clears it", () => {
    const data = new Map<string, string>();
    const storage = {
      getItem: (k: string) => data.get(k) ?? null,
      setItem: (k: string, v: string) => void data.set(k, v),
      removeItem: (k: string) => void data.delete(k),
    };
    expect(loadToken(storage)).toBeNull();
    saveToken(storage, "tok-1234567890abcdef");
    expect(data.get(TOKEN_KEY)).toBe("tok-1234567890abcdef");
    expect(loadToken(storage)).toBe("tok-1234567890abcdef");
    clearToken(storage);
    expect(loadToken(storage)).toBeNull();
    expect(loadToken(null)).toBeNull();
  });
});

describe("format", () => {
  it("formats durations, shares and times", () => {
    expect(formatMs(null)).toBe("–");
    expect(formatMs(42.4)).toBe("42 ms");
    expect(formatMs(1534)).toBe("1.53 s");
    expect(formatShare(null)).toBe("–");
    expect(formatShare(0.25)).toBe("25%");
    expect(formatShare(0.034)).toBe("3.4%");
    expect(formatTime("2026-11-25T14:03:09.512Z")).toBe("2026-11-25 14:03:09 UTC");
  });
});

describe("chartBars", () => {
  it("scales bars to the busiest day, negatives inside their bar", () => {
    const g = chartBars(
      [
        { day: "2026-11-24", answers: 4, negative: 1 },
        { day: "2026-11-25", answers: 8, negative: 0 },
        { day: "2026-11-26", answers: 0, negative: 0 },
      ],
      300,
      100,
    );
    expect(g.max).toBe(8);
    expect(g.bars.map((b) => b.height)).toEqual([50, 100, 0]);
    expect(g.bars[0]!.y).toBe(50);
    expect(g.bars[0]!.negativeHeight).toBe(12.5);
    expect(g.bars[0]!.negativeY).toBe(87.5);
    expect(g.bars[1]!.x).toBeCloseTo(101);
    expect(chartBars([], 300, 100).bars).toEqual([]);
  });
});
