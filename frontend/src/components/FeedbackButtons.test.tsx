import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import type { AssistantMessage } from "../chat/types";
import { FeedbackButtons } from "./FeedbackButtons";
import { Message } from "./Message";

const answer = (over: Partial<AssistantMessage> = {}): AssistantMessage => ({
  role: "assistant",
  id: "a1",
  text: "It fits.",
  turnId: "t1",
  status: "complete",
  tools: [],
  ...over,
});

describe("FeedbackButtons", () => {
  it("thumbs up rates at once; the buttons are labelled toggle buttons", () => {
    const onRate = vi.fn();
    render(<FeedbackButtons message={answer()} onRate={onRate} />);
    const up = screen.getByTestId("pc-feedback-up");
    expect(up.getAttribute("aria-pressed")).toBe("false");
    expect(up.getAttribute("aria-label")).toBe("Helpful answer");
    expect(screen.getByTestId("pc-feedback-down").getAttribute("aria-label")).toBe("Not helpful answer");
    fireEvent.click(up);
    expect(onRate).toHaveBeenCalledWith("t1", "up");
    expect(screen.queryByTestId("pc-feedback-form")).toBeNull();
  });

  it("thumbs down rates at once and opens an optional reason, sent with the rating", () => {
    const onRate = vi.fn();
    render(<FeedbackButtons message={answer()} onRate={onRate} />);
    fireEvent.click(screen.getByTestId("pc-feedback-down"));
    expect(onRate).toHaveBeenLastCalledWith("t1", "down");
    const reason = screen.getByTestId("pc-feedback-reason") as HTMLTextAreaElement;
    expect(reason.maxLength).toBe(500);
    expect(document.activeElement).toBe(reason);
    fireEvent.change(reason, { target: { value: "  wrong model  " } });
    fireEvent.click(screen.getByTestId("pc-feedback-send"));
    expect(onRate).toHaveBeenLastCalledWith("t1", "down", "wrong model");
    expect(screen.queryByTestId("pc-feedback-form")).toBeNull();
  });

  it("Escape closes the reason box without sending", () => {
    const onRate = vi.fn();
    render(<FeedbackButtons message={answer({ feedback: { rating: "down", status: "saved" } })} onRate={onRate} />);
    fireEvent.click(screen.getByTestId("pc-feedback-down"));
    expect(onRate).not.toHaveBeenCalled(); // already down: only the reason box opens
    fireEvent.keyDown(screen.getByTestId("pc-feedback-reason"), { key: "Escape" });
    expect(screen.queryByTestId("pc-feedback-form")).toBeNull();
  });

  it("shows the state from the reducer: pressed, saved reason, error", () => {
    const { rerender } = render(
      <FeedbackButtons
        message={answer({ feedback: { rating: "down", reason: "too vague", status: "saved" } })}
        onRate={vi.fn()}
      />,
    );
    expect(screen.getByTestId("pc-feedback-down").getAttribute("aria-pressed")).toBe("true");
    expect(screen.getByTestId("pc-feedback-up").getAttribute("aria-pressed")).toBe("false");
    expect(screen.getByTestId("pc-feedback").dataset.feedbackStatus).toBe("saved");
    expect(screen.getByTestId("pc-feedback-saved-reason").textContent).toContain("too vague");
    rerender(<FeedbackButtons message={answer({ feedbackError: "could not save" })} onRate={vi.fn()} />);
    expect(screen.getByTestId("pc-feedback-error").textContent).toBe("could not save");
    expect(screen.getByTestId("pc-feedback-down").getAttribute("aria-pressed")).toBe("false");
  });
});

describe("Message: where the rating shows", () => {
  it("under a finished answer, not while it streams, not without onRate", () => {
    const onRate = vi.fn();
    const { rerender } = render(
      <ol>
        <Message message={answer({ status: "streaming" })} onRate={onRate} />
      </ol>,
    );
    expect(screen.queryByTestId("pc-feedback")).toBeNull();
    rerender(
      <ol>
        <Message message={answer()} onRate={onRate} />
      </ol>,
    );
    expect(screen.getByTestId("pc-feedback")).toBeTruthy();
    rerender(
      <ol>
        <Message message={answer()} />
      </ol>,
    );
    expect(screen.queryByTestId("pc-feedback")).toBeNull();
  });
});
