import { describe, expect, it } from "vitest";
import { PART_CARD } from "../test/fixtures";
import { MAX_VISIBLE_PARTS, partsForMessage, partsFromOutput, toPartCard, visibleParts } from "./parts";
import type { ToolCall } from "./types";

const done = (toolCallId: string, output: Record<string, unknown>): ToolCall => ({
  toolCallId,
  toolName: "x",
  input: null,
  status: "done",
  output,
});

describe("part cards from tool outputs", () => {
  it("reads part, parts[] and candidates[].part", () => {
    expect(partsFromOutput({ ok: true, part: PART_CARD }).map((p) => p.partNumber)).toEqual(["PS11752778"]);
    expect(
      partsFromOutput({ ok: true, parts: [PART_CARD, { ...PART_CARD, partNumber: "PS1" }] }).map((p) => p.partNumber),
    ).toEqual(["PS11752778", "PS1"]);
    const c = partsFromOutput({ ok: true, candidates: [{ part: PART_CARD, reason: "Common fix" }] });
    expect(c[0]).toMatchObject({ partNumber: "PS11752778", reason: "Common fix" });
  });

  it("ignores failed results, null parts and junk", () => {
    expect(partsFromOutput({ ok: false, error: { code: "invalid_input" } })).toEqual([]);
    expect(partsFromOutput({ ok: true, part: null, parts: [null, 3, { name: "no number" }] })).toEqual([]);
    expect(partsFromOutput(null)).toEqual([]);
  });

  it("de-duplicates by partNumber per message, merging the fit from a later result", () => {
    const tools = [
      done("a", { ok: true, parts: [{ ...PART_CARD, fit: null, model: null }] }),
      done("b", { ok: true, part: { ...PART_CARD, fit: "fits", model: "WDT780SAEM1" } }),
      done("c", { ok: true, part: PART_CARD }),
      { ...done("d", { ok: true, part: { ...PART_CARD, partNumber: "PS9" } }), status: "running" as const },
    ];
    const parts = partsForMessage(tools);
    expect(parts).toHaveLength(1);
    expect(parts[0]).toMatchObject({ partNumber: "PS11752778", fit: "fits", model: "WDT780SAEM1" });
  });

  it("shows at most 5 cards per answer until expanded", () => {
    const cards = Array.from({ length: 8 }, (_, i) => toPartCard({ ...PART_CARD, partNumber: `PS${i}` })!);
    expect(MAX_VISIBLE_PARTS).toBe(5);
    const capped = visibleParts(cards, false);
    expect(capped.shown.map((p) => p.partNumber)).toEqual(["PS0", "PS1", "PS2", "PS3", "PS4"]);
    expect(capped.hidden).toBe(3);
    const all = visibleParts(cards, true);
    expect(all.shown).toHaveLength(8);
    expect(all.hidden).toBe(0);
    expect(visibleParts(cards.slice(0, 5), false)).toEqual({ shown: cards.slice(0, 5), hidden: 0 });
    expect(visibleParts([], false)).toEqual({ shown: [], hidden: 0 });
    expect(visibleParts(cards, false, 2).hidden).toBe(6);
  });
});
