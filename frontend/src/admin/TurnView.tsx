import { useMemo } from "react";
import { renderMarkdown } from "../chat/markdown";
import { partsForMessage } from "../chat/parts";
import type { ToolCall } from "../chat/types";
import { PartList } from "../components/PartList";
import { formatMs, formatTime } from "./format";
import { ToolCallView } from "./ToolCallView";
import type { AdminTurn } from "./types";

/** The tool calls as the chat saw them, so the part cards show as the shopper saw them. */
function asChatTools(turn: AdminTurn): ToolCall[] {
  return turn.toolCalls.map((c) => ({
    toolCallId: c.toolCallId,
    toolName: c.name,
    input: c.arguments,
    status: c.ok ? "done" : "failed",
    ...(c.result ? { output: c.result } : {}),
  }));
}

/** One turn: the shopper's message, the answer (rendered as in the chat), tools, timings, feedback. */
export function TurnView({ turn }: { turn: AdminTurn }) {
  const html = useMemo(() => renderMarkdown(turn.assistant?.text ?? ""), [turn.assistant?.text]);
  const parts = useMemo(() => partsForMessage(asChatTools(turn)), [turn]);
  const t = turn.timings;
  return (
    <li className="ad-turn" data-testid="admin-turn" data-turn-id={turn.turnId} data-status={turn.status}>
      <p className="ad-turn__meta ad-muted">
        {formatTime(turn.startedAt)} · {turn.status}
        {turn.finishReason ? ` (${turn.finishReason})` : ""}
        {turn.model ? ` · ${turn.model}` : ""}
      </p>
      <div className="ad-bubble ad-bubble--user" data-testid="admin-turn-user">
        {turn.user.text}
      </div>
      {turn.assistant ? (
        <div className="pc-root ad-bubble ad-bubble--assistant" data-testid="admin-turn-assistant">
          <div className="pc-markdown" dangerouslySetInnerHTML={{ __html: html }} />
          <PartList parts={parts} />
        </div>
      ) : (
        <p className="ad-muted">(no answer stored)</p>
      )}
      {turn.feedback && (
        <p
          className={`ad-feedback ad-feedback--${turn.feedback.rating}`}
          data-testid="admin-turn-feedback"
          data-rating={turn.feedback.rating}
        >
          {turn.feedback.rating === "down" ? "Rated not helpful" : "Rated helpful"}
          {turn.feedback.reason ? `: “${turn.feedback.reason}”` : ""}
          <span className="ad-muted"> · {formatTime(turn.feedback.at)}</span>
        </p>
      )}
      {turn.toolCalls.length > 0 && (
        <ol className="ad-tools" aria-label="Tool calls">
          {turn.toolCalls.map((c) => (
            <ToolCallView key={c.toolCallId} call={c} />
          ))}
        </ol>
      )}
      <dl className="ad-timings" data-testid="admin-turn-timings">
        <dt>queue</dt>
        <dd>{formatMs(t.queueMs)}</dd>
        <dt>first token</dt>
        <dd>{formatMs(t.firstTokenMs)}</dd>
        <dt>model</dt>
        <dd>{formatMs(t.llmMs)}</dd>
        <dt>tools</dt>
        <dd>{formatMs(t.toolsMs)}</dd>
        <dt>total</dt>
        <dd>{formatMs(t.totalMs)}</dd>
      </dl>
    </li>
  );
}
