import { useCallback, useEffect, useReducer, useRef } from "react";
import type { AdminApi } from "./api";
import { AdminApiError } from "./api";
import { INITIAL_LIST, listReducer } from "./listState";
import type { ListState } from "./listState";
import type { SessionFilters } from "./types";

export const PAGE_SIZE = 25;

export interface SessionList extends ListState {
  loadMore: () => void;
  reload: () => void;
}

/** The conversation list for `filters` (first page on every change, then "Load more"). */
export function useSessionList(
  api: AdminApi,
  filters: SessionFilters,
  onUnauthorized: (why: string) => void,
): SessionList {
  const [state, dispatch] = useReducer(listReducer, INITIAL_LIST);
  const counter = useRef(0);

  const load = useCallback(
    (cursor: string | null) => {
      const request = ++counter.current;
      const append = cursor !== null;
      dispatch({ type: "request", request, append });
      api.sessions(filters, cursor, PAGE_SIZE).then(
        (page) => dispatch({ type: "loaded", request, page, append }),
        (err: unknown) => {
          if (err instanceof AdminApiError && err.unauthorized) onUnauthorized("The token is no longer accepted.");
          dispatch({ type: "failed", request, message: err instanceof Error ? err.message : String(err) });
        },
      );
    },
    [api, filters, onUnauthorized],
  );

  useEffect(() => {
    load(null);
  }, [load]);

  const { nextCursor } = state;
  const loadMore = useCallback(() => {
    if (nextCursor) load(nextCursor);
  }, [load, nextCursor]);
  const reload = useCallback(() => load(null), [load]);
  return { ...state, loadMore, reload };
}
