import { isSafeHref } from "../chat/markdown";
import type { PartCardData } from "../chat/parts";

export interface PartCardProps {
  part: PartCardData;
}

function FitBadge({ part }: PartCardProps) {
  if (!part.fit) return null;
  const model = part.model ?? "your model";
  const text =
    part.fit === "fits"
      ? `Fits ${model}`
      : part.fit === "not_listed"
        ? `Not listed for ${model}`
        : `Model ${model} not found`;
  return (
    <span className={`pc-badge pc-badge--${part.fit}`} data-testid="pc-part-fit" data-fit={part.fit}>
      {part.fit === "fits" ? "✓ " : ""}
      {text}
    </span>
  );
}

/** Card reasons may mark the symptom as *emphasis* (Markdown); show it as <em>, never as HTML. */
function ReasonText({ text }: { text: string }) {
  const pieces = text.split(/\*([^*\n]+)\*/);
  return (
    <>
      {pieces.map((piece, i) => (i % 2 === 1 ? <em key={i}>{piece}</em> : piece))}
    </>
  );
}

/** A catalog part: name, PS number, price, stock, fit for the model, install effort, video. */
export function PartCard({ part }: PartCardProps) {
  const stock =
    part.availability ?? (part.inStock === null ? null : part.inStock ? "In Stock" : "Out of Stock");
  return (
    <article className="pc-part" data-testid="pc-part-card" data-part-number={part.partNumber}>
      <header className="pc-part__head">
        <h4 className="pc-part__name" data-testid="pc-part-name">
          {part.name}
        </h4>
        <FitBadge part={part} />
      </header>
      <p className="pc-part__ids">
        <span data-testid="pc-part-number">{part.partNumber}</span>
        {part.mfrNumber && <span className="pc-part__mfr"> · Mfr {part.mfrNumber}</span>}
        {part.brand && <span className="pc-part__brand"> · {part.brand}</span>}
      </p>
      <p className="pc-part__buy">
        {part.price && (
          <span className="pc-part__price" data-testid="pc-part-price">
            {part.price}
          </span>
        )}
        {stock && (
          <span
            className={`pc-part__stock ${part.inStock === false ? "pc-part__stock--out" : ""}`}
            data-testid="pc-part-stock"
          >
            {stock}
          </span>
        )}
      </p>
      {(part.difficulty || part.installTime) && (
        <p className="pc-part__install">
          {part.difficulty && (
            <span data-testid="pc-part-difficulty">
              <span className="pc-part__label">Difficulty:</span> {part.difficulty}
            </span>
          )}
          {part.difficulty && part.installTime && " · "}
          {part.installTime && (
            <span data-testid="pc-part-install-time">
              <span className="pc-part__label">Time:</span> {part.installTime}
            </span>
          )}
        </p>
      )}
      {part.reason && (
        <p className="pc-part__reason">
          <ReasonText text={part.reason} />
        </p>
      )}
      {isSafeHref(part.videoUrl) && (
        <a
          className="pc-part__video"
          href={part.videoUrl}
          target="_blank"
          rel="noopener noreferrer"
          data-testid="pc-part-video"
        >
          Watch the install video<span className="pc-sr-only"> for {part.name} (opens in a new tab)</span>
        </a>
      )}
    </article>
  );
}
