import { describe, expect, it } from "vitest";
import { toolLabel } from "./toolLabels";
import type { ToolCall } from "./types";

const tool = (toolName: string, input: Record<string, unknown> | null, status: ToolCall["status"] = "running", output?: Record<string, unknown>) => ({
  toolName,
  input,
  status,
  output,
});

describe("toolLabel", () => {
  it("describes each tool while it runs", () => {
    expect(toolLabel(tool("check_compatibility", { partNumber: "PS11752778", model: "WDT780SAEM1" }))).toBe(
      "Checking whether PS11752778 fits WDT780SAEM1…",
    );
    expect(toolLabel(tool("search_parts", { query: "ice maker" }))).toBe("Searching parts for 'ice maker'…");
    expect(toolLabel(tool("search_parts", { query: "wheel", model: "WDT780SAEM1" }))).toBe(
      "Searching parts for 'wheel' for WDT780SAEM1…",
    );
    expect(toolLabel(tool("get_part_details", { partNumber: "PS11752778" }))).toBe("Looking up PS11752778…");
    expect(toolLabel(tool("get_installation_instructions", { partNumber: "PS11752778" }))).toBe(
      "Finding installation steps for PS11752778…",
    );
    expect(toolLabel(tool("diagnose_repair", { symptoms: ["ice maker not working"], model: "WRS325SDHZ" }))).toBe(
      "Diagnosing 'ice maker not working' for WRS325SDHZ…",
    );
    expect(toolLabel(tool("extract_information", { text: "x" }))).toBe("Reading your message…");
    expect(toolLabel(tool("brand_new_tool", {}))).toBe("Running brand new tool…");
  });

  it("describes done and failed states", () => {
    expect(toolLabel(tool("get_part_details", { partNumber: "PS1" }, "done"))).toBe("Looked up PS1");
    expect(toolLabel(tool("get_part_details", { partNumber: "PS1" }, "failed"))).toBe("Could not look up PS1");
    expect(toolLabel(tool("search_parts", { query: "ice maker" }, "done", { ok: true, parts: [{}, {}] }))).toBe(
      "Searched parts for 'ice maker': 2 found",
    );
    expect(
      toolLabel(tool("check_compatibility", { partNumber: "PS1", model: "M1" }, "failed")),
    ).toBe("Could not check whether PS1 fits M1");
  });

  it("falls back to the output when the input is unknown (restored history)", () => {
    expect(
      toolLabel(tool("check_compatibility", null, "done", { ok: true, partNumber: "PS11752778", model: "WDT780SAEM1" })),
    ).toBe("Checked whether PS11752778 fits WDT780SAEM1");
    expect(toolLabel(tool("get_part_details", null, "done", {}))).toBe("Looked up the part");
  });
});
