import { useEffect, useId, useRef, useState } from "react";
import type { FormEvent, KeyboardEvent } from "react";
import { feedbackView } from "../chat/feedback";
import type { AssistantMessage } from "../chat/types";
import type { Rating } from "../protocol";
import { MAX_FEEDBACK_REASON_LENGTH } from "../protocol";

export interface FeedbackButtonsProps {
  message: AssistantMessage;
  onRate: (turnId: string, rating: Rating, reason?: string) => void;
}

const THUMB =
  "M2 21h4V9H2v12zm20-11c0-1.1-.9-2-2-2h-6.3l.95-4.57.03-.32c0-.41-.17-.79-.44-1.06L13.17 2 6.59 8.59C6.22 8.95 6 9.45 6 10v9c0 1.1.9 2 2 2h9c.83 0 1.54-.5 1.84-1.22l3.02-7.05c.09-.23.14-.47.14-.73v-2z";

const THUMBS: { rating: Rating; label: string; title: string }[] = [
  { rating: "up", label: "Helpful answer", title: "Helpful" },
  { rating: "down", label: "Not helpful answer", title: "Not helpful" },
];

function Thumb({ down }: { down?: boolean }) {
  return (
    <svg aria-hidden="true" focusable="false" viewBox="0 0 24 24" width="16" height="16">
      <path d={THUMB} fill="currentColor" transform={down ? "rotate(180 12 12)" : undefined} />
    </svg>
  );
}

/**
 * Thumbs up / down under a finished answer. Thumbs down is recorded at once and opens an
 * optional reason (sent as the same rating with its reason). The pressed state comes from
 * the reducer (pending until the server's `feedback_saved`), so it survives a reload.
 */
export function FeedbackButtons({ message, onRate }: FeedbackButtonsProps) {
  const view = feedbackView(message);
  const [asking, setAsking] = useState(false);
  const [draft, setDraft] = useState("");
  const reasonId = useId();
  const reasonBox = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    if (asking) reasonBox.current?.focus();
  }, [asking]);

  const rate = (rating: Rating) => {
    if (rating === "down") {
      if (view.rating !== "down") onRate(message.turnId, "down");
      setDraft(view.reason ?? "");
      setAsking(true);
    } else {
      setAsking(false);
      if (view.rating !== "up") onRate(message.turnId, "up");
    }
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    onRate(message.turnId, "down", draft.trim() || undefined);
    setAsking(false);
  };

  const onReasonKey = (e: KeyboardEvent) => {
    if (e.key === "Escape") {
      e.stopPropagation(); // closes the reason box, not the widget
      setAsking(false);
    }
  };

  return (
    <div
      className="pc-feedback"
      data-testid="pc-feedback"
      data-rating={view.rating ?? ""}
      data-feedback-status={view.status}
    >
      <div className="pc-feedback__buttons" role="group" aria-label="Rate this answer">
        {THUMBS.map(({ rating, label, title }) => (
          <button
            key={rating}
            type="button"
            className="pc-feedback__button"
            data-testid={`pc-feedback-${rating}`}
            aria-pressed={view.rating === rating}
            aria-label={label}
            title={title}
            onClick={() => rate(rating)}
          >
            <Thumb down={rating === "down"} />
          </button>
        ))}
        {view.note && (
          <span className="pc-feedback__note" data-testid="pc-feedback-status" role="status">
            {view.note}
          </span>
        )}
      </div>
      {asking && (
        <form className="pc-feedback__form" data-testid="pc-feedback-form" onSubmit={submit}>
          <label htmlFor={reasonId} className="pc-feedback__label">
            What was wrong? (optional)
          </label>
          <textarea
            id={reasonId}
            ref={reasonBox}
            className="pc-feedback__reason"
            data-testid="pc-feedback-reason"
            rows={2}
            maxLength={MAX_FEEDBACK_REASON_LENGTH}
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={onReasonKey}
          />
          <div className="pc-feedback__actions">
            <span className="pc-feedback__count" aria-hidden="true">
              {draft.length}/{MAX_FEEDBACK_REASON_LENGTH}
            </span>
            <button type="submit" className="pc-feedback__send" data-testid="pc-feedback-send">
              Send
            </button>
          </div>
        </form>
      )}
      {!asking && view.reason && (
        <p className="pc-feedback__saved-reason" data-testid="pc-feedback-saved-reason">
          Your note: {view.reason}
        </p>
      )}
      {view.error && (
        <p className="pc-msg__note pc-msg__note--error" data-testid="pc-feedback-error" role="alert">
          {view.error}
        </p>
      )}
    </div>
  );
}
