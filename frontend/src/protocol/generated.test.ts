// @vitest-environment node
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { generate, outputPath } from "../../scripts/gen-protocol.mjs";

describe("protocol types", () => {
  it("generated.ts matches the schema (run `npm run gen:protocol` after changing it)", async () => {
    const committed = await readFile(outputPath, "utf8");
    expect(committed).toBe(await generate());
  }, 30_000);
});
