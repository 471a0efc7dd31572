/**
 * The typed client of the operator API. Pure over an injected fetch: the token travels only
 * as `Authorization: Bearer`, never in a URL. Errors come out as AdminApiError with the
 * HTTP status and the API's error code.
 */
import type {
  AdminStats,
  ExportFormat,
  SessionDetail,
  SessionFilters,
  SessionPage,
} from "./types";

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export class AdminApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "AdminApiError";
  }

  /** The token was refused (wrong, or changed on the server). */
  get unauthorized(): boolean {
    return this.status === 401;
  }
}

/** The query of a list or export: only the filters that are set (the API refuses unknown ones). */
export function filterParams(filters: SessionFilters): URLSearchParams {
  const q = new URLSearchParams();
  if (filters.feedback) q.set("feedback", filters.feedback);
  if (filters.errors) q.set("errors", "1");
  if (filters.toolErrors) q.set("toolErrors", "1");
  if (filters.unknown) q.set("unknown", "1");
  const symptom = filters.symptom.trim();
  if (symptom) q.set("symptom", symptom);
  if (filters.from) q.set("from", filters.from);
  if (filters.to) q.set("to", filters.to);
  return q;
}

/** The file name of a `Content-Disposition: attachment; filename="…"` header. */
export function filenameFromDisposition(header: string | null, fallback: string): string {
  const match = header && /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(header);
  const name = match?.[1]?.trim();
  return name && !/[\\/]/.test(name) ? decodeURIComponent(name) : fallback;
}

function withQuery(path: string, q: URLSearchParams): string {
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

export interface AdminApi {
  whoami(): Promise<void>;
  sessions(filters: SessionFilters, cursor?: string | null, limit?: number): Promise<SessionPage>;
  session(sessionId: string): Promise<SessionDetail>;
  stats(range?: { from?: string; to?: string }): Promise<AdminStats>;
  exportFile(format: ExportFormat, filters: SessionFilters): Promise<{ blob: Blob; filename: string }>;
}

export function createAdminApi(token: string, fetchFn: FetchLike = (i, init) => fetch(i, init), base = ""): AdminApi {
  async function request(path: string): Promise<Response> {
    let res: Response;
    try {
      res = await fetchFn(base + path, {
        headers: { Authorization: `Bearer ${token}`, Accept: "application/json" },
        cache: "no-store",
        credentials: "omit",
      });
    } catch {
      throw new AdminApiError(0, "network", "The server could not be reached.");
    }
    if (res.ok) return res;
    let code = `http_${res.status}`;
    let message = `The server answered ${res.status}.`;
    try {
      const body = (await res.json()) as { error?: { code?: string; message?: string } };
      if (body.error?.code) code = body.error.code;
      if (body.error?.message) message = body.error.message;
    } catch {
      /* not JSON */
    }
    if (res.status === 404 && path.startsWith("/api/admin/whoami")) {
      message = "The admin API is off on this server (PARTCHAT_ADMIN_TOKEN is not set).";
    }
    throw new AdminApiError(res.status, code, message);
  }

  async function json<T>(path: string): Promise<T> {
    return (await (await request(path)).json()) as T;
  }

  return {
    async whoami() {
      await request("/api/admin/whoami");
    },
    sessions(filters, cursor, limit) {
      const q = filterParams(filters);
      if (cursor) q.set("cursor", cursor);
      if (limit) q.set("limit", String(limit));
      return json<SessionPage>(withQuery("/api/admin/sessions", q));
    },
    session(sessionId) {
      return json<SessionDetail>(`/api/admin/sessions/${encodeURIComponent(sessionId)}`);
    },
    stats(range = {}) {
      const q = new URLSearchParams();
      if (range.from) q.set("from", range.from);
      if (range.to) q.set("to", range.to);
      return json<AdminStats>(withQuery("/api/admin/stats", q));
    },
    async exportFile(format, filters) {
      const q = filterParams(filters);
      q.set("format", format);
      const res = await request(withQuery("/api/admin/export", q));
      const blob = await res.blob();
      return { blob, filename: filenameFromDisposition(res.headers.get("content-disposition"), `partchat-sessions.${format}`) };
    },
  };
}
