import { toolLabel } from "../chat/toolLabels";
import type { ToolCall } from "../chat/types";

export interface ToolActivityProps {
  tools: readonly ToolCall[];
}

/** One line per tool call: running (spinner), done (check) or failed (cross). */
export function ToolActivity({ tools }: ToolActivityProps) {
  if (tools.length === 0) return null;
  return (
    <ul className="pc-tools" data-testid="pc-tool-activity" aria-label="What I checked">
      {tools.map((t) => (
        <li
          key={t.toolCallId}
          className={`pc-tool pc-tool--${t.status}`}
          data-testid="pc-tool"
          data-status={t.status}
          data-tool-name={t.toolName}
        >
          <span className="pc-tool__icon" aria-hidden="true">
            {t.status === "running" ? "" : t.status === "done" ? "✓" : "!"}
          </span>
          <span className="pc-tool__label">{toolLabel(t)}</span>
          {t.status === "failed" && t.errorText && <span className="pc-tool__error">: {t.errorText}</span>}
        </li>
      ))}
    </ul>
  );
}
