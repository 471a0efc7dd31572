import type { ConnectionStatus as Status } from "../chat/client";

const LABELS: Record<Status, string> = {
  connecting: "Connecting…",
  open: "Connected",
  reconnecting: "Reconnecting…",
  closed: "Disconnected",
};

export interface ConnectionStatusProps {
  status: Status;
}

/** A small status line; silent (visually hidden) while connected. */
export function ConnectionStatus({ status }: ConnectionStatusProps) {
  return (
    <div
      className={`pc-connection pc-connection--${status}`}
      data-testid="pc-connection"
      data-status={status}
      role="status"
    >
      <span className="pc-connection__dot" aria-hidden="true" />
      <span className={status === "open" ? "pc-sr-only" : undefined}>{LABELS[status]}</span>
    </div>
  );
}
