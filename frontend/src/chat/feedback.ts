/** What the rating controls of an answer show, derived from its state (pure). */
import type { Rating } from "../protocol";
import type { AssistantMessage } from "./types";

export interface FeedbackView {
  /** The rating shown as pressed (pending or saved), or null. */
  rating: Rating | null;
  /** "none" | "pending" | "saved": also the `data-feedback-status` of the controls. */
  status: "none" | "pending" | "saved";
  /** One line under the buttons, or null. */
  note: string | null;
  /** The stored reason of a thumbs down, shown back to the shopper. */
  reason: string | null;
  /** Why the last rating was not stored. */
  error: string | null;
}

export function feedbackView(message: Pick<AssistantMessage, "feedback" | "feedbackError">): FeedbackView {
  const fb = message.feedback;
  const error = message.feedbackError ?? null;
  if (!fb) return { rating: null, status: "none", note: null, reason: null, error };
  const note = fb.status === "pending" ? "Sending your rating…" : "Thanks for your feedback.";
  return { rating: fb.rating, status: fb.status, note, reason: fb.rating === "down" ? (fb.reason ?? null) : null, error };
}
