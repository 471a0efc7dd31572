import { useId, useState } from "react";
import type { KeyboardEvent, FormEvent, Ref } from "react";
import { MAX_MESSAGE_LENGTH } from "../protocol";

export interface ComposerProps {
  onSend: (text: string) => void;
  onStop: () => void;
  /** A message is waiting for its answer: sending is disabled. */
  busy: boolean;
  /** An answer is streaming: the Stop button shows. */
  streaming: boolean;
  inputRef?: Ref<HTMLTextAreaElement>;
  placeholder?: string;
}

/** Enter sends, Shift+Enter makes a new line; Stop while an answer streams. */
export function Composer({ onSend, onStop, busy, streaming, inputRef, placeholder }: ComposerProps) {
  const [text, setText] = useState("");
  const id = useId();
  const hintId = `${id}-hint`;
  const trimmed = text.trim();
  const canSend = !busy && trimmed.length > 0 && text.length <= MAX_MESSAGE_LENGTH;
  const nearLimit = text.length > MAX_MESSAGE_LENGTH - 200;

  const submit = () => {
    if (!canSend) return;
    onSend(trimmed);
    setText("");
  };
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    submit();
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      submit();
    }
  };

  return (
    <form className="pc-composer" data-testid="pc-composer" onSubmit={onSubmit}>
      <label htmlFor={id} className="pc-sr-only">
        Your message
      </label>
      <textarea
        id={id}
        ref={inputRef}
        className="pc-composer__input"
        data-testid="pc-input"
        rows={Math.min(5, Math.max(1, text.split("\n").length))}
        value={text}
        maxLength={MAX_MESSAGE_LENGTH}
        placeholder={placeholder ?? "Type your question…"}
        aria-describedby={hintId}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
      />
      <span id={hintId} className="pc-sr-only">
        Enter sends, Shift+Enter starts a new line.
      </span>
      {nearLimit && (
        <span className="pc-composer__count" aria-live="polite">
          {text.length}/{MAX_MESSAGE_LENGTH}
        </span>
      )}
      <div className="pc-composer__actions">
        {streaming && (
          <button type="button" className="pc-button pc-button--ghost" onClick={onStop} data-testid="pc-stop">
            Stop
          </button>
        )}
        <button type="submit" className="pc-button" disabled={!canSend} data-testid="pc-send">
          Send
        </button>
      </div>
    </form>
  );
}
