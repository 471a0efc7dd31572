import { useEffect, useState } from "react";
import { AdminApiError } from "./api";

export interface Resource<T> {
  data: T | null;
  loading: boolean;
  error: string | null;
}

interface Settled<T> {
  /** The loader this answer belongs to: anything else is still loading. */
  for: unknown;
  data: T | null;
  error: string | null;
}

/**
 * Loads one thing from the admin API whenever `load` changes (memoise it with its inputs);
 * null `load` loads nothing. A 401 logs the operator out.
 */
export function useAdminResource<T>(
  load: (() => Promise<T>) | null,
  onUnauthorized: (why: string) => void,
): Resource<T> {
  const [settled, setSettled] = useState<Settled<T>>({ for: null, data: null, error: null });

  useEffect(() => {
    if (!load) return;
    let live = true;
    load().then(
      (data) => live && setSettled({ for: load, data, error: null }),
      (err: unknown) => {
        if (!live) return;
        if (err instanceof AdminApiError && err.unauthorized) onUnauthorized("The token is no longer accepted.");
        setSettled({ for: load, data: null, error: err instanceof Error ? err.message : String(err) });
      },
    );
    return () => {
      live = false;
    };
  }, [load, onUnauthorized]);

  if (!load) return { data: null, loading: false, error: null };
  if (settled.for !== load) return { data: null, loading: true, error: null };
  return { data: settled.data, loading: false, error: settled.error };
}
