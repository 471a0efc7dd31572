import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { memoryStorage } from "../test/fakeSocket";
import { AdminApp } from "./AdminApp";
import { TOKEN_KEY } from "./token";
import type { SessionDetail, SessionSummary } from "./types";

const TOKEN = "right-token-0123456789";

const summary = (id: string, over: Partial<SessionSummary> = {}): SessionSummary => ({
  sessionId: id,
  createdAt: "2026-11-25T10:00:00Z",
  updatedAt: "2026-11-25T10:01:00Z",
  turns: 2,
  firstMessage: `first message of ${id}`,
  context: { productModel: "WDT780SAEM1", partNumber: null, symptoms: [], applianceType: "dishwasher" },
  ratings: { up: 0, down: 1 },
  errors: 0,
  toolErrors: 0,
  unknown: [],
  ...over,
});

const detail: SessionDetail = {
  sessionId: "s1",
  createdAt: "2026-11-25T10:00:00Z",
  updatedAt: "2026-11-25T10:01:00Z",
  context: { productModel: "WDT780SAEM1", partNumber: "PS11753379", symptoms: [], applianceType: "dishwasher" },
  turns: [
    {
      turnId: "t1",
      startedAt: "2026-11-25T10:00:00Z",
      finishedAt: "2026-11-25T10:00:01Z",
      status: "complete",
      finishReason: "stop",
      model: "partchat-offline",
      user: { id: "m1", text: "Does PS11753379 fit my WDT780SAEM1?" },
      assistant: { text: "Yes! It **fits**.", status: "complete" },
      feedback: { rating: "down", reason: "too short", at: "2026-11-25T10:02:00Z" },
      timings: { queueMs: 1, firstTokenMs: 120, llmMs: 300, toolsMs: 12, totalMs: 420 },
      toolCalls: [
        {
          toolCallId: "c1",
          round: 1,
          name: "check_compatibility",
          arguments: { partNumber: "PS11753379", model: "WDT780SAEM1" },
          ok: true,
          errorCode: null,
          durationMs: 12,
          resultBytes: 300,
          result: { ok: true, status: "fits" },
        },
        {
          toolCallId: "c2",
          round: 1,
          name: "get_part_details",
          arguments: { partNumber: "PS0" },
          ok: false,
          errorCode: "not_found",
          durationMs: 3,
          resultBytes: 40,
          result: { ok: false, error: { code: "not_found" } },
        },
      ],
    },
  ],
};

/** A fake admin API server: answers by path, records every request. */
function fakeServer() {
  const calls: { url: string; auth: string | null }[] = [];
  const fetchFn = vi.fn(async (url: string, init?: RequestInit) => {
    const auth = (init?.headers as Record<string, string> | undefined)?.Authorization ?? null;
    calls.push({ url, auth });
    const json = (status: number, body: unknown) =>
      new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
    if (auth !== `Bearer ${TOKEN}`) return json(401, { error: { code: "unauthorized", message: "Send the token." } });
    const u = new URL(url, "http://x");
    if (u.pathname === "/api/admin/whoami") return json(200, { ok: true });
    if (u.pathname === "/api/admin/sessions") {
      if (u.searchParams.get("cursor") === "next") return json(200, { items: [summary("s3")], nextCursor: null });
      if (u.searchParams.get("feedback") === "down") return json(200, { items: [summary("s2")], nextCursor: null });
      return json(200, { items: [summary("s1"), summary("s2")], nextCursor: "next" });
    }
    if (u.pathname === "/api/admin/sessions/s1") return json(200, detail);
    return json(404, { error: { code: "not_found", message: "Not found." } });
  });
  return { fetchFn, calls };
}

describe("AdminApp", () => {
  it("refuses a wrong token with a clear error and keeps nothing", async () => {
    const { fetchFn } = fakeServer();
    const storage = memoryStorage();
    render(<AdminApp fetchFn={fetchFn} storage={storage} />);
    fireEvent.change(screen.getByTestId("admin-token"), { target: { value: "wrong-token" } });
    fireEvent.click(screen.getByTestId("admin-login-submit"));
    const error = await screen.findByTestId("admin-login-error");
    expect(error.textContent).toMatch(/refused/);
    expect(storage.data.has(TOKEN_KEY)).toBe(false);
    expect(screen.queryByTestId("admin-sessions")).toBeNull();
  });

  it("signs in, lists, filters, loads more and opens a conversation with its tool calls", async () => {
    const { fetchFn, calls } = fakeServer();
    const storage = memoryStorage();
    render(<AdminApp fetchFn={fetchFn} storage={storage} />);
    fireEvent.change(screen.getByTestId("admin-token"), { target: { value: ` ${TOKEN} ` } });
    fireEvent.click(screen.getByTestId("admin-login-submit"));
    await waitFor(() => expect(screen.getAllByTestId("admin-session")).toHaveLength(2));
    expect(storage.data.get(TOKEN_KEY)).toBe(TOKEN);
    expect(calls.every((c) => !c.url.includes(TOKEN))).toBe(true);

    // Load more follows the cursor and appends.
    fireEvent.click(screen.getByTestId("admin-load-more"));
    await waitFor(() => expect(screen.getAllByTestId("admin-session")).toHaveLength(3));
    expect(calls.some((c) => c.url.includes("cursor=next"))).toBe(true);
    expect(screen.queryByTestId("admin-load-more")).toBeNull();

    // A filter starts the list over with only the matching conversations.
    fireEvent.change(screen.getByTestId("admin-filter-feedback"), { target: { value: "down" } });
    fireEvent.click(screen.getByTestId("admin-filter-apply"));
    await waitFor(() =>
      expect(screen.getAllByTestId("admin-session").map((b) => b.dataset.sessionId)).toEqual(["s2"]),
    );
    expect(calls.at(-1)!.url).toMatch(/^\/api\/admin\/sessions\?feedback=down&limit=\d+$/);

    fireEvent.click(screen.getByTestId("admin-filter-reset"));
    await waitFor(() => expect(screen.getAllByTestId("admin-session")).toHaveLength(2));
    fireEvent.click(screen.getAllByTestId("admin-session")[0]!);
    const turn = await screen.findByTestId("admin-turn");
    expect(screen.getByTestId("admin-turn-user").textContent).toBe("Does PS11753379 fit my WDT780SAEM1?");
    expect(screen.getByTestId("admin-turn-assistant").innerHTML).toContain("<strong>fits</strong>");
    expect(screen.getByTestId("admin-turn-feedback").textContent).toContain("too short");
    const tools = screen.getAllByTestId("admin-tool-call");
    expect(tools.map((t) => [t.dataset.toolName, t.dataset.ok])).toEqual([
      ["check_compatibility", "true"],
      ["get_part_details", "false"],
    ]);
    expect(tools[1]!.textContent).toContain("error: not_found");
    expect(screen.getAllByTestId("admin-tool-args")[0]!.textContent).toContain('"model": "WDT780SAEM1"');
    expect(screen.getByTestId("admin-turn-timings").textContent).toContain("120 ms");
    expect(turn.dataset.turnId).toBe("t1");
  });

  it("a stored token signs in directly; a 401 later signs out with a message", async () => {
    const { fetchFn } = fakeServer();
    const storage = memoryStorage({ [TOKEN_KEY]: "revoked-token" });
    render(<AdminApp fetchFn={fetchFn} storage={storage} />);
    const error = await screen.findByTestId("admin-login-error");
    expect(error.textContent).toMatch(/no longer accepted/);
    expect(storage.data.has(TOKEN_KEY)).toBe(false);
  });

  it("exports the filtered set through a Blob URL with the bearer header", async () => {
    const { fetchFn } = fakeServer();
    const storage = memoryStorage({ [TOKEN_KEY]: TOKEN });
    const created: Blob[] = [];
    const createObjectURL = vi.fn((b: Blob) => {
      created.push(b);
      return "blob:fake";
    });
    Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });
    const exportServer = vi.fn(async (url: string, init?: RequestInit) => {
      if (url.startsWith("/api/admin/export")) {
        expect((init?.headers as Record<string, string>).Authorization).toBe(`Bearer ${TOKEN}`);
        return new Response("a,b\n1,2\n", {
          status: 200,
          headers: { "content-disposition": 'attachment; filename="partchat-sessions-2026-11-25.csv"' },
        });
      }
      return fetchFn(url, init);
    });
    const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => {});
    render(<AdminApp fetchFn={exportServer} storage={storage} />);
    await waitFor(() => expect(screen.getAllByTestId("admin-session")).toHaveLength(2));
    await act(async () => {
      fireEvent.click(screen.getByTestId("admin-export-csv"));
    });
    await waitFor(() => expect(screen.getByTestId("admin-export-status").textContent).toContain("partchat-sessions-2026-11-25.csv"));
    expect(await created[0]!.text()).toBe("a,b\n1,2\n");
    expect(click).toHaveBeenCalled();
    click.mockRestore();
  });
});
