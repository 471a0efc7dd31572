import { chartBars } from "./chart";
import type { DayAnswers } from "./types";

const WIDTH = 600;
const HEIGHT = 140;

/** Answers per day as bars (inline SVG); the part rated negative is drawn darker. */
export function AnswersChart({ days }: { days: readonly DayAnswers[] }) {
  const g = chartBars(days, WIDTH, HEIGHT);
  const total = days.reduce((n, d) => n + d.answers, 0);
  const first = days[0]?.day;
  const last = days[days.length - 1]?.day;
  return (
    <figure className="ad-chart" data-testid="admin-chart">
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT + 2}`}
        role="img"
        aria-label={`Answers per day from ${first ?? "–"} to ${last ?? "–"}: ${total} in all, at most ${g.max} a day.`}
        preserveAspectRatio="none"
      >
        <line x1="0" y1={HEIGHT + 1} x2={WIDTH} y2={HEIGHT + 1} className="ad-chart__axis" />
        {g.bars.map((b) => (
          <g key={b.day} data-testid="admin-chart-bar" data-day={b.day} data-answers={b.answers}>
            <title>{`${b.day}: ${b.answers} answers, ${b.negative} rated negative`}</title>
            <rect x={b.x} y={b.y} width={b.width} height={b.height} className="ad-chart__bar" />
            {b.negativeHeight > 0 && (
              <rect x={b.x} y={b.negativeY} width={b.width} height={b.negativeHeight} className="ad-chart__negative" />
            )}
          </g>
        ))}
      </svg>
      <figcaption className="ad-muted">
        <span>{first}</span>
        <span>
          <span className="ad-chart__key ad-chart__key--answers" /> answers{" "}
          <span className="ad-chart__key ad-chart__key--negative" /> rated negative · max {g.max}/day
        </span>
        <span>{last}</span>
      </figcaption>
    </figure>
  );
}
