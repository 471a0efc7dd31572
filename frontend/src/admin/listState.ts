/**
 * The conversation list (pure): the first page for the current filters, then "Load more"
 * pages appended with the cursor the previous page gave. Every request carries a number;
 * an answer to an older request (filters changed meanwhile) is dropped.
 */
import type { SessionPage, SessionSummary } from "./types";

export interface ListState {
  items: SessionSummary[];
  nextCursor: string | null;
  loading: boolean;
  error: string | null;
  /** The newest request; only its answer is applied. */
  request: number;
  /** The first page has arrived for the current filters. */
  loaded: boolean;
}

export type ListAction =
  | { type: "request"; request: number; append: boolean }
  | { type: "loaded"; request: number; page: SessionPage; append: boolean }
  | { type: "failed"; request: number; message: string };

export const INITIAL_LIST: ListState = {
  items: [],
  nextCursor: null,
  loading: false,
  error: null,
  request: 0,
  loaded: false,
};

export function listReducer(state: ListState, action: ListAction): ListState {
  switch (action.type) {
    case "request":
      return action.append
        ? { ...state, loading: true, error: null, request: action.request }
        : { ...INITIAL_LIST, loading: true, request: action.request };
    case "loaded": {
      if (action.request !== state.request) return state;
      const seen = new Set(action.append ? state.items.map((i) => i.sessionId) : []);
      const fresh = action.page.items.filter((i) => !seen.has(i.sessionId));
      return {
        ...state,
        items: action.append ? [...state.items, ...fresh] : fresh,
        nextCursor: action.page.nextCursor,
        loading: false,
        error: null,
        loaded: true,
      };
    }
    case "failed":
      if (action.request !== state.request) return state;
      return { ...state, loading: false, error: action.message };
  }
}
