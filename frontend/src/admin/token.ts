/** The operator's token: kept in sessionStorage only (gone when the tab closes). */
export const TOKEN_KEY = "partchat.adminToken";

export type TokenStorage = Pick<Storage, "getItem" | "setItem" | "removeItem">;

export function defaultTokenStorage(): TokenStorage | null {
  try {
    return globalThis.sessionStorage ?? null;
  } catch {
    return null;
  }
}

export function loadToken(storage: TokenStorage | null): string | null {
  try {
    const t = storage?.getItem(TOKEN_KEY);
    return t && t.trim() ? t : null;
  } catch {
    return null;
  }
}

export function saveToken(storage: TokenStorage | null, token: string): void {
  try {
    storage?.setItem(TOKEN_KEY, token);
  } catch {
    /* storage blocked: the token lasts as long as the page */
  }
}

export function clearToken(storage: TokenStorage | null): void {
  try {
    storage?.removeItem(TOKEN_KEY);
  } catch {
    /* nothing to clear */
  }
}
