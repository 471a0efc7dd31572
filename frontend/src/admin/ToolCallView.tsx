import { formatBytes, formatMs, prettyJson } from "./format";
import type { AdminToolCall } from "./types";

/** One tool call of a turn: name, outcome, duration; arguments and result on demand. */
export function ToolCallView({ call }: { call: AdminToolCall }) {
  return (
    <li className={`ad-tool ad-tool--${call.ok ? "ok" : "failed"}`} data-testid="admin-tool-call" data-tool-name={call.name} data-ok={String(call.ok)}>
      <div className="ad-tool__head">
        <code className="ad-tool__name">{call.name}</code>
        <span className={`ad-badge ${call.ok ? "ad-badge--good" : "ad-badge--bad"}`} data-testid="admin-tool-outcome">
          {call.ok ? "ok" : `error${call.errorCode ? `: ${call.errorCode}` : ""}`}
        </span>
        <span className="ad-muted">
          round {call.round} · {formatMs(call.durationMs)} · {formatBytes(call.resultBytes)}
        </span>
      </div>
      <details>
        <summary>Arguments</summary>
        <pre data-testid="admin-tool-args">{prettyJson(call.arguments)}</pre>
      </details>
      <details>
        <summary>Result</summary>
        <pre data-testid="admin-tool-result">{call.result === null ? "(not kept)" : prettyJson(call.result)}</pre>
      </details>
    </li>
  );
}
