import { memo, useMemo } from "react";
import { renderMarkdown } from "../chat/markdown";
import { partsForMessage } from "../chat/parts";
import { canRate } from "../chat/reducer";
import type { ChatMessage } from "../chat/types";
import type { Rating } from "../protocol";
import { FeedbackButtons } from "./FeedbackButtons";
import { PartList } from "./PartList";
import { ToolActivity } from "./ToolActivity";

export interface MessageProps {
  message: ChatMessage;
  onRetry?: (id: string) => void;
  /** Rate a finished answer; without it no rating buttons show. */
  onRate?: (turnId: string, rating: Rating, reason?: string) => void;
}

const ASSISTANT_NOTES: Partial<Record<string, string>> = {
  interrupted: "Stopped.",
  failed: "Sorry, this answer could not be completed.",
  partial: "This answer was cut short.",
};

const USER_NOTES: Partial<Record<string, string>> = {
  queued: "Waiting to send…",
  sent: "Sending…",
};

/** One chat message. Assistant text is Markdown, rendered sanitised (see chat/markdown.ts). */
export const Message = memo(function Message({ message, onRetry, onRate }: MessageProps) {
  if (message.role === "user") {
    const note = message.status === "failed" ? null : USER_NOTES[message.status];
    return (
      <li
        className={`pc-msg pc-msg--user pc-msg--${message.status}`}
        data-testid="pc-message"
        data-role="user"
        data-status={message.status}
        data-message-id={message.id}
      >
        <span className="pc-sr-only">You said: </span>
        <div className="pc-msg__bubble">
          <p className="pc-msg__plain" data-testid="pc-message-text">
            {message.text}
          </p>
        </div>
        {note && <p className="pc-msg__note">{note}</p>}
        {message.status === "failed" && (
          <p className="pc-msg__note pc-msg__note--error">
            Not sent{message.errorMessage ? `: ${message.errorMessage}` : "."}{" "}
            {onRetry && (
              <button
                type="button"
                className="pc-link-button"
                onClick={() => onRetry(message.id)}
                data-testid="pc-message-retry"
              >
                Send again
              </button>
            )}
          </p>
        )}
      </li>
    );
  }
  return <AssistantMessage message={message} onRate={onRate} />;
});

function AssistantMessage({
  message,
  onRate,
}: {
  message: Extract<ChatMessage, { role: "assistant" }>;
  onRate?: MessageProps["onRate"];
}) {
  const html = useMemo(() => renderMarkdown(message.text), [message.text]);
  const parts = useMemo(() => partsForMessage(message.tools), [message.tools]);
  const streaming = message.status === "streaming";
  const note = ASSISTANT_NOTES[message.status];
  return (
    <li
      className={`pc-msg pc-msg--assistant pc-msg--${message.status}`}
      data-testid="pc-message"
      data-role="assistant"
      data-status={message.status}
      data-message-id={message.id}
      aria-busy={streaming || undefined}
    >
      <span className="pc-sr-only">Assistant said: </span>
      <ToolActivity tools={message.tools} />
      {message.text ? (
        <div className="pc-msg__bubble">
          <div
            className="pc-markdown"
            data-testid="pc-message-text"
            dangerouslySetInnerHTML={{ __html: html }}
          />
          {streaming && <span className="pc-caret" aria-hidden="true" />}
        </div>
      ) : (
        streaming && (
          <div className="pc-msg__bubble pc-typing" data-testid="pc-typing">
            <span className="pc-sr-only">The assistant is typing</span>
            <span className="pc-typing__dot" aria-hidden="true" />
            <span className="pc-typing__dot" aria-hidden="true" />
            <span className="pc-typing__dot" aria-hidden="true" />
          </div>
        )
      )}
      {note && <p className="pc-msg__note">{note}</p>}
      <PartList parts={parts} />
      {onRate && canRate(message) && <FeedbackButtons message={message} onRate={onRate} />}
    </li>
  );
}
