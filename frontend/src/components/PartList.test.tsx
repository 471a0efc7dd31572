import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { toPartCard } from "../chat/parts";
import type { PartCardData } from "../chat/parts";
import { PART_CARD } from "../test/fixtures";
import { PartList } from "./PartList";

const cards = (n: number): PartCardData[] =>
  Array.from({ length: n }, (_, i) => toPartCard({ ...PART_CARD, partNumber: `PS10${i}`, name: `Part ${i}` })!);

const shownNumbers = () => screen.getAllByTestId("pc-part-card").map((c) => c.dataset.partNumber);

describe("PartList", () => {
  it("shows 5 of 8 cards and a 'Show 3 more' button that reveals the rest", () => {
    render(<PartList parts={cards(8)} />);
    expect(shownNumbers()).toEqual(["PS100", "PS101", "PS102", "PS103", "PS104"]);
    const more = screen.getByTestId("show-more-parts");
    expect(more.textContent).toBe("Show 3 more parts");
    expect(more.getAttribute("aria-expanded")).toBe("false");
    expect(more.getAttribute("aria-controls")).toBe(screen.getByTestId("pc-parts").id);
    fireEvent.click(more);
    expect(shownNumbers()).toEqual(["PS100", "PS101", "PS102", "PS103", "PS104", "PS105", "PS106", "PS107"]);
    expect(screen.queryByTestId("show-more-parts")).toBeNull();
    // Focus moves to the first revealed card rather than falling to the page.
    expect(document.activeElement).toBe(screen.getAllByTestId("pc-part-card")[5]);
  });

  it("shows no button for 5 cards or fewer, and nothing for none", () => {
    const { rerender, container } = render(<PartList parts={cards(5)} />);
    expect(shownNumbers()).toHaveLength(5);
    expect(screen.queryByTestId("show-more-parts")).toBeNull();
    rerender(<PartList parts={[]} />);
    expect(container.innerHTML).toBe("");
  });

  it("counts one hidden card in the singular, and updates as a streaming answer adds cards", () => {
    const { rerender } = render(<PartList parts={cards(6)} />);
    expect(screen.getByTestId("show-more-parts").textContent).toBe("Show 1 more part");
    rerender(<PartList parts={cards(9)} />);
    expect(shownNumbers()).toHaveLength(5);
    expect(screen.getByTestId("show-more-parts").textContent).toBe("Show 4 more parts");
  });
});
