import { render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { PART_CARD } from "../test/fixtures";
import type { AssistantMessage, UserMessage } from "../chat/types";
import { Message } from "./Message";
import { fireEvent } from "@testing-library/react";

const assistant = (over: Partial<AssistantMessage> = {}): AssistantMessage => ({
  role: "assistant",
  id: "a1",
  text: "Here is **the part**. <img src=x onerror=alert(1)>",
  turnId: "t1",
  status: "complete",
  tools: [
    {
      toolCallId: "c1",
      toolName: "search_parts",
      input: { query: "shelf bin" },
      status: "done",
      output: { ok: true, parts: [PART_CARD, { ...PART_CARD, partNumber: "PS2", name: "Other" }] },
    },
    {
      toolCallId: "c2",
      toolName: "check_compatibility",
      input: { partNumber: "PS11752778", model: "WDT780SAEM1" },
      status: "done",
      output: { ok: true, status: "fits", part: PART_CARD },
    },
  ],
  ...over,
});

describe("Message", () => {
  it("renders the assistant's Markdown sanitised, tool activity and de-duplicated part cards", () => {
    render(
      <ol>
        <Message message={assistant()} />
      </ol>,
    );
    const text = screen.getByTestId("pc-message-text");
    expect(text.querySelector("strong")?.textContent).toBe("the part");
    expect(text.querySelector("img")).toBeNull();
    expect(screen.getAllByTestId("pc-tool").map((t) => t.textContent)).toEqual([
      "✓Searched parts for 'shelf bin': 2 found",
      "✓Checked whether PS11752778 fits WDT780SAEM1",
    ]);
    expect(screen.getAllByTestId("pc-part-card").map((c) => c.dataset.partNumber)).toEqual(["PS11752778", "PS2"]);
  });

  it("shows a typing indicator before the first token, and a running tool", () => {
    render(
      <ol>
        <Message
          message={assistant({
            text: "",
            status: "streaming",
            tools: [{ toolCallId: "c", toolName: "get_part_details", input: { partNumber: "PS1" }, status: "running" }],
          })}
        />
      </ol>,
    );
    expect(screen.getByTestId("pc-typing")).toBeTruthy();
    expect(screen.getByTestId("pc-tool").dataset.status).toBe("running");
    expect(screen.getByTestId("pc-tool").textContent).toContain("Looking up PS1…");
    expect(screen.getByTestId("pc-message").getAttribute("aria-busy")).toBe("true");
  });

  it("renders user text as plain text and offers to resend a refused message", () => {
    const onRetry = vi.fn();
    const msg: UserMessage = {
      role: "user",
      id: "m1",
      text: "<b>hi</b>",
      turnId: null,
      status: "failed",
      errorCode: "busy",
      errorMessage: "busy",
    };
    render(
      <ol>
        <Message message={msg} onRetry={onRetry} />
      </ol>,
    );
    expect(screen.getByTestId("pc-message-text").textContent).toBe("<b>hi</b>");
    fireEvent.click(screen.getByTestId("pc-message-retry"));
    expect(onRetry).toHaveBeenCalledWith("m1");
  });

  it("caps the part cards of an answer at 5, with a button for the rest", () => {
    const many = Array.from({ length: 8 }, (_, i) => ({ ...PART_CARD, partNumber: `PS20${i}`, name: `Ice maker part ${i}` }));
    render(
      <ol>
        <Message
          message={assistant({
            text: "Here are the ice maker parts for your model.",
            tools: [
              {
                toolCallId: "c1",
                toolName: "search_parts",
                input: { query: "ice maker" },
                status: "done",
                output: { ok: true, parts: many },
              },
            ],
          })}
        />
      </ol>,
    );
    expect(screen.getAllByTestId("pc-part-card")).toHaveLength(5);
    fireEvent.click(screen.getByTestId("show-more-parts"));
    expect(screen.getAllByTestId("pc-part-card")).toHaveLength(8);
  });
});
