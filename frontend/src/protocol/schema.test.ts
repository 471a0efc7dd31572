// @vitest-environment node
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { schemaPath } from "../../scripts/gen-protocol.mjs";
import { historyTurn, normalTurn, ready } from "../test/fixtures";

const schema = JSON.parse(readFileSync(schemaPath, "utf8")) as Record<string, unknown>;
const ajv = new Ajv2020({ allErrors: true, strict: true });
ajv.addSchema(schema);
const id = schema.$id as string;
const serverEvent = ajv.getSchema(`${id}#/$defs/ServerEvent`)!;
const clientFrame = ajv.getSchema(`${id}#/$defs/ClientFrame`)!;

describe("protocol.schema.json", () => {
  it("accepts the test fixtures as server events (the reducer tests use valid events)", () => {
    const events = [
      ready(),
      ready({ resumed: true, seq: 9, history: historyTurn("t1", "m1"), inflight: { turnId: "t2", messageId: "m2" } }),
      ...normalTurn("t1", "m1", 1),
      { type: "error", code: "busy", message: "busy" },
      { type: "error", code: "llm_unavailable", message: "down", turnId: "t1", seq: 3 },
      { type: "pong" },
      {
        type: "tool-output-error",
        turnId: "t",
        toolCallId: "c",
        toolName: "get_part_details",
        errorText: "invalid input",
        errors: [{ path: "/partNumber", message: "bad" }],
        seq: 4,
      },
    ];
    for (const e of events) {
      expect(serverEvent(e), JSON.stringify(serverEvent.errors)).toBe(true);
    }
  });

  it("rejects malformed server events", () => {
    expect(serverEvent({ type: "start", turnId: "t", messageId: "m" })).toBe(false); // no seq
    expect(serverEvent({ type: "text-delta", turnId: "t", delta: "x", seq: -1 })).toBe(false);
    expect(serverEvent({ type: "finish", turnId: "t", text: "", finishReason: "done", seq: 1 })).toBe(false);
    expect(serverEvent({ type: "error", code: "nope", message: "" })).toBe(false);
    expect(serverEvent({ ...ready(), context: { productModel: null } })).toBe(false);
    expect(serverEvent({ type: "mystery", seq: 1 })).toBe(false);
  });

  it("accepts valid client frames and rejects extra fields, bad ids and long text", () => {
    expect(clientFrame({ type: "hello", sessionId: null, lastSeq: null })).toBe(true);
    expect(clientFrame({ type: "hello", sessionId: "sess_0123456789abcdef", lastSeq: 12 })).toBe(true);
    expect(clientFrame({ type: "message", id: "0b6c3f3e-6a43-4e84-b4a3-9b5f1f0a8e1c", text: "hi" })).toBe(true);
    expect(clientFrame({ type: "stop" })).toBe(true);
    expect(clientFrame({ type: "ping" })).toBe(true);

    expect(clientFrame({ type: "hello", sessionId: "short", lastSeq: null })).toBe(false);
    expect(clientFrame({ type: "hello", sessionId: "../../etc/passwd0000", lastSeq: null })).toBe(false);
    expect(clientFrame({ type: "hello", sessionId: null, lastSeq: 1.5 })).toBe(false);
    expect(clientFrame({ type: "hello", sessionId: null })).toBe(false);
    expect(clientFrame({ type: "message", id: "", text: "hi" })).toBe(false);
    expect(clientFrame({ type: "message", id: "x".repeat(65), text: "hi" })).toBe(false);
    expect(clientFrame({ type: "message", id: "a", text: "x".repeat(4001) })).toBe(false);
    expect(clientFrame({ type: "stop", extra: 1 })).toBe(false);
    expect(clientFrame({ type: "dance" })).toBe(false);
  });
});
