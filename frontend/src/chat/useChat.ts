import { useCallback, useEffect, useMemo, useState, useSyncExternalStore } from "react";
import type { Context, Rating } from "../protocol";
import type { ChatClientOptions, ConnectionStatus } from "./client";
import { ChatClient } from "./client";
import type { Announcement, ChatError, ChatMessage } from "./types";

export interface UseChatOptions extends ChatClientOptions {
  /** Use an existing client (the widget shares one with its window.partchat API). */
  client?: ChatClient;
}

export interface UseChatResult {
  messages: ChatMessage[];
  context: Context;
  status: ConnectionStatus;
  /** A message is waiting for its answer or an answer is streaming: sending is disabled. */
  busy: boolean;
  /** An answer is streaming right now (the Stop button shows). */
  streaming: boolean;
  error: ChatError | null;
  connectionError: string | null;
  announcement: Announcement | null;
  sessionId: string | null;
  send: (text: string) => string | null;
  stop: () => void;
  retry: () => void;
  retryMessage: (id: string) => void;
  dismissError: () => void;
  /** Rate a finished answer (thumbs up/down, optional reason). */
  rate: (turnId: string, rating: Rating, reason?: string) => void;
  client: ChatClient;
}

/**
 * The chat connection for a component tree: creates (or adopts) a ChatClient, starts it on
 * mount and stops it on unmount, and re-renders on every state change.
 */
export function useChat(options: UseChatOptions = {}): UseChatResult {
  const [client] = useState(() => options.client ?? new ChatClient(options));
  const ownsClient = !options.client;

  useEffect(() => {
    client.start();
    return () => {
      if (ownsClient) client.stop();
    };
  }, [client, ownsClient]);

  const snap = useSyncExternalStore(client.subscribe, client.getSnapshot, client.getSnapshot);

  const send = useCallback((text: string) => client.send(text), [client]);
  const stop = useCallback(() => client.stopTurn(), [client]);
  const retry = useCallback(() => client.retry(), [client]);
  const retryMessage = useCallback((id: string) => client.retryMessage(id), [client]);
  const dismissError = useCallback(() => client.dismissError(), [client]);
  const rate = useCallback(
    (turnId: string, rating: Rating, reason?: string) => client.sendFeedback(turnId, rating, reason),
    [client],
  );

  return useMemo(
    () => ({
      messages: snap.state.messages,
      context: snap.state.context,
      status: snap.status,
      busy: snap.busy,
      streaming: snap.state.activeTurnId !== null,
      error: snap.state.error,
      connectionError: snap.connectionError,
      announcement: snap.state.announcement,
      sessionId: snap.state.sessionId,
      send,
      stop,
      retry,
      retryMessage,
      dismissError,
      rate,
      client,
    }),
    [snap, send, stop, retry, retryMessage, dismissError, rate, client],
  );
}
