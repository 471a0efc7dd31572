import { describe, expect, it } from "vitest";
import { isSafeHref, renderMarkdown } from "./markdown";

function dom(html: string): HTMLDivElement {
  const div = document.createElement("div");
  div.innerHTML = html;
  return div;
}

describe("renderMarkdown", () => {
  it("renders basic Markdown", () => {
    const html = renderMarkdown("**Bold** and *em*\n\n- one\n- two\n\n1. first\n\n`code`");
    const d = dom(html);
    expect(d.querySelector("strong")?.textContent).toBe("Bold");
    expect(d.querySelector("em")?.textContent).toBe("em");
    expect(d.querySelectorAll("ul li")).toHaveLength(2);
    expect(d.querySelector("ol li")?.textContent).toBe("first");
    expect(d.querySelector("code")?.textContent).toBe("code");
  });

  it("renders an <img onerror> inert: no element, no handler", () => {
    const d = dom(renderMarkdown("look <img src=x onerror=alert(1)> here"));
    expect(d.querySelector("img")).toBeNull();
    expect(d.innerHTML).not.toMatch(/<img/i);
    expect(d.querySelector("[onerror]")).toBeNull();
    expect(d.textContent).toContain("<img src=x onerror=alert(1)>"); // shown as text
  });

  it("drops javascript: links (text kept, no href)", () => {
    const d = dom(renderMarkdown("[x](javascript:alert(1)) and [y](JaVaScRiPt:alert(2))"));
    for (const a of d.querySelectorAll("a")) expect(a.getAttribute("href")).toBeNull();
    expect(d.innerHTML).not.toMatch(/javascript:/i);
    expect(d.textContent).toContain("x");
  });

  it("drops data:, relative and other non-http(s) links", () => {
    const d = dom(renderMarkdown("[a](data:text/html,<script>alert(1)</script>) [b](/relative) [c](vbscript:x)"));
    for (const a of d.querySelectorAll("a")) expect(a.hasAttribute("href")).toBe(false);
  });

  it("renders raw <script> and <iframe> as text, never as elements", () => {
    const d = dom(renderMarkdown("<script>alert(1)</script>\n\n<iframe src='https://evil.example'></iframe>"));
    expect(d.querySelector("script")).toBeNull();
    expect(d.querySelector("iframe")).toBeNull();
    expect(d.textContent).toContain("<script>alert(1)</script>");
  });

  it("does not let inline HTML attributes through", () => {
    const d = dom(renderMarkdown('<a href="https://ok.example" onclick="alert(1)">x</a> <b style="color:red">y</b>'));
    expect(d.querySelector("[onclick]")).toBeNull();
    expect(d.querySelector("[style]")).toBeNull();
  });

  it("opens http(s) links in a new tab with rel noopener noreferrer", () => {
    const d = dom(renderMarkdown("[video](https://www.youtube.com/watch?v=1) and http://example.com/x"));
    const links = Array.from(d.querySelectorAll("a"));
    expect(links.length).toBe(2);
    for (const a of links) {
      expect(a.getAttribute("target")).toBe("_blank");
      expect(a.getAttribute("rel")).toBe("noopener noreferrer");
    }
    expect(links[0]!.getAttribute("href")).toBe("https://www.youtube.com/watch?v=1");
  });

  it("turns Markdown images into links, never loading them", () => {
    const d = dom(renderMarkdown("![diagram](https://example.com/a.png) ![bad](javascript:alert(1))"));
    expect(d.querySelector("img")).toBeNull();
    const a = d.querySelector("a");
    expect(a?.getAttribute("href")).toBe("https://example.com/a.png");
    expect(d.innerHTML).not.toMatch(/javascript:/i);
  });

  it("isSafeHref accepts only absolute http(s)", () => {
    expect(isSafeHref("https://a.example")).toBe(true);
    expect(isSafeHref("http://a.example")).toBe(true);
    expect(isSafeHref("javascript:alert(1)")).toBe(false);
    expect(isSafeHref("//a.example")).toBe(false);
    expect(isSafeHref(null)).toBe(false);
  });
});
