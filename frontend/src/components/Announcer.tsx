import type { Announcement } from "../chat/types";

export interface AnnouncerProps {
  announcement: Announcement | null;
}

/** Plain text of rendered Markdown, short enough to be read out. */
export function announcementText(a: Announcement): string {
  const plain = a.text
    .replace(/```[\s\S]*?```/g, " ")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[*_`#>|]+/g, "")
    .replace(/\s+/g, " ")
    .trim();
  const clipped = plain.length > 600 ? `${plain.slice(0, 600)}…` : plain;
  const prefix =
    a.finishReason === "aborted" ? "Answer stopped. " : a.finishReason === "error" ? "Answer failed. " : "Answer: ";
  return `${prefix}${clipped}`;
}

/** A polite live region that reads each finished answer once (never token by token). */
export function Announcer({ announcement }: AnnouncerProps) {
  return (
    <div className="pc-sr-only" aria-live="polite" aria-atomic="true" data-testid="pc-live">
      {announcement ? <span key={announcement.id}>{announcementText(announcement)}</span> : null}
    </div>
  );
}
