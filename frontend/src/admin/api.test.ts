import { describe, expect, it, vi } from "vitest";
import { AdminApiError, createAdminApi, filenameFromDisposition, filterParams } from "./api";
import { NO_FILTERS } from "./types";

function fakeFetch(status: number, body: unknown, headers: Record<string, string> = {}) {
  return vi.fn(async (_url: string, _init?: RequestInit) => {
    const text = typeof body === "string" ? body : JSON.stringify(body);
    return new Response(text, { status, headers });
  });
}

describe("filterParams", () => {
  it("sends only the filters that are set", () => {
    expect(filterParams(NO_FILTERS).toString()).toBe("");
    const q = filterParams({
      feedback: "down",
      errors: true,
      toolErrors: true,
      unknown: true,
      symptom: "  Not draining ",
      from: "2026-11-01",
      to: "2026-11-25",
    });
    expect(Object.fromEntries(q)).toEqual({
      feedback: "down",
      errors: "1",
      toolErrors: "1",
      unknown: "1",
      symptom: "Not draining",
      from: "2026-11-01",
      to: "2026-11-25",
    });
  });
});

describe("createAdminApi", () => {
  it("sends the token only as a bearer header", async () => {
    const f = fakeFetch(200, { items: [], nextCursor: null });
    const api = createAdminApi("s3cret-token-123456", f);
    await api.sessions({ ...NO_FILTERS, feedback: "down" }, "abc", 20);
    const [url, init] = f.mock.calls[0]!;
    expect(url).toBe("/api/admin/sessions?feedback=down&cursor=abc&limit=20");
    expect(url).not.toContain("s3cret");
    expect((init!.headers as Record<string, string>).Authorization).toBe("Bearer s3cret-token-123456");
  });

  it("turns a 401 into an unauthorized AdminApiError with the API's code", async () => {
    const api = createAdminApi("wrong", fakeFetch(401, { error: { code: "unauthorized", message: "no" } }));
    const err = await api.whoami().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AdminApiError);
    expect((err as AdminApiError).unauthorized).toBe(true);
    expect((err as AdminApiError).code).toBe("unauthorized");
  });

  it("explains a 404 on whoami: the admin API is off", async () => {
    const api = createAdminApi("t", fakeFetch(404, { error: { code: "not_found", message: "Not found." } }));
    const err = (await api.whoami().catch((e: unknown) => e)) as AdminApiError;
    expect(err.status).toBe(404);
    expect(err.message).toMatch(/admin API is off/);
  });

  it("a network failure is an AdminApiError with status 0", async () => {
    const api = createAdminApi("t", vi.fn(async () => Promise.reject(new TypeError("offline"))));
    const err = (await api.stats().catch((e: unknown) => e)) as AdminApiError;
    expect(err.status).toBe(0);
    expect(err.code).toBe("network");
  });

  it("reads one session (id escaped) and the stats window", async () => {
    const f = fakeFetch(200, { sessionId: "s1", turns: [] });
    const api = createAdminApi("t", f);
    await api.session("a/b");
    expect(f.mock.calls[0]![0]).toBe("/api/admin/sessions/a%2Fb");
    await api.stats({ from: "2026-11-01", to: "2026-11-25" });
    expect(f.mock.calls[1]![0]).toBe("/api/admin/stats?from=2026-11-01&to=2026-11-25");
  });

  it("exports the filtered set as a file named by the server", async () => {
    const f = fakeFetch(200, '{"sessionId":"s1"}\n', {
      "content-disposition": 'attachment; filename="partchat-sessions-2026-11-25.jsonl"',
      "content-type": "application/x-ndjson",
    });
    const api = createAdminApi("t", f);
    const file = await api.exportFile("jsonl", { ...NO_FILTERS, errors: true });
    expect(f.mock.calls[0]![0]).toBe("/api/admin/export?errors=1&format=jsonl");
    expect(file.filename).toBe("partchat-sessions-2026-11-25.jsonl");
    expect(await file.blob.text()).toBe('{"sessionId":"s1"}\n');
  });
});

describe("filenameFromDisposition", () => {
  it("falls back when the header is missing or names a path", () => {
    expect(filenameFromDisposition(null, "x.csv")).toBe("x.csv");
    expect(filenameFromDisposition('attachment; filename="../evil.csv"', "x.csv")).toBe("x.csv");
    expect(filenameFromDisposition("attachment; filename=a.csv", "x.csv")).toBe("a.csv");
  });
});
