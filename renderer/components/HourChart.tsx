/**
 * A small uPlot chart of one series over time (an hour, a day or a week). uPlot draws to a canvas, so the chart
 * also carries a text summary as its accessible name; colours come from the theme's variables.
 */
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { axisNumber } from '../state/format.ts';

export interface HourChartProps {
  title: string;
  /** epoch seconds */
  times: number[];
  values: (number | null)[];
  unit: string;
  /** CSS variable holding the line colour, e.g. --amber */
  colorVar: string;
  max?: number;
  summary: string;
  /** the x axis spans days: its labels name the weekday */
  days?: boolean;
}

function cssVar(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';
}

function options(p: HourChartProps, width: number, now: { current: HourChartProps }): uPlot.Options {
  const line = cssVar(p.colorVar);
  const grid = cssVar('--border');
  const text = cssVar('--muted');
  const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
  return {
    width,
    height: 150,
    legend: { show: false },
    cursor: { drag: { x: false, y: false } },
    scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(p.max ?? 0, max || 1)] } },
    axes: [
      {
        ...axis,
        values: (_u, ticks) =>
          ticks.map((t) =>
            // Read when drawn: the range can change under a built chart. Over a week, the day.
            now.current.days
              ? new Date(t * 1000).toLocaleDateString([], { weekday: 'short' })
              : new Date(t * 1000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }),
          ),
      },
      {
        ...axis,
        values: (_u, ticks) => ticks.map((t) => `${axisNumber(t)}${p.unit}`),
        // As wide as the longest label needs, so none is cut to its last digits: the tick (10 px)
        // and the gap (5 px) come out of the size too.
        size: (_u, values) =>
          Math.max(40, 20 + 8 * Math.max(0, ...(values ?? []).map((v) => String(v).length))),
      },
    ],
    series: [
      {},
      {
        label: p.title,
        stroke: line,
        width: 2,
        fill: `${line}22`,
        spanGaps: false,
        points: { show: true, size: 4 },
      },
    ],
  };
}

export function HourChart(props: HourChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const latest = useRef(props);
  latest.current = props;

  useEffect(() => {
    const el = box.current!;
    const build = () => {
      plot.current?.destroy();
      const p = latest.current;
      plot.current = new uPlot(options(p, el.clientWidth || 300, latest), [p.times, p.values], el);
    };
    build();
    const resize = new ResizeObserver(() =>
      plot.current?.setSize({ width: el.clientWidth || 300, height: 150 }),
    );
    resize.observe(el);
    const scheme = window.matchMedia('(prefers-color-scheme: dark)');
    scheme.addEventListener('change', build);
    return () => {
      resize.disconnect();
      scheme.removeEventListener('change', build);
      plot.current?.destroy();
      plot.current = null;
    };
  }, []);

  useEffect(() => {
    plot.current?.setData([props.times, props.values]);
  }, [props.times, props.values]);

  return (
    <figure className="chart">
      <figcaption>{props.title}</figcaption>
      <div ref={box} className="chart-canvas" role="img" aria-label={`${props.title}: ${props.summary}`} />
      <p className="chart-summary muted">{props.summary}</p>
    </figure>
  );
}
