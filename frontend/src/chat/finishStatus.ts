import type { FinishReason } from "../protocol";
import type { AssistantStatus } from "./types";

/**
 * A finished answer's status, as the server stores it (partchat.store.records.message_status),
 * so its badge is the same live and after a reload. `text`: the answer as the finish event
 * carries it. `length` is the tool-round cap: the model wrapped up without tools, a whole
 * answer. A stopped or failed answer keeps what was written (partial), or failed with none.
 * The cases both sides are tested on: finishStatus.cases.json.
 */
export function finishStatus(finishReason: FinishReason, text: string): AssistantStatus {
  if (finishReason === "stop" || finishReason === "length") return "complete";
  return text ? "partial" : "failed";
}
