import type { CountedValue } from "./types";

export interface TopListProps {
  title: string;
  items: readonly CountedValue[];
  testId: string;
}

/** A "top N" table (value, count). */
export function TopList({ title, items, testId }: TopListProps) {
  return (
    <section className="ad-card ad-top" data-testid={testId}>
      <h3>{title}</h3>
      {items.length === 0 ? (
        <p className="ad-muted">None.</p>
      ) : (
        <table>
          <tbody>
            {items.map((i) => (
              <tr key={i.value}>
                <td>
                  <code>{i.value}</code>
                </td>
                <td className="ad-num">{i.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
