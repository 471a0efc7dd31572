import { useCallback, useEffect, useId, useRef } from "react";
import type { UseChatResult } from "../chat/useChat";
import { Announcer } from "./Announcer";
import { Composer } from "./Composer";
import { ConnectionStatus } from "./ConnectionStatus";
import { ContextBar } from "./ContextBar";
import { ErrorBanner } from "./ErrorBanner";
import { MessageList } from "./MessageList";
import { Suggestions } from "./Suggestions";

export interface ChatPanelProps {
  chat: UseChatResult;
  title?: string;
  /** Widget only: shows a close button. */
  onClose?: () => void;
  /** Focus the message box when the panel mounts / opens. */
  autoFocus?: boolean;
}

/** The whole chat: header, context, conversation, errors, composer. Renders only. */
export function ChatPanel({ chat, title = "Parts help", onClose, autoFocus }: ChatPanelProps) {
  const headingId = useId();
  const input = useRef<HTMLTextAreaElement>(null);
  const { send } = chat;

  useEffect(() => {
    if (autoFocus) input.current?.focus();
  }, [autoFocus]);

  const onSend = useCallback(
    (text: string) => {
      send(text);
      input.current?.focus();
    },
    [send],
  );

  return (
    <section className="pc-chat" data-testid="pc-chat" aria-labelledby={headingId}>
      <header className="pc-header">
        <h2 id={headingId} className="pc-header__title" data-testid="pc-title">
          {title}
        </h2>
        <ConnectionStatus status={chat.status} />
        {onClose && (
          <button
            type="button"
            className="pc-icon-button"
            onClick={onClose}
            aria-label="Close chat"
            data-testid="pc-close"
          >
            <span aria-hidden="true">×</span>
          </button>
        )}
      </header>
      <ContextBar context={chat.context} />
      {chat.messages.length === 0 ? (
        <div className="pc-scroll pc-scroll--empty">
          <Suggestions onPick={onSend} disabled={chat.busy} />
        </div>
      ) : (
        <MessageList messages={chat.messages} onRetryMessage={chat.retryMessage} onRate={chat.rate} />
      )}
      <ErrorBanner
        error={chat.error}
        connectionError={chat.connectionError}
        onRetry={chat.retry}
        onDismiss={chat.dismissError}
      />
      <Composer
        onSend={onSend}
        onStop={chat.stop}
        busy={chat.busy}
        streaming={chat.streaming}
        inputRef={input}
      />
      <Announcer announcement={chat.announcement} />
    </section>
  );
}
