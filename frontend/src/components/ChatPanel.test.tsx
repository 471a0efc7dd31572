import { act, fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import type { UseChatResult } from "../chat/useChat";
import { EMPTY_CONTEXT } from "../protocol";
import { CONTEXT } from "../test/fixtures";
import { ChatPanel } from "./ChatPanel";
import { SUGGESTIONS } from "./Suggestions";

function chat(over: Partial<UseChatResult> = {}): UseChatResult {
  return {
    messages: [],
    context: EMPTY_CONTEXT,
    status: "open",
    busy: false,
    streaming: false,
    error: null,
    connectionError: null,
    announcement: null,
    sessionId: null,
    send: vi.fn(() => "id"),
    stop: vi.fn(),
    retry: vi.fn(),
    retryMessage: vi.fn(),
    dismissError: vi.fn(),
    rate: vi.fn(),
    client: {} as UseChatResult["client"],
    ...over,
  };
}

describe("ChatPanel", () => {
  it("offers the three classic questions on an empty chat", () => {
    const c = chat();
    render(<ChatPanel chat={c} />);
    const buttons = screen.getAllByTestId("pc-suggestion");
    expect(buttons.map((b) => b.textContent)).toEqual([...SUGGESTIONS]);
    fireEvent.click(buttons[2]!);
    expect(c.send).toHaveBeenCalledWith(SUGGESTIONS[2]);
    expect(SUGGESTIONS[2]).toMatch(/ice maker/i);
  });

  it("rates a finished answer through chat.rate", () => {
    const c = chat({
      messages: [
        { role: "user", id: "m1", text: "q", turnId: "t1", status: "delivered" },
        { role: "assistant", id: "a1", text: "answer", turnId: "t1", status: "complete", tools: [] },
      ],
    });
    render(<ChatPanel chat={c} />);
    fireEvent.click(screen.getByTestId("pc-feedback-up"));
    expect(c.rate).toHaveBeenCalledWith("t1", "up");
  });

  it("Enter sends, Shift+Enter does not; empty input cannot be sent", () => {
    const c = chat();
    render(<ChatPanel chat={c} />);
    const input = screen.getByTestId("pc-input") as HTMLTextAreaElement;
    expect((screen.getByTestId("pc-send") as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(input, { target: { value: "line one" } });
    fireEvent.keyDown(input, { key: "Enter", shiftKey: true });
    expect(c.send).not.toHaveBeenCalled();
    fireEvent.keyDown(input, { key: "Enter" });
    expect(c.send).toHaveBeenCalledWith("line one");
    expect(input.value).toBe("");
  });

  it("disables sending while busy and shows Stop while an answer streams", () => {
    const c = chat({ busy: true, streaming: true });
    render(<ChatPanel chat={c} />);
    const input = screen.getByTestId("pc-input");
    fireEvent.change(input, { target: { value: "another" } });
    expect((screen.getByTestId("pc-send") as HTMLButtonElement).disabled).toBe(true);
    fireEvent.keyDown(input, { key: "Enter" });
    expect(c.send).not.toHaveBeenCalled();
    fireEvent.click(screen.getByTestId("pc-stop"));
    expect(c.stop).toHaveBeenCalled();
  });

  it("shows the context bar, connection status and an error banner with retry", () => {
    const c = chat({
      context: { ...CONTEXT, symptoms: ["leaking"] },
      status: "reconnecting",
      error: { code: "rate_limited", message: "slow down" },
    });
    render(<ChatPanel chat={c} />);
    expect(screen.getByTestId("pc-context-model").textContent).toContain("WDT780SAEM1");
    expect(screen.getByTestId("pc-context-part").textContent).toContain("PS11752778");
    expect(screen.getByTestId("pc-context-symptoms").textContent).toContain("leaking");
    expect(screen.getByTestId("pc-connection").dataset.status).toBe("reconnecting");
    expect(screen.getByTestId("pc-error").dataset.code).toBe("rate_limited");
    fireEvent.click(screen.getByTestId("pc-error-retry"));
    expect(c.retry).toHaveBeenCalled();
    fireEvent.click(screen.getByTestId("pc-error-dismiss"));
    expect(c.dismissError).toHaveBeenCalled();
  });

  it("explains an answer still being written on another server in plain words", () => {
    render(<ChatPanel chat={chat({ error: { code: "turn_elsewhere", message: "Reconnect in a moment." } })} />);
    const banner = screen.getByTestId("pc-error");
    expect(banner.dataset.code).toBe("turn_elsewhere");
    expect(banner.textContent).toContain("still being written");
    expect(banner.textContent).not.toContain("Reconnect in a moment");
  });

  it("announces a finished answer in the polite live region", () => {
    const c = chat();
    const { rerender } = render(<ChatPanel chat={c} />);
    const live = screen.getByTestId("pc-live");
    expect(live.getAttribute("aria-live")).toBe("polite");
    expect(live.textContent).toBe("");
    act(() => {
      rerender(
        <ChatPanel chat={chat({ announcement: { id: "a1", text: "It **fits** [video](https://x.example).", finishReason: "stop" } })} />,
      );
    });
    expect(screen.getByTestId("pc-live").textContent).toBe("Answer: It fits video.");
  });
});
