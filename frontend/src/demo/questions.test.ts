import { describe, expect, it } from "vitest";
import { fillQuestion, normaliseModel } from "./questions";

describe("demo store questions", () => {
  it("normalises a typed model number", () => {
    expect(normaliseModel("  wdt780saem1 ")).toBe("WDT780SAEM1");
    expect(normaliseModel("WDT 780 SAEM1")).toBe("WDT780SAEM1");
    expect(normaliseModel("665.13273K112")).toBe("665.13273K112");
  });

  it("refuses what cannot be a model number", () => {
    expect(normaliseModel("")).toBeNull();
    expect(normaliseModel("ab")).toBeNull();
    expect(normaliseModel("my dishwasher?")).toBeNull();
    expect(normaliseModel("X".repeat(41))).toBeNull();
  });

  it("fills the page's templates", () => {
    expect(fillQuestion("Does {part} fit my {model}?", { part: "PS11753379", model: "WDT780SAEM1" })).toBe(
      "Does PS11753379 fit my WDT780SAEM1?",
    );
    expect(fillQuestion("Tell me about part {part}.", { part: "PS11753379" })).toBe("Tell me about part PS11753379.");
  });
});
