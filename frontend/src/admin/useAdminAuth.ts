import { useCallback, useMemo, useState } from "react";
import type { AdminApi, FetchLike } from "./api";
import { AdminApiError, createAdminApi } from "./api";
import type { TokenStorage } from "./token";
import { clearToken, defaultTokenStorage, loadToken, saveToken } from "./token";

export interface AdminAuth {
  /** The API with the accepted token, or null before login. */
  api: AdminApi | null;
  /** Why the last login failed (or why the operator was logged out). */
  error: string | null;
  checking: boolean;
  login: (token: string) => Promise<boolean>;
  logout: (why?: string) => void;
}

export interface AdminAuthOptions {
  storage?: TokenStorage | null;
  fetchFn?: FetchLike;
}

/** The operator's login: checks a token with whoami, keeps it in sessionStorage only. */
export function useAdminAuth({ storage, fetchFn }: AdminAuthOptions = {}): AdminAuth {
  const [store] = useState(() => (storage === undefined ? defaultTokenStorage() : storage));
  const [token, setToken] = useState<string | null>(() => loadToken(store));
  const [error, setError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);

  const api = useMemo(() => (token ? createAdminApi(token, fetchFn) : null), [token, fetchFn]);

  const login = useCallback(
    async (candidate: string) => {
      const t = candidate.trim();
      if (!t) {
        setError("Enter the admin token.");
        return false;
      }
      setChecking(true);
      try {
        await createAdminApi(t, fetchFn).whoami();
        saveToken(store, t);
        setToken(t);
        setError(null);
        return true;
      } catch (err) {
        setError(
          err instanceof AdminApiError && err.unauthorized
            ? "That token was refused. Check PARTCHAT_ADMIN_TOKEN on the server."
            : err instanceof Error
              ? err.message
              : String(err),
        );
        return false;
      } finally {
        setChecking(false);
      }
    },
    [fetchFn, store],
  );

  const logout = useCallback(
    (why?: string) => {
      clearToken(store);
      setToken(null);
      setError(why ?? null);
    },
    [store],
  );

  return { api, error, checking, login, logout };
}
