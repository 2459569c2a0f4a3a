/** A zone's DNS queries over the last 24 hours as a small bar chart (15-minute bars), with the figures in text. */
import { useEffect } from 'react';
import { api, type QueryCounts } from '../api';
import { useLoad } from '../hooks';

const BAR_MINUTES = 15;
const W = 960;
const H = 160;

export function QueryChart({ path }: { path: string }) {
  const { data, error, reload } = useLoad(() => api.get<QueryCounts>(path), [path]);
  useEffect(() => {
    const t = setInterval(reload, 60_000);
    return () => clearInterval(t);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [path]);

  if (error) return <p className="field-error">Query counts could not be loaded: {error.detail}</p>;
  if (!data) return <p>Loading query counts…</p>;

  const bars: number[] = [];
  for (let i = 0; i < data.counts.length; i += BAR_MINUTES) bars.push(data.counts.slice(i, i + BAR_MINUTES).reduce((a, b) => a + b, 0));
  const total = data.counts.reduce((a, b) => a + b, 0);
  const lastHour = data.counts.slice(-60).reduce((a, b) => a + b, 0);
  const peak = Math.max(...bars);
  const scale = peak > 0 ? (H - 4) / peak : 0;
  const bw = W / bars.length;
  const summary = `${total} DNS ${total === 1 ? 'query' : 'queries'} in the last 24 hours, ${lastHour} in the last hour; busiest ${BAR_MINUTES} minutes: ${peak}.`;

  return (
    <figure className="chart">
      <figcaption>
        <strong>DNS queries</strong> — {summary}{' '}
        <button type="button" className="link" onClick={reload}>
          Refresh
        </button>
      </figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`Bar chart: ${summary}`} preserveAspectRatio="none">
        <line x1="0" y1={H - 0.5} x2={W} y2={H - 0.5} className="axis" />
        {bars.map((n, i) =>
          n > 0 ? (
            <rect key={i} x={i * bw + 1} y={H - n * scale} width={Math.max(bw - 2, 1)} height={n * scale} className="bar">
              <title>{`${n}`}</title>
            </rect>
          ) : null,
        )}
      </svg>
      {/* Axis labels in HTML, so they keep their size when the chart is stretched to the page's width. */}
      <div className="chart-axis" aria-hidden="true">
        <span>24 h ago</span>
        <span>{peak > 0 ? `tallest bar: ${peak} per ${BAR_MINUTES} min` : 'no queries yet'}</span>
        <span>now</span>
      </div>
    </figure>
  );
}
