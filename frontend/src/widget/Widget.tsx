import { useEffect, useId, useRef, useSyncExternalStore } from "react";
import type { CSSProperties, KeyboardEvent } from "react";
import type { ChatClient } from "../chat/client";
import { useChat } from "../chat/useChat";
import { ChatPanel } from "../components/ChatPanel";
import type { WidgetConfig } from "./config";
import { themeVariables } from "./config";
import type { WidgetController } from "./controller";

export interface WidgetProps {
  config: WidgetConfig;
  controller: WidgetController;
  client: ChatClient;
}

function WidgetChat({ client, title, open, onClose }: { client: ChatClient; title: string; open: boolean; onClose: () => void }) {
  const chat = useChat({ client });
  return <ChatPanel chat={chat} title={title} onClose={onClose} autoFocus={open} />;
}

/** Launcher button + floating chat panel; lives inside the widget's shadow root. */
export function Widget({ config, controller, client }: WidgetProps) {
  const { open, activated } = useSyncExternalStore(controller.subscribe, controller.getSnapshot);
  const panelId = useId();
  const launcher = useRef<HTMLButtonElement>(null);
  const wasOpen = useRef(open);

  useEffect(() => {
    // Closing returns focus to the launcher (keyboard users are not lost on the page).
    if (wasOpen.current && !open) launcher.current?.focus();
    wasOpen.current = open;
  }, [open]);

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === "Escape" && open) {
      e.stopPropagation();
      controller.close();
    }
  };

  const style = themeVariables(config) as CSSProperties;
  const mountChat = activated || config.connect === "eager";

  return (
    <div
      className={`pc-root pc-widget pc-widget--${config.position}${open ? " pc-widget--open" : ""}`}
      style={style}
      onKeyDown={onKeyDown}
    >
      <div
        id={panelId}
        className="pc-panel"
        data-testid="pc-panel"
        role="dialog"
        aria-label={config.title}
        hidden={!open}
      >
        {mountChat && <WidgetChat client={client} title={config.title} open={open} onClose={controller.close} />}
      </div>
      <button
        ref={launcher}
        type="button"
        className="pc-launcher"
        data-testid="pc-launcher"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={controller.toggle}
      >
        <svg className="pc-launcher__icon" aria-hidden="true" focusable="false" viewBox="0 0 24 24" width="20" height="20">
          {open ? (
            <path d="M6 6l12 12M18 6L6 18" stroke="currentColor" strokeWidth="2.4" strokeLinecap="round" fill="none" />
          ) : (
            <path
              d="M4 5.5A2.5 2.5 0 0 1 6.5 3h11A2.5 2.5 0 0 1 20 5.5v8a2.5 2.5 0 0 1-2.5 2.5H10l-4.2 3.6c-.5.4-1.3.1-1.3-.6V16H6.5"
              stroke="currentColor"
              strokeWidth="2"
              strokeLinejoin="round"
              fill="none"
            />
          )}
        </svg>
        <span>{open ? "Close chat" : config.launcherLabel}</span>
      </button>
    </div>
  );
}
