import { useEffect, useLayoutEffect, useRef } from "react";
import type { ChatMessage } from "../chat/types";
import type { Rating } from "../protocol";
import { Message } from "./Message";

export interface MessageListProps {
  messages: readonly ChatMessage[];
  onRetryMessage?: (id: string) => void;
  onRate?: (turnId: string, rating: Rating, reason?: string) => void;
}

/**
 * The conversation. Deliberately not a live region: tokens are not read out one by one; the
 * panel's Announcer reads each finished answer instead. Keeps to the bottom while the user
 * is there, and leaves them alone when they scrolled up to read.
 */
export function MessageList({ messages, onRetryMessage, onRate }: MessageListProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const stick = useRef(true);

  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const onScroll = () => {
      stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 48;
    };
    el.addEventListener("scroll", onScroll, { passive: true });
    return () => el.removeEventListener("scroll", onScroll);
  }, []);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [messages]);

  return (
    <div className="pc-scroll" ref={scroller} tabIndex={0} aria-label="Conversation" role="region">
      <ol className="pc-messages" data-testid="pc-messages">
        {messages.map((m) => (
          <Message key={m.id} message={m} onRetry={onRetryMessage} onRate={onRate} />
        ))}
      </ol>
    </div>
  );
}
