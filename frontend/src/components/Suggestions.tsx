export const SUGGESTIONS = [
  "How can I install part number PS11752778?",
  "Is this part compatible with my WDT780SAEM1 model?",
  "The ice maker on my Whirlpool fridge is not working. How can I fix it?",
] as const;

export interface SuggestionsProps {
  onPick: (text: string) => void;
  disabled?: boolean;
}

/** The classic questions, shown on an empty chat. */
export function Suggestions({ onPick, disabled }: SuggestionsProps) {
  return (
    <section className="pc-suggestions" data-testid="pc-suggestions" aria-label="Suggested questions">
      <p className="pc-suggestions__intro">
        Ask about refrigerator and dishwasher parts: finding the right part, checking it fits your model,
        installing it, or fixing a problem.
      </p>
      <ul className="pc-suggestions__list">
        {SUGGESTIONS.map((q) => (
          <li key={q}>
            <button
              type="button"
              className="pc-suggestion"
              data-testid="pc-suggestion"
              disabled={disabled}
              onClick={() => onPick(q)}
            >
              {q}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
