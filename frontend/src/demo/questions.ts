/**
 * The demo store page's questions to the widget (pure; wired up in demo/demo.ts). The page
 * writes its templates in data attributes so the Python tests can run them through the agent.
 */

/** A model number as a shopper may type it: trimmed, upper-cased, inner spaces dropped. */
export function normaliseModel(raw: string): string | null {
  const model = raw.trim().replace(/\s+/g, "").toUpperCase();
  return /^[A-Z0-9][A-Z0-9./-]{2,39}$/.test(model) ? model : null;
}

/** Fills "{part}" and "{model}" in a question template. */
export function fillQuestion(template: string, values: { part: string; model?: string }): string {
  return template.replaceAll("{part}", values.part).replaceAll("{model}", values.model ?? "");
}
