/**
 * A small Prometheus text-format registry: counters and histograms with labels, bounded in the
 * number of label sets so a flood of odd paths cannot grow memory (routes are labelled by their
 * pattern, never by the raw path).
 */
const MAX_SERIES = 2_000;
const LATENCY_BUCKETS_SEC = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

type Labels = Record<string, string>;

const NEEDS_ESCAPE = /[\\"\n]/;

/**
 * A label set as Prometheus spells it, names sorted. Every request counts itself under its route,
 * so this runs twice per request: built as one string, and values escaped only when they hold a
 * character that needs it (a map, a join and three replaces per label were ~10% of a memoised read).
 */
function key(labels: Labels): string {
  let out = "";
  for (const name of Object.keys(labels).sort()) {
    const value = labels[name]!;
    const escaped = NEEDS_ESCAPE.test(value)
      ? value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")
      : value;
    out += `${out === "" ? "" : ","}${name}="${escaped}"`;
  }
  return out;
}

export class Counter {
  private readonly values = new Map<string, number>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}
  inc(labels: Labels = {}, by = 1): void {
    const k = key(labels);
    if (!this.values.has(k) && this.values.size >= MAX_SERIES) return;
    this.values.set(k, (this.values.get(k) ?? 0) + by);
  }
  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const [k, v] of this.values) lines.push(`${this.name}${k ? `{${k}}` : ""} ${v}`);
    return lines.join("\n");
  }
}

export class Histogram {
  private readonly series = new Map<string, { buckets: number[]; sum: number; count: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly bounds: number[] = LATENCY_BUCKETS_SEC,
  ) {}
  observe(labels: Labels, value: number): void {
    const k = key(labels);
    let s = this.series.get(k);
    if (!s) {
      if (this.series.size >= MAX_SERIES) return;
      s = { buckets: this.bounds.map(() => 0), sum: 0, count: 0 };
      this.series.set(k, s);
    }
    for (let i = 0; i < this.bounds.length; i++) if (value <= this.bounds[i]!) s.buckets[i]! += 1;
    s.sum += value;
    s.count += 1;
  }
  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const [k, s] of this.series) {
      const prefix = k ? `${k},` : "";
      for (const [i, b] of this.bounds.entries()) lines.push(`${this.name}_bucket{${prefix}le="${b}"} ${s.buckets[i]}`);
      lines.push(`${this.name}_bucket{${prefix}le="+Inf"} ${s.count}`);
      lines.push(`${this.name}_sum${k ? `{${k}}` : ""} ${s.sum}`);
      lines.push(`${this.name}_count${k ? `{${k}}` : ""} ${s.count}`);
    }
    return lines.join("\n");
  }
}

export function gauge(name: string, help: string, samples: { labels?: Labels; value: number | bigint }[]): string {
  return sampled("gauge", name, help, samples);
}

/** A counter kept elsewhere (in the database) and rendered as it stands. */
export function counter(name: string, help: string, samples: { labels?: Labels; value: number | bigint }[]): string {
  return sampled("counter", name, help, samples);
}

function sampled(
  type: "gauge" | "counter",
  name: string,
  help: string,
  samples: { labels?: Labels; value: number | bigint }[],
): string {
  const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`];
  for (const s of samples) {
    const k = s.labels ? key(s.labels) : "";
    lines.push(`${name}${k ? `{${k}}` : ""} ${s.value.toString()}`);
  }
  return lines.join("\n");
}

export interface ServiceMetrics {
  requests: Counter;
  requestSeconds: Histogram;
  jobRuns: Counter;
  jobSeconds: Histogram;
}

export function createServiceMetrics(): ServiceMetrics {
  return {
    requests: new Counter("http_requests_total", "HTTP requests by route pattern, method and status"),
    requestSeconds: new Histogram("http_request_duration_seconds", "HTTP request latency by route pattern"),
    jobRuns: new Counter("job_runs_total", "Job runs by job and outcome"),
    jobSeconds: new Histogram("job_run_duration_seconds", "Job run duration by job"),
  };
}
