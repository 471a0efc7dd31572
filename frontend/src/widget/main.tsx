/**
 * widget.js entry: one <script> tag mounts a launcher and a chat panel inside a Shadow DOM
 * and exposes window.partchat = { open, close, send, on }. Nothing else leaks into the page:
 * no other globals, no styles outside the shadow root.
 */
import { createRoot } from "react-dom/client";
import css from "../styles/chat.css?inline";
import { ChatClient } from "../chat/client";
import { findWidgetScript, readConfig } from "./config";
import type { WidgetConfig } from "./config";
import { WidgetController } from "./controller";
import type { WidgetEvent } from "./controller";
import { Widget } from "./Widget";

export interface PartchatApi {
  open(): void;
  close(): void;
  send(text: string): void;
  on(event: WidgetEvent, fn: (payload?: unknown) => void): () => void;
}

declare global {
  interface Window {
    partchat?: PartchatApi;
  }
}

/** Host-page isolation: reset everything the host could set on our element. */
const HOST_CSS = `
:host { all: initial !important; display: block !important; position: static !important;
  width: 0 !important; height: 0 !important; margin: 0 !important; padding: 0 !important;
  border: 0 !important; transform: none !important; filter: none !important;
  contain: none !important; visibility: visible !important; opacity: 1 !important; }
`;

function adoptStyles(root: ShadowRoot, text: string): void {
  try {
    if ("adoptedStyleSheets" in root && typeof CSSStyleSheet === "function") {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(text);
      root.adoptedStyleSheets = [sheet];
      return;
    }
  } catch {
    /* older engines: fall back to <style> */
  }
  const style = document.createElement("style");
  style.textContent = text;
  root.appendChild(style);
}

function mountWidget(config: WidgetConfig): PartchatApi {
  const controller = new WidgetController({ open: config.open, activated: config.connect === "eager" });
  const client = new ChatClient({ server: config.server });
  client.on("ready", (p) => controller.emit("ready", p));
  client.on("message", (p) => controller.emit("message", p));

  const attach = () => {
    const host = document.createElement("div");
    host.setAttribute("data-partchat-widget", "");
    const shadow = host.attachShadow({ mode: "open" });
    adoptStyles(shadow, HOST_CSS + css);
    const container = document.createElement("div");
    shadow.appendChild(container);
    document.body.appendChild(host);
    createRoot(container).render(<Widget config={config} controller={controller} client={client} />);
  };
  // The API exists at once; the DOM is touched when <body> exists.
  if (document.body) attach();
  else document.addEventListener("DOMContentLoaded", attach, { once: true });

  const api: PartchatApi = {
    open: () => controller.open(),
    close: () => controller.close(),
    send: (text: string) => {
      if (typeof text !== "string" || !text.trim()) return;
      controller.open();
      client.send(text);
    },
    on: (event, fn) => controller.on(event, fn),
  };
  return Object.freeze(api);
}

function boot(): void {
  if (window.partchat) return; // loaded twice: keep the first
  // currentScript is only set while this script runs: read the attributes now.
  const config = readConfig(findWidgetScript(), window.location.href);
  window.partchat = mountWidget(config);
}

boot();
