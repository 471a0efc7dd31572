/**
 * Markdown → safe HTML for assistant answers. `marked` parses (raw HTML in the source is
 * escaped, images become plain links), then DOMPurify keeps a small whitelist of tags.
 * Links survive only with an absolute http(s) URL and always open in a new tab with
 * rel="noopener noreferrer".
 */
import { Marked } from "marked";
import DOMPurify from "dompurify";

const ALLOWED_TAGS = [
  "p", "br", "strong", "em", "b", "i", "del", "code", "pre", "blockquote",
  "ul", "ol", "li", "a", "h1", "h2", "h3", "h4", "h5", "h6", "hr",
  "table", "thead", "tbody", "tr", "th", "td",
];
const ALLOWED_ATTR = ["href", "title", "start", "align"];

function escapeHtml(s: string): string {
  return s
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

export function isSafeHref(href: string | null | undefined): href is string {
  if (!href) return false;
  try {
    const url = new URL(href);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

const marked = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: {
    html({ text }) {
      return escapeHtml(text);
    },
    image({ href, text }) {
      // Never load images from answers: show the alt text, linked when the URL is safe.
      const label = escapeHtml(text || href);
      return isSafeHref(href) ? `<a href="${escapeHtml(href)}">${label}</a>` : label;
    },
  },
});

type Purifier = ReturnType<typeof DOMPurify>;
let purifier: Purifier | null = null;

function getPurifier(): Purifier {
  if (purifier) return purifier;
  const p = DOMPurify(window);
  p.addHook("afterSanitizeAttributes", (node) => {
    if (node.nodeName !== "A") return;
    const el = node as Element;
    const href = el.getAttribute("href");
    if (!isSafeHref(href)) {
      el.removeAttribute("href");
      return;
    }
    el.setAttribute("target", "_blank");
    el.setAttribute("rel", "noopener noreferrer");
  });
  purifier = p;
  return p;
}

/** Renders assistant Markdown to sanitised HTML (safe for innerHTML). */
export function renderMarkdown(source: string): string {
  const raw = marked.parse(source, { async: false });
  return getPurifier().sanitize(raw, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
  });
}
