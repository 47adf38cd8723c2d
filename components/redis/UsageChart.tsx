import { formatBinaryBytes } from '../format';
import type { RedisUsage } from './catalog';
import styles from './redis.module.css';

type Sample = RedisUsage['history'][number];

interface Series {
  label: string;
  /** A class of redis.module.css that colours the line and its legend swatch. */
  className: string | undefined;
  values: ReadonlyArray<{ at: number; value: number }>;
  area?: boolean;
}

const WIDTH = 600;
const HEIGHT = 150;
const PAD = { top: 10, right: 8, bottom: 22, left: 64 };
const WINDOW_MS = 60 * 60_000;
const timeFormat = new Intl.DateTimeFormat('en', { hour: '2-digit', minute: '2-digit' });

/** The memory the data filled at each reading, against the limit. */
export function MemoryChart({ history, limitBytes, end }: { history: readonly Sample[]; limitBytes: number; end: number }) {
  const values = history.map((s) => ({ at: Date.parse(s.at), value: s.memoryUsedBytes }));
  return (
    <LineChart
      title="Memory used"
      series={[{ label: 'Used', className: styles.seriesMemory, values, area: true }]}
      ceiling={limitBytes}
      history={history}
      end={end}
    />
  );
}

/**
 * Traffic per minute. The counters run from the database's last start, so each point is the
 * difference from the reading before it; a counter that went down was reset by a restart and
 * counts from zero.
 */
export function NetworkChart({ history, end }: { history: readonly Sample[]; end: number }) {
  const perMinute = (pick: (s: Sample) => number) =>
    history.slice(1).map((sample, i) => {
      const delta = pick(sample) - pick(history[i]!);
      return { at: Date.parse(sample.at), value: delta >= 0 ? delta : pick(sample) };
    });
  return (
    <LineChart
      title="Network per minute"
      series={[
        { label: 'In', className: styles.seriesIn, values: perMinute((s) => s.networkInBytes) },
        { label: 'Out', className: styles.seriesOut, values: perMinute((s) => s.networkOutBytes) },
      ]}
      history={history}
      end={end}
      minimumReadings={2}
    />
  );
}

function LineChart({
  title,
  series,
  history,
  end,
  ceiling,
  minimumReadings = 1,
}: {
  title: string;
  series: readonly Series[];
  history: readonly Sample[];
  /** The right edge, the latest reading; the chart spans the hour before it. */
  end: number;
  /** A line drawn across the chart, and a top the scale reaches at least: memory's limit. */
  ceiling?: number;
  minimumReadings?: number;
}) {
  const start = end - WINDOW_MS;
  const peak = Math.max(1, ...series.flatMap((s) => s.values.map((v) => v.value)));
  // The limit sets the scale only when the data comes near it; a nearly empty database would be a flat line at the bottom.
  const top = niceCeiling(ceiling !== undefined && peak > ceiling * 0.5 ? Math.max(peak, ceiling) : peak * 1.15);
  const x = (at: number) => PAD.left + ((at - start) / WINDOW_MS) * (WIDTH - PAD.left - PAD.right);
  const y = (value: number) => PAD.top + (1 - value / top) * (HEIGHT - PAD.top - PAD.bottom);
  const ticks = [0, top / 2, top];
  const enough = history.length >= minimumReadings;
  const latest = series.map((s) => `${s.label} ${formatBinaryBytes(s.values.at(-1)?.value ?? 0)}`).join(', ');

  return (
    <figure className={styles.chart}>
      <figcaption className={styles.chartCaption}>
        <span className={styles.chartTitle}>{title}</span>
        <span className={styles.legend}>
          {series.map((s) => (
            <span key={s.label} className={styles.legendItem}>
              <span className={`${styles.swatch} ${s.className}`} aria-hidden />
              {s.label}
            </span>
          ))}
        </span>
      </figcaption>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        className={styles.chartSvg}
        role="img"
        aria-label={enough ? `${title} over the last hour: latest ${latest}` : `${title}: not enough readings yet`}
      >
        {ticks.map((tick) => (
          <g key={tick}>
            <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y(tick)} y2={y(tick)} className={styles.gridLine} />
            <text x={PAD.left - 8} y={y(tick) + 4} textAnchor="end" className={styles.axisLabel}>
              {formatBinaryBytes(tick)}
            </text>
          </g>
        ))}
        <text x={PAD.left} y={HEIGHT - 4} className={styles.axisLabel}>
          {timeFormat.format(start)}
        </text>
        <text x={WIDTH - PAD.right} y={HEIGHT - 4} textAnchor="end" className={styles.axisLabel}>
          {timeFormat.format(end)}
        </text>
        {ceiling !== undefined && ceiling <= top ? (
          <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y(ceiling)} y2={y(ceiling)} className={styles.limitLine} />
        ) : null}
        {enough
          ? series.map((s) => {
              const points = s.values.map((v) => `${x(v.at).toFixed(1)},${y(v.value).toFixed(1)}`);
              const first = s.values[0];
              const last = s.values.at(-1);
              return (
                <g key={s.label} className={s.className}>
                  {s.area && first && last && s.values.length > 1 ? (
                    <polygon className={styles.area} points={`${x(first.at).toFixed(1)},${y(0)} ${points.join(' ')} ${x(last.at).toFixed(1)},${y(0)}`} />
                  ) : null}
                  <polyline className={styles.line} points={points.join(' ')} />
                  {last ? <circle cx={x(last.at)} cy={y(last.value)} r={3} className={styles.dot} /> : null}
                </g>
              );
            })
          : null}
      </svg>
      {enough ? null : <p className={styles.chartEmpty}>The chart fills in as readings arrive, one a minute.</p>}
    </figure>
  );
}

/** The top of the scale, round in the unit it is printed in (2.5 MB rather than 2.37 MB), so the axis labels read at a glance. */
function niceCeiling(value: number): number {
  const unit = 1024 ** Math.max(0, Math.floor(Math.log(Math.max(value, 1)) / Math.log(1024)));
  const scaled = value / unit;
  const magnitude = 10 ** Math.floor(Math.log10(scaled));
  const step = [1, 2, 2.5, 5, 10].find((s) => s * magnitude >= scaled) ?? 10;
  return step * magnitude * unit;
}
