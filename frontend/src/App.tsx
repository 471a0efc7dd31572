import { useChat } from "./chat/useChat";
import type { UseChatOptions } from "./chat/useChat";
import { ChatPanel } from "./components/ChatPanel";

export interface AppProps {
  options?: UseChatOptions;
  title?: string;
}

/** The full-page app: the same ChatPanel as the widget, filling the window. */
export function App({ options, title = "Parts help" }: AppProps) {
  const chat = useChat(options);
  return (
    <div className="pc-root pc-root--page">
      <ChatPanel chat={chat} title={title} autoFocus />
    </div>
  );
}
