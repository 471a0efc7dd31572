import { render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { toPartCard } from "../chat/parts";
import type { PartCardData } from "../chat/parts";
import { PART_CARD } from "../test/fixtures";
import { PartCard } from "./PartCard";

const card = (over: Record<string, unknown> = {}): PartCardData => toPartCard({ ...PART_CARD, ...over })!;

describe("PartCard", () => {
  it("shows name, PS number, price, stock, install effort and the video link", () => {
    render(<PartCard part={card()} />);
    const el = screen.getByTestId("pc-part-card");
    expect(el.dataset.partNumber).toBe("PS11752778");
    expect(within(el).getByTestId("pc-part-name").textContent).toBe("Refrigerator Door Shelf Bin");
    expect(within(el).getByTestId("pc-part-number").textContent).toBe("PS11752778");
    expect(within(el).getByTestId("pc-part-price").textContent).toBe("$44.95");
    expect(within(el).getByTestId("pc-part-stock").textContent).toBe("In Stock");
    expect(within(el).getByTestId("pc-part-difficulty").textContent).toContain("Really Easy");
    expect(within(el).getByTestId("pc-part-install-time").textContent).toContain("Less than 15 mins");
    const video = within(el).getByTestId("pc-part-video");
    expect(video.getAttribute("href")).toBe("https://www.youtube.com/watch?v=zSCNN6KpDE8");
    expect(video.getAttribute("target")).toBe("_blank");
    expect(video.getAttribute("rel")).toBe("noopener noreferrer");
  });

  it("shows *emphasis* in a reason as <em>, and markup in it as text", () => {
    const part = { ...card(), reason: "the most common cause of *Ice maker not making ice* <img src=x onerror=alert(1)>" };
    const { container } = render(<PartCard part={part} />);
    const reason = container.querySelector(".pc-part__reason")!;
    expect(reason.querySelector("em")?.textContent).toBe("Ice maker not making ice");
    expect(reason.textContent).toBe("the most common cause of Ice maker not making ice <img src=x onerror=alert(1)>");
    expect(container.querySelector("img")).toBeNull();
  });

  it("shows a 'Fits <model>' badge when the part fits", () => {
    render(<PartCard part={card()} />);
    const badge = screen.getByTestId("pc-part-fit");
    expect(badge.dataset.fit).toBe("fits");
    expect(badge.textContent).toContain("Fits WDT780SAEM1");
  });

  it("shows 'Not listed for <model>' when not listed", () => {
    render(<PartCard part={card({ fit: "not_listed", model: "WRS325SDHZ" })} />);
    expect(screen.getByTestId("pc-part-fit").textContent).toBe("Not listed for WRS325SDHZ");
  });

  it("shows no badge when no model is known, and no video link when unsafe or missing", () => {
    render(<PartCard part={card({ fit: null, model: null, videoUrl: "javascript:alert(1)" })} />);
    expect(screen.queryByTestId("pc-part-fit")).toBeNull();
    expect(screen.queryByTestId("pc-part-video")).toBeNull();
  });

  it("handles unknown price and out of stock", () => {
    render(<PartCard part={card({ price: null, priceCents: null, availability: null, inStock: false })} />);
    expect(screen.queryByTestId("pc-part-price")).toBeNull();
    expect(screen.getByTestId("pc-part-stock").textContent).toBe("Out of Stock");
  });
});
