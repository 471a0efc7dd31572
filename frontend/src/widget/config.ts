/**
 * Widget configuration, read from the <script> tag that loaded widget.js:
 *
 *   <script src="https://HOST/widget.js" data-server="https://HOST" data-title="Parts help"
 *           data-accent="#337778" data-position="right" data-open="false" defer></script>
 *
 * data-server: origin of the partchat server (empty or missing: the script's own origin).
 */
export interface WidgetConfig {
  server: string;
  title: string;
  launcherLabel: string;
  accent: string | null;
  position: "right" | "left";
  /** Open the panel on load. */
  open: boolean;
  /** "eager": connect on load; "lazy" (default): on first open or send. */
  connect: "lazy" | "eager";
}

const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;

function attr(el: HTMLElement | null, name: string): string | null {
  const v = el?.getAttribute(`data-${name}`);
  return v === null || v === undefined ? null : v.trim();
}

function originOf(src: string | null | undefined, fallback: string): string {
  if (src) {
    try {
      const u = new URL(src, fallback);
      if (u.protocol === "http:" || u.protocol === "https:") return u.origin;
    } catch {
      /* fall through */
    }
  }
  return new URL(fallback).origin;
}

/** Finds the script element of widget.js (currentScript while it runs; a src match otherwise). */
export function findWidgetScript(doc: Document = document): HTMLScriptElement | null {
  const current = doc.currentScript;
  if (current instanceof HTMLScriptElement) return current;
  const scripts = Array.from(doc.querySelectorAll<HTMLScriptElement>("script[src]"));
  return scripts.reverse().find((s) => /(?:^|\/)widget\.js(?:[?#]|$)/.test(s.src)) ?? null;
}

export function readConfig(script: HTMLScriptElement | null, pageHref: string): WidgetConfig {
  const server = attr(script, "server");
  const accent = attr(script, "accent");
  const title = attr(script, "title") || "Parts help";
  return {
    server: server ? originOf(server, pageHref) : originOf(script?.src, pageHref),
    title,
    launcherLabel: attr(script, "launcher-label") || title,
    accent: accent && HEX.test(accent) ? accent : null,
    position: attr(script, "position") === "left" ? "left" : "right",
    open: attr(script, "open") === "true",
    connect: attr(script, "connect") === "eager" ? "eager" : "lazy",
  };
}

// ---- theme: data attributes → CSS variables ----

function rgb(hex: string): [number, number, number] {
  let h = hex.slice(1);
  if (h.length === 3) h = h.replace(/./g, (c) => c + c);
  return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)) as [number, number, number];
}

function luminance(hex: string): number {
  const [r, g, b] = rgb(hex).map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrastRatio(a: string, b: string): number {
  const [l1, l2] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (l1 + 0.05) / (l2 + 0.05);
}

function mixWithWhite(hex: string, amount: number): string {
  return (
    "#" +
    rgb(hex)
      .map((v) => Math.round(v + (255 - v) * amount).toString(16).padStart(2, "0"))
      .join("")
  );
}

/** CSS variables for the theme; text on the accent is white or near-black, whichever reads better. */
export function themeVariables(config: Pick<WidgetConfig, "accent">): Record<string, string> {
  if (!config.accent) return {};
  const accent = config.accent;
  const onAccent = contrastRatio(accent, "#ffffff") >= contrastRatio(accent, "#111111") ? "#ffffff" : "#111111";
  const vars: Record<string, string> = {
    "--pc-accent": accent,
    "--pc-accent-contrast": onAccent,
    "--pc-accent-soft": mixWithWhite(accent, 0.88),
  };
  if (contrastRatio(accent, "#f1f4f5") >= 4.5) vars["--pc-link"] = accent;
  return vars;
}
