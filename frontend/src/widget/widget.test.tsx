import { act } from "@testing-library/react";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { FakeSocket } from "../test/fakeSocket";
import { SESSION, normalTurn, ready } from "../test/fixtures";

const sockets: FakeSocket[] = [];

class GlobalFakeSocket extends FakeSocket {
  constructor(url: string) {
    super(url);
    sockets.push(this);
  }
}

function shadow(): ShadowRoot {
  const host = document.querySelector("[data-partchat-widget]");
  if (!host?.shadowRoot) throw new Error("widget not mounted");
  return host.shadowRoot;
}
const q = (testId: string) => shadow().querySelector<HTMLElement>(`[data-testid="${testId}"]`);

describe("widget.js", () => {
  beforeAll(async () => {
    vi.stubGlobal("WebSocket", GlobalFakeSocket);
    const s = document.createElement("script");
    s.src = "https://cdn.partchat.example/widget.js";
    s.setAttribute("data-server", "https://api.partchat.example");
    s.setAttribute("data-title", "Fridge help");
    s.setAttribute("data-accent", "#8a2be2");
    document.head.appendChild(s);
    await act(async () => {
      await import("./main");
    });
  });
  afterAll(() => {
    vi.unstubAllGlobals();
  });

  it("exposes only window.partchat with open, close, send, on", () => {
    expect(Object.keys(window.partchat!).sort()).toEqual(["close", "on", "open", "send"]);
    expect(Object.isFrozen(window.partchat)).toBe(true);
    expect(Object.keys(window).filter((k) => /partchat/i.test(k))).toEqual(["partchat"]);
  });

  it("mounts a launcher inside an open shadow root, with its styles there and not in the page", () => {
    const launcher = q("pc-launcher");
    expect(launcher).not.toBeNull();
    expect(launcher!.getAttribute("aria-expanded")).toBe("false");
    expect(q("pc-panel")!.hidden).toBe(true);
    const styleText =
      Array.from(shadow().querySelectorAll("style")).map((s) => s.textContent).join("\n") +
      (shadow().adoptedStyleSheets ?? []).map((sh) => Array.from(sh.cssRules).map((r) => r.cssText).join("\n")).join("\n");
    expect(styleText).toContain(":host");
    expect(document.head.querySelector("style")).toBeNull();
    // Theme from data-accent → CSS variables on the widget root.
    const root = shadow().querySelector<HTMLElement>(".pc-root")!;
    expect(root.style.getPropertyValue("--pc-accent")).toBe("#8a2be2");
    // Lazy: no connection before the chat is opened.
    expect(sockets).toHaveLength(0);
  });

  it("opens with the launcher or open(), connects to data-server, and fires events", async () => {
    const events: string[] = [];
    window.partchat!.on("open", () => events.push("open"));
    window.partchat!.on("close", () => events.push("close"));
    window.partchat!.on("ready", () => events.push("ready"));
    const messages: unknown[] = [];
    window.partchat!.on("message", (m) => messages.push(m));

    await act(async () => {
      q("pc-launcher")!.click();
    });
    expect(q("pc-panel")!.hidden).toBe(false);
    expect(q("pc-title")!.textContent).toBe("Fridge help");
    expect(sockets).toHaveLength(1);
    const sock = sockets[0]!;
    expect(sock.url).toBe("wss://api.partchat.example/ws");

    await act(async () => {
      sock.open();
      sock.receive(ready({ sessionId: SESSION }));
    });
    expect(shadow().querySelectorAll('[data-testid="pc-suggestion"]')).toHaveLength(3);

    await act(async () => {
      window.partchat!.send("Does PS11752778 fit WDT780SAEM1?");
    });
    const frame = sock.frames("message")[0]!;
    expect(frame.text).toBe("Does PS11752778 fit WDT780SAEM1?");
    await act(async () => {
      sock.receive(...normalTurn("t1", frame.id, 1));
    });
    expect(shadow().querySelectorAll('[data-testid="pc-message"]')).toHaveLength(2);
    expect(q("pc-part-fit")!.textContent).toContain("Fits WDT780SAEM1");
    expect(messages).toHaveLength(1);

    await act(async () => {
      window.partchat!.close();
    });
    expect(q("pc-panel")!.hidden).toBe(true);
    await act(async () => {
      window.partchat!.open();
    });
    expect(events).toEqual(["open", "ready", "close", "open"]);
    expect(sockets).toHaveLength(1); // the connection survives close/open
  });

  it("Escape closes the panel and gives focus back to the launcher", async () => {
    await act(async () => {
      window.partchat!.open();
    });
    const input = q("pc-input")!;
    await act(async () => {
      input.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true, composed: true }));
    });
    expect(q("pc-panel")!.hidden).toBe(true);
    expect(shadow().activeElement).toBe(q("pc-launcher"));
  });
});
