/** Recorded-style event sequences for the reducer and hook tests (valid per the schema). */
import type { Context, HistoryMessage, ServerEvent } from "../protocol";

export const SESSION = "sess_0123456789abcdef";

export const PART_CARD = {
  partNumber: "PS11752778",
  mfrNumber: "WPW10321304",
  name: "Refrigerator Door Shelf Bin",
  brand: "Whirlpool",
  partType: "Door Shelf Bin",
  priceCents: 4495,
  price: "$44.95",
  availability: "In Stock",
  inStock: true,
  videoUrl: "https://www.youtube.com/watch?v=zSCNN6KpDE8",
  difficulty: "Really Easy",
  installTime: "Less than 15 mins",
  rating: 97,
  reviewCount: 351,
  fit: "fits",
  model: "WDT780SAEM1",
} as const;

export const CONTEXT: Context = {
  productModel: "WDT780SAEM1",
  partNumber: "PS11752778",
  symptoms: [],
  applianceType: "dishwasher",
};

export function ready(over: Partial<Extract<ServerEvent, { type: "ready" }>> = {}): ServerEvent {
  return {
    type: "ready",
    sessionId: SESSION,
    resumed: false,
    context: { productModel: null, partNumber: null, symptoms: [], applianceType: null },
    history: [],
    inflight: null,
    seq: 0,
    ...over,
  };
}

/** A whole turn: start, two tool calls, context, three deltas, finish. seq from `from`. */
/** The server's answer when the session's turn runs in another server process. */
export function turnElsewhere(turnId = "t9"): ServerEvent {
  return { type: "error", code: "turn_elsewhere", message: "elsewhere", turnId };
}

export function normalTurn(turnId: string, messageId: string, from: number): ServerEvent[] {
  let seq = from;
  const out: ServerEvent[] = [
    { type: "start", turnId, messageId, seq: seq++ },
    {
      type: "tool-input-available",
      turnId,
      toolCallId: `${turnId}-c1`,
      toolName: "check_compatibility",
      input: { partNumber: "PS11752778", model: "WDT780SAEM1" },
      seq: seq++,
    },
    {
      type: "tool-output-available",
      turnId,
      toolCallId: `${turnId}-c1`,
      toolName: "check_compatibility",
      output: {
        ok: true,
        status: "fits",
        evidence: "catalog",
        partNumber: "PS11752778",
        model: "WDT780SAEM1",
        part: PART_CARD,
        suggestions: [],
      },
      seq: seq++,
    },
    { type: "data-context", turnId, context: CONTEXT, seq: seq++ },
    { type: "text-delta", turnId, delta: "Yes, **PS11752778** ", seq: seq++ },
    { type: "text-delta", turnId, delta: "fits your ", seq: seq++ },
    { type: "text-delta", turnId, delta: "WDT780SAEM1.", seq: seq++ },
    {
      type: "finish",
      turnId,
      text: "Yes, **PS11752778** fits your WDT780SAEM1.",
      finishReason: "stop",
      seq,
    },
  ];
  return out;
}

export const FINAL_TEXT = "Yes, **PS11752778** fits your WDT780SAEM1.";

export function historyTurn(turnId: string, messageId: string, text = FINAL_TEXT): HistoryMessage[] {
  return [
    { id: messageId, role: "user", text: "Does PS11752778 fit WDT780SAEM1?", turnId },
    {
      id: `srv-${turnId}`,
      role: "assistant",
      text,
      turnId,
      status: "complete",
      toolOutputs: [
        {
          toolCallId: `${turnId}-c1`,
          toolName: "check_compatibility",
          output: { ok: true, status: "fits", partNumber: "PS11752778", model: "WDT780SAEM1", part: PART_CARD },
        },
      ],
    },
  ];
}
