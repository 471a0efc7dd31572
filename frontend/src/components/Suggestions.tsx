import suggestions from "../chat/suggestions.json";

/**
 * The questions offered on an empty chat. Each names what its job needs (part number, model)
 * so that, asked first in a new session, it is answered rather than met with a question back;
 * tests/unit/agent/test_suggestions.py runs each one through the agent to keep it so.
 */
export const SUGGESTIONS: readonly string[] = suggestions;

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
