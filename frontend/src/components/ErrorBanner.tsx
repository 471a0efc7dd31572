import type { ChatError } from "../chat/types";

export interface ErrorBannerProps {
  error: ChatError | null;
  connectionError: string | null;
  onRetry: () => void;
  onDismiss: () => void;
}

const FRIENDLY: Partial<Record<ChatError["code"], string>> = {
  busy: "I'm still answering your previous message. Wait for it to finish, or press Stop.",
  rate_limited: "You're sending messages too quickly. Please wait a moment and retry.",
  message_too_long: "That message is too long (4,000 characters at most).",
  llm_unavailable: "The assistant is unavailable right now. Please retry in a moment.",
  storage_unavailable: "Your message could not be saved. Please retry.",
  server_restarting: "The assistant is restarting. Please retry in a moment.",
  internal: "Something went wrong on our side. Please retry.",
  turn_elsewhere:
    "Your previous answer is still being written. It will appear here when it's done; anything you send now goes right after it.",
};

/** The current error (server or connection) with Retry and Dismiss. */
export function ErrorBanner({ error, connectionError, onRetry, onDismiss }: ErrorBannerProps) {
  if (!error && !connectionError) return null;
  const text = connectionError ?? (error ? FRIENDLY[error.code] ?? error.message : "");
  return (
    <div className="pc-error" role="alert" data-testid="pc-error" data-code={error?.code ?? "connection"}>
      <p className="pc-error__text">{text}</p>
      <div className="pc-error__actions">
        <button type="button" className="pc-button pc-button--small" onClick={onRetry} data-testid="pc-error-retry">
          Retry
        </button>
        <button
          type="button"
          className="pc-button pc-button--ghost pc-button--small"
          onClick={onDismiss}
          data-testid="pc-error-dismiss"
          aria-label="Dismiss error"
        >
          Dismiss
        </button>
      </div>
    </div>
  );
}
