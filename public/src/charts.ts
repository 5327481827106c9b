/**
 * The history charts (uPlot, bundled with the page: nothing from a CDN). Every chart comes with a
 * text alternative: a one-sentence summary as the chart's label and the exact figures in a table
 * behind a disclosure. The canvas gets numbers in SOL only to place pixels; every figure a person
 * reads is the exact lamport string formatted with bigint arithmetic.
 */
import uPlot from "uplot";
import { api } from "./api";
import { h } from "./dom";
import { lamportsToSol } from "./money";
import { absoluteTime, dayLabel } from "./time";
import type { SolvencyPoint, TokenHistoryPoint } from "../../src/api-types";
import { errorBox, loading, table } from "./ui";

const CHART_HEIGHT_PX = 220;

interface TokenHistory {
  points: TokenHistoryPoint[];
}
interface ProofHistory {
  points: SolvencyPoint[];
}

/** Position on the canvas only; never shown as a figure. */
const solForPlot = (lamports: string): number => Number(lamports) / 1e9;

/** Exact SOL of a signed lamport string (a surplus can be negative). */
const signedSol = (lamports: string): string =>
  lamports.startsWith("-") ? `-${lamportsToSol(lamports.slice(1))}` : lamportsToSol(lamports);

function cssColor(name: string, fallback: string): string {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value || fallback;
}

function legend(items: { label: string; color: string }[]): HTMLElement {
  return h(
    "ul",
    { className: "chart-legend", "aria-hidden": "true" },
    items.map((i) => {
      const swatch = h("span", { className: "swatch" });
      swatch.style.background = i.color;
      return h("li", null, swatch, i.label);
    }),
  );
}

/**
 * Mounts a uPlot chart that follows its box's width (down to a 360 px phone). Pointing at (or
 * tapping) the chart shows that point's exact figures in a tip beside the cursor.
 */
function mount(
  box: HTMLElement,
  options: Omit<uPlot.Options, "width" | "height">,
  data: uPlot.AlignedData,
  signal: AbortSignal,
  tipText: (index: number) => string | null,
): void {
  const width = () => Math.max(240, Math.floor(box.clientWidth || box.getBoundingClientRect().width || 320));
  const tip = h("div", { className: "chart-tip", hidden: true, "aria-hidden": "true" });
  const showTip = (u: uPlot) => {
    const index = u.cursor.idx;
    const text = index === null || index === undefined ? null : tipText(index);
    if (!text || u.cursor.left === undefined || u.cursor.left < 0) {
      tip.hidden = true;
      return;
    }
    tip.textContent = text;
    tip.hidden = false;
    const left = u.cursor.left + u.over.offsetLeft;
    const room = box.clientWidth - tip.offsetWidth - 4;
    tip.style.left = `${Math.max(0, Math.min(left + 12, room))}px`;
    tip.style.top = `${Math.max(0, (u.cursor.top ?? 0) + u.over.offsetTop - tip.offsetHeight - 8)}px`;
  };
  const plot = new uPlot(
    {
      ...options,
      width: width(),
      height: CHART_HEIGHT_PX,
      hooks: { ...options.hooks, setCursor: [...(options.hooks?.setCursor ?? []), showTip] },
    },
    data,
    box,
  );
  box.append(tip);
  const observer = new ResizeObserver(() => plot.setSize({ width: width(), height: CHART_HEIGHT_PX }));
  observer.observe(box);
  signal.addEventListener("abort", () => {
    observer.disconnect();
    plot.destroy();
  });
}

const axisFont = "12px system-ui, sans-serif";

type TickLabels = (splits: number[]) => string[];

/**
 * Ticks in the page's one date format: "26 Nov" across days; under two days the time ("02:30"),
 * with the date before it on the first tick and where the day changes ("27 Nov 00:00"), so the
 * labels stay short enough not to run into each other.
 */
function timeTicks(timeZone: string | undefined): TickLabels {
  const day = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", timeZone });
  const hour = new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZone });
  return (splits) => {
    const span = (splits[splits.length - 1] ?? 0) - (splits[0] ?? 0);
    if (span >= 2 * DAY_SEC) return splits.map((sec) => day.format(new Date(sec * 1000)));
    let shownDay = "";
    return splits.map((sec) => {
      const date = new Date(sec * 1000);
      const d = day.format(date);
      const label = d === shownDay ? hour.format(date) : `${d} ${hour.format(date)}`;
      shownDay = d;
      return label;
    });
  };
}

/** Pixels between x ticks: room for the longest label ("27 Nov 00:00", ~80 px) and a gap. */
const X_TICK_SPACE_PX = 110;

/** An axis figure in SOL: "0.25", "750", "1.5K", "1M" (never "1000.0k"); positions only, never a balance. */
function axisSol(value: number): string {
  if (Math.abs(value) >= 1000)
    return new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 }).format(value);
  return String(+value.toPrecision(3));
}

function axes(text: string, line: string, yLabel: string, xTicks: TickLabels): uPlot.Axis[] {
  const base = { stroke: text, font: axisFont, grid: { stroke: line, width: 1 }, ticks: { stroke: line, width: 1 } };
  return [
    { ...base, space: X_TICK_SPACE_PX, values: (_u, splits) => xTicks(splits) },
    {
      ...base,
      size: 56,
      label: yLabel,
      labelFont: axisFont,
      labelSize: 18,
      values: (_u, splits) => splits.map(axisSol),
    },
  ];
}

const DAY_SEC = 86_400;
const dayStartSec = (day: string) => Date.parse(`${day}T00:00:00Z`) / 1000;
/** The chart's UTC days are labelled as UTC days, whatever the browser's zone. */
const utcDate = (sec: number) => uPlot.tzDate(new Date(sec * 1000), "Etc/UTC");

/** The exact figures behind a chart, folded away under the chart itself. */
function figuresDisclosure(figures: HTMLElement): HTMLElement {
  return h("details", { className: "chart-table" }, h("summary", null, "Show the figures as a table"), figures);
}

const recipientsPart = (p: TokenHistoryPoint) => (BigInt(p.sweptLamports) - BigInt(p.platformLamports)).toString();

/** The token page's daily fees: recipients' and platform's parts stacked, with the figures as a table. */
export function feeChart(mint: string, signal: AbortSignal, days = 90): HTMLElement {
  const section = h(
    "section",
    { className: "chart", "aria-labelledby": "fee-chart-title", id: "fee-chart" },
    h("h2", { id: "fee-chart-title" }, `Fees per day, last ${days} days`),
    loading(),
  );
  void (async () => {
    let history: TokenHistory;
    try {
      history = await api<TokenHistory>(`/api/tokens/${encodeURIComponent(mint)}/history?days=${days}`, { signal });
    } catch (error) {
      if (!signal.aborted) section.replaceChildren(section.firstChild!, errorBox(error));
      return;
    }
    if (signal.aborted) return;
    const heading = section.firstChild!;
    if (history.points.length === 0) {
      section.replaceChildren(heading, h("p", { className: "empty" }, `No fees swept in the last ${days} days.`));
      return;
    }
    showFees(section, heading, history.points, days, signal);
  })();
  return section;
}

/** Fills the fee chart's section: summary, legend, the bars' box and the figures as a table. */
function showFees(
  section: HTMLElement,
  heading: ChildNode,
  points: TokenHistoryPoint[],
  days: number,
  signal: AbortSignal,
): void {
  const total = points.reduce((n, p) => n + BigInt(p.sweptLamports), 0n);
  const best = points.reduce((a, b) => (BigInt(b.sweptLamports) > BigInt(a.sweptLamports) ? b : a));
  const summary =
    `Fees swept on ${points.length} of the last ${days} days, ${lamportsToSol(total)} SOL in all; ` +
    `the most in one day was ${lamportsToSol(best.sweptLamports)} SOL on ${dayLabel(best.day)}.`;
  const accent = cssColor("--accent", "#8b72ff");
  const warn = cssColor("--warn", "#f5b942");
  const box = h("div", { className: "chart-box", role: "img", "aria-label": summary });
  section.replaceChildren(
    heading,
    h("p", { className: "muted chart-summary" }, summary),
    legend([
      { label: "Recipients' part", color: accent },
      { label: "Platform's part", color: warn },
    ]),
    box,
    figuresDisclosure(
      table(
        ["Day (UTC)", "Swept", "Recipients' part", "Platform's part", "Sweeps"],
        points.map((p) => [
          dayLabel(p.day),
          `${lamportsToSol(p.sweptLamports)} SOL`,
          `${lamportsToSol(recipientsPart(p))} SOL`,
          `${lamportsToSol(p.platformLamports)} SOL`,
          String(p.sweeps),
        ]),
        "Fees swept per UTC day",
      ),
    ),
  );
  drawFeeBars(box, points, days, signal, { accent, warn });
}

function drawFeeBars(
  box: HTMLElement,
  points: TokenHistoryPoint[],
  days: number,
  signal: AbortSignal,
  colors: { accent: string; warn: string },
): void {
  const { accent, warn } = colors;
  // Every day of the window gets its place (zero where nothing was swept), so the time axis
  // always spans the window and one busy day is one bar among the others.
  const byDay = new Map(points.map((p) => [p.day, p]));
  const todaySec = Math.floor(Date.now() / 1000 / DAY_SEC) * DAY_SEC;
  const lastSec = Math.max(todaySec, ...points.map((p) => dayStartSec(p.day)));
  const daySecs = Array.from({ length: days }, (_, i) => lastSec - (days - 1 - i) * DAY_SEC);
  const dayOf = (sec: number) => new Date(sec * 1000).toISOString().slice(0, 10);
  const tipText = (index: number) => {
    const sec = daySecs[index];
    if (sec === undefined) return null;
    const p = byDay.get(dayOf(sec));
    if (!p) return `${dayLabel(dayOf(sec))}: nothing swept`;
    return (
      `${dayLabel(p.day)}: ${lamportsToSol(p.sweptLamports)} SOL swept ` +
      `(recipients ${lamportsToSol(recipientsPart(p))}, platform ${lamportsToSol(p.platformLamports)})`
    );
  };
  // At least 3 px wide, so a lone day among 90 on a phone (a 3 px slot) is seen at all.
  const bars = uPlot.paths.bars!({ size: [0.7, 40, 3], align: 0 });
  const swept = daySecs.map((sec) => {
    const p = byDay.get(dayOf(sec));
    return p ? solForPlot(p.sweptLamports) : 0;
  });
  // Drawn in order: the whole day first in the platform's colour, then the recipients' part over
  // it from the axis up, so what shows of the first bar is the platform's part, stacked on top.
  mount(
    box,
    {
      legend: { show: false },
      tzDate: utcDate,
      cursor: { show: true, points: { show: false }, move: snapToBar(swept) },
      scales: {
        x: { time: true, range: () => [daySecs[0]!, daySecs[daySecs.length - 1]! + DAY_SEC] },
        y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
      },
      axes: axes(cssColor("--muted", "#9aa3b5"), cssColor("--line", "#2a2f3a"), "SOL", timeTicks("UTC")),
      series: [
        {},
        { label: "Swept", fill: warn, stroke: warn, paths: bars, points: { show: false } },
        { label: "Recipients' part", fill: accent, stroke: accent, paths: bars, points: { show: false } },
      ],
    },
    [
      daySecs.map((sec) => sec + DAY_SEC / 2),
      swept,
      daySecs.map((sec) => {
        const p = byDay.get(dayOf(sec));
        return p ? solForPlot(recipientsPart(p)) : 0;
      }),
    ],
    signal,
    tipText,
  );
}

/** Half the smallest comfortable tap target (24 px): how far from a bar a touch still picks it. */
const TAP_REACH_PX = 12;

/**
 * On a phone 90 days leave each day a 3 px slot: a pointer within reach of a day with fees snaps
 * to it (the nearest one), so a lone bar is as easy to tap as a 24 px button. Empty days are only
 * picked where no bar is near.
 */
function snapToBar(values: number[]): uPlot.Cursor.MousePosRefiner {
  return (u, left, top) => {
    if (left < 0) return [left, top]; // the pointer left the chart
    const xs = u.data[0];
    let best: number | null = null;
    for (const [i, v] of values.entries()) {
      if (v <= 0) continue;
      const at = u.valToPos(xs[i]!, "x");
      if (Math.abs(at - left) <= TAP_REACH_PX && (best === null || Math.abs(at - left) < Math.abs(best - left)))
        best = at;
    }
    return [best ?? left, top];
  };
}

/** The proof page's solvency over time: the treasury against what was owed, with the figures as a table. */
export function solvencyChart(signal: AbortSignal, days = 30): HTMLElement {
  const section = h(
    "section",
    { className: "chart", "aria-labelledby": "solvency-chart-title", id: "solvency-chart" },
    h("h2", { id: "solvency-chart-title" }, `Over the last ${days} days`),
    loading(),
  );
  void (async () => {
    let history: ProofHistory;
    try {
      history = await api<ProofHistory>(`/api/proof/history?days=${days}`, { signal });
    } catch (error) {
      if (!signal.aborted) section.replaceChildren(section.firstChild!, errorBox(error));
      return;
    }
    if (signal.aborted) return;
    const heading = section.firstChild!;
    const points = history.points;
    if (points.length === 0) {
      section.replaceChildren(
        heading,
        h(
          "p",
          { className: "empty" },
          "No snapshots yet. One is taken after every sweep and payout run, and at least hourly.",
        ),
      );
      return;
    }
    showSolvency(section, heading, points, days, signal);
  })();
  return section;
}

/** Fills the solvency chart's section: summary, legend, the lines' box and the figures as a table. */
function showSolvency(
  section: HTMLElement,
  heading: ChildNode,
  points: SolvencyPoint[],
  days: number,
  signal: AbortSignal,
): void {
  const short = points.filter((p) => !p.solvent);
  const lowest = points.reduce((a, b) => (BigInt(b.surplusLamports) < BigInt(a.surplusLamports) ? b : a));
  const summary =
    (short.length === 0
      ? `Solvent at all ${points.length} snapshots of the last ${days} days. `
      : `Short of what was owed at ${short.length} of ${points.length} snapshots of the last ${days} days. `) +
    `The lowest surplus was ${signedSol(lowest.surplusLamports)} SOL, at ${absoluteTime(lowest.at)}.`;
  const ok = cssColor("--ok", "#3ecf8e");
  const bad = cssColor("--bad", "#ff6b6b");
  const box = h("div", { className: "chart-box", role: "img", "aria-label": summary });
  section.replaceChildren(
    heading,
    h("p", { className: `chart-summary ${short.length ? "bad" : "muted"}` }, summary),
    legend([
      { label: "Treasury", color: ok },
      { label: "Owed to recipients", color: bad },
    ]),
    box,
    figuresDisclosure(
      table(
        ["Time", "Treasury", "Owed", "Surplus", "Solvent"],
        [...points]
          .reverse()
          .map((p) => [
            absoluteTime(p.at),
            `${lamportsToSol(p.treasuryLamports)} SOL`,
            `${lamportsToSol(p.owedLamports)} SOL`,
            `${signedSol(p.surplusLamports)} SOL`,
            p.solvent ? "yes" : "no",
          ]),
        "Solvency snapshots, newest first",
      ),
    ),
  );
  drawSolvencyLines(box, points, signal, { ok, bad });
}

function drawSolvencyLines(
  box: HTMLElement,
  points: SolvencyPoint[],
  signal: AbortSignal,
  colors: { ok: string; bad: string },
): void {
  const { ok, bad } = colors;
  mount(
    box,
    {
      legend: { show: false },
      cursor: { show: true, points: { show: false } },
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      axes: axes(cssColor("--muted", "#9aa3b5"), cssColor("--line", "#2a2f3a"), "SOL", timeTicks(undefined)),
      series: [
        {},
        { label: "Treasury", stroke: ok, width: 2, points: { show: points.length < 60, size: 5, fill: ok } },
        {
          label: "Owed",
          stroke: bad,
          width: 2,
          dash: [6, 4],
          points: { show: points.length < 60, size: 5, fill: bad },
        },
      ],
    },
    [
      points.map((p) => Date.parse(p.at) / 1000),
      points.map((p) => solForPlot(p.treasuryLamports)),
      points.map((p) => solForPlot(p.owedLamports)),
    ],
    signal,
    (index) => {
      const p = points[index];
      if (!p) return null;
      return (
        `${absoluteTime(p.at, { seconds: false })}: treasury ${lamportsToSol(p.treasuryLamports)} SOL, ` +
        `owed ${lamportsToSol(p.owedLamports)} SOL`
      );
    },
  );
}
