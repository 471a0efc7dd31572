import type { Context } from "../protocol";

export interface ContextBarProps {
  context: Context;
}

const APPLIANCE: Record<string, string> = { refrigerator: "Refrigerator", dishwasher: "Dishwasher" };

/** What the assistant knows about the shopper's appliance: model, part, symptoms. */
export function ContextBar({ context }: ContextBarProps) {
  const { productModel, partNumber, symptoms, applianceType } = context;
  if (!productModel && !partNumber && symptoms.length === 0 && !applianceType) return null;
  return (
    <section className="pc-context" data-testid="pc-context" aria-label="What I know about your appliance">
      <ul className="pc-context__list">
        {applianceType && (
          <li className="pc-chip" data-testid="pc-context-appliance">
            {APPLIANCE[applianceType] ?? applianceType}
          </li>
        )}
        {productModel && (
          <li className="pc-chip" data-testid="pc-context-model">
            <span className="pc-chip__label">Model</span> {productModel}
          </li>
        )}
        {partNumber && (
          <li className="pc-chip" data-testid="pc-context-part">
            <span className="pc-chip__label">Part</span> {partNumber}
          </li>
        )}
        {symptoms.length > 0 && (
          <li className="pc-chip" data-testid="pc-context-symptoms">
            <span className="pc-chip__label">Symptoms</span> {symptoms.join(", ")}
          </li>
        )}
      </ul>
    </section>
  );
}
