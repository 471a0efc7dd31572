/** Geometry of the answers-per-day bar chart (pure; AnswersChart.tsx draws it as SVG). */
import type { DayAnswers } from "./types";

export interface Bar {
  day: string;
  x: number;
  width: number;
  /** The whole bar (answers). */
  y: number;
  height: number;
  /** The part rated negative, drawn at the bottom of the bar. */
  negativeY: number;
  negativeHeight: number;
  answers: number;
  negative: number;
}

export interface ChartGeometry {
  bars: Bar[];
  max: number;
  width: number;
  height: number;
}

export function chartBars(days: readonly DayAnswers[], width: number, height: number, gap = 2): ChartGeometry {
  const max = Math.max(1, ...days.map((d) => d.answers));
  const slot = days.length ? width / days.length : width;
  const barWidth = Math.max(1, slot - gap);
  const bars = days.map((d, i) => {
    const h = (d.answers / max) * height;
    const nh = (Math.min(d.negative, d.answers) / max) * height;
    return {
      day: d.day,
      x: i * slot + gap / 2,
      width: barWidth,
      y: height - h,
      height: h,
      negativeY: height - nh,
      negativeHeight: nh,
      answers: d.answers,
      negative: d.negative,
    };
  });
  return { bars, max, width, height };
}
