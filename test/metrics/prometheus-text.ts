/**
 * A strict checker of the Prometheus text exposition format (version 0.0.4), in place of
 * `promtool check metrics`, which is not installed here (nor any npm parser of the format). It
 * applies what promtool's parser refuses and what its linter (client_golang's promlint) reports:
 * returns every problem found, [] for a clean exposition.
 */
const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);
const FLOAT = /^(?:[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?Inf|NaN)$/;
// promlint: units other than the base ones, and their abbreviations, in a metric's name.
const NON_BASE_UNITS = [
  "milliseconds",
  "microseconds",
  "nanoseconds",
  "minutes",
  "hours",
  "days",
  "weeks",
  "kilobytes",
  "megabytes",
  "gigabytes",
  "terabytes",
  "bits",
  "percent",
];
const UNIT_ABBREVIATIONS = ["s", "ms", "us", "ns", "sec", "b", "kb", "mb", "gb", "tb", "pb", "m", "h", "d"];
const TYPE_WORDS = ["counter", "gauge", "histogram", "summary", "untyped"];

interface Family {
  type: string | null;
  help: boolean;
  samples: number;
  /** histogram: per label set (le dropped), its buckets in order, and _count */
  buckets: Map<string, { le: number; value: number }[]>;
  counts: Map<string, number>;
}

interface Sample {
  name: string;
  labels: [string, string][];
  value: string;
}

/** `name{a="x",b="y"} value [timestamp]`, or an explanation of what is wrong with it. */
function parseSample(line: string): Sample | string {
  const nameMatch = /^([^\s{]+)/.exec(line);
  if (!nameMatch) return "no metric name";
  const name = nameMatch[1]!;
  let rest = line.slice(name.length);
  const labels: [string, string][] = [];
  if (rest.startsWith("{")) {
    rest = rest.slice(1);
    while (!rest.startsWith("}")) {
      const label = /^([^=\s]+)="((?:[^"\\\n]|\\[\\"n])*)"(,?)/.exec(rest);
      if (!label) return `bad label set near ${JSON.stringify(rest.slice(0, 40))}`;
      labels.push([label[1]!, label[2]!]);
      rest = rest.slice(label[0].length);
      if (label[3] === "" && !rest.startsWith("}")) return "labels not separated by a comma";
    }
    rest = rest.slice(1);
  }
  const tail = /^ (\S+)(?: (-?\d+))?$/.exec(rest);
  if (!tail) return `bad value part ${JSON.stringify(rest)}`;
  return { name, labels, value: tail[1]! };
}

function lintName(name: string, type: string): string[] {
  const problems: string[] = [];
  if (!METRIC_NAME.test(name)) problems.push(`${name}: invalid metric name`);
  if (name.includes(":")) problems.push(`${name}: ":" is reserved for recording rules`);
  if (name !== name.toLowerCase()) problems.push(`${name}: metric names are snake_case`);
  if (type === "counter" && !name.endsWith("_total")) problems.push(`${name}: counter names end in "_total"`);
  if (type !== "counter" && name.endsWith("_total")) problems.push(`${name}: only counters end in "_total"`);
  if (type !== "histogram" && type !== "summary" && /_(?:bucket|count|sum)$/.test(name))
    problems.push(`${name}: _bucket/_count/_sum are reserved for histograms and summaries`);
  const words = name.split("_");
  for (const unit of NON_BASE_UNITS)
    if (words.includes(unit)) problems.push(`${name}: use base units (seconds, bytes), not ${unit}`);
  for (const abbreviation of UNIT_ABBREVIATIONS)
    if (words.slice(1).includes(abbreviation)) problems.push(`${name}: unit abbreviated as "${abbreviation}"`);
  for (const word of TYPE_WORDS) if (words.includes(word)) problems.push(`${name}: metric type "${word}" in its name`);
  return problems;
}

/** The family a sample belongs to: its own name, or a histogram's or summary's base name. */
function familyOf(name: string, families: Map<string, Family>): { family: string; suffix: string } {
  for (const suffix of ["_bucket", "_count", "_sum"]) {
    if (!name.endsWith(suffix)) continue;
    const base = name.slice(0, -suffix.length);
    const type = families.get(base)?.type;
    if (type === "histogram" || (type === "summary" && suffix !== "_bucket")) return { family: base, suffix };
  }
  return { family: name, suffix: "" };
}

function checkLabels(sample: Sample, type: string, suffix: string): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const [label] of sample.labels) {
    if (!LABEL_NAME.test(label)) problems.push(`${sample.name}: invalid label name ${label}`);
    if (label.startsWith("__")) problems.push(`${sample.name}: label ${label} is reserved`);
    if (label !== label.toLowerCase()) problems.push(`${sample.name}: label ${label} is not snake_case`);
    if (seen.has(label)) problems.push(`${sample.name}: label ${label} twice`);
    seen.add(label);
  }
  const hasLe = seen.has("le");
  if (type === "histogram" && suffix === "_bucket" && !hasLe) problems.push(`${sample.name}: bucket without le`);
  if (hasLe && !(type === "histogram" && suffix === "_bucket")) problems.push(`${sample.name}: le outside a bucket`);
  if (seen.has("quantile") && type !== "summary") problems.push(`${sample.name}: quantile outside a summary`);
  return problems;
}

function recordHistogram(family: Family, sample: Sample, suffix: string): void {
  const rest = sample.labels.filter(([l]) => l !== "le");
  const key = JSON.stringify(rest.sort());
  if (suffix === "_bucket") {
    const le = sample.labels.find(([l]) => l === "le")![1];
    const list = family.buckets.get(key) ?? [];
    list.push({ le: le === "+Inf" ? Number.POSITIVE_INFINITY : Number(le), value: Number(sample.value) });
    family.buckets.set(key, list);
  }
  if (suffix === "_count") family.counts.set(key, Number(sample.value));
}

function checkHistograms(name: string, family: Family): string[] {
  const problems: string[] = [];
  for (const [key, buckets] of family.buckets) {
    for (let i = 1; i < buckets.length; i++) {
      if (buckets[i]!.le <= buckets[i - 1]!.le) problems.push(`${name}${key}: buckets out of order`);
      if (buckets[i]!.value < buckets[i - 1]!.value) problems.push(`${name}${key}: buckets not cumulative`);
    }
    const last = buckets.at(-1);
    if (last?.le !== Number.POSITIVE_INFINITY) problems.push(`${name}${key}: no +Inf bucket`);
    else if (family.counts.get(key) !== last.value) problems.push(`${name}${key}: _count differs from +Inf bucket`);
  }
  return problems;
}

/** Every rule broken by `text`; [] when promtool would accept it and its linter say nothing. */
export function prometheusTextProblems(text: string): string[] {
  const problems: string[] = [];
  if (!text.endsWith("\n")) problems.push("the exposition does not end with a newline");
  const families = new Map<string, Family>();
  const series = new Set<string>();
  let current: string | null = null;
  const finished = new Set<string>();
  const enter = (name: string) => {
    if (current === name) return;
    if (current !== null) finished.add(current);
    if (finished.has(name)) problems.push(`${name}: its lines are not together`);
    current = name;
  };
  const family = (name: string): Family => {
    let f = families.get(name);
    if (!f) {
      f = { type: null, help: false, samples: 0, buckets: new Map(), counts: new Map() };
      families.set(name, f);
    }
    return f;
  };
  for (const line of text.replace(/\n$/, "").split("\n")) {
    if (line.trim() === "") {
      problems.push("blank line");
      continue;
    }
    const meta = /^# (HELP|TYPE) (\S+)(?: (.*))?$/.exec(line);
    if (meta) {
      const [, kind, name, rest] = meta as unknown as [string, "HELP" | "TYPE", string, string | undefined];
      enter(name);
      const f = family(name);
      if (f.samples > 0) problems.push(`${name}: ${kind} after its samples`);
      if (kind === "HELP") {
        if (f.help) problems.push(`${name}: second HELP`);
        if (!rest?.trim()) problems.push(`${name}: no help text`);
        f.help = true;
      } else {
        if (f.type !== null) problems.push(`${name}: second TYPE`);
        if (!rest || !TYPES.has(rest)) problems.push(`${name}: unknown type ${rest}`);
        f.type = rest ?? null;
        problems.push(...lintName(name, rest ?? ""));
      }
      continue;
    }
    if (line.startsWith("#")) continue;
    const sample = parseSample(line);
    if (typeof sample === "string") {
      problems.push(`${JSON.stringify(line)}: ${sample}`);
      continue;
    }
    const { family: name, suffix } = familyOf(sample.name, families);
    enter(name);
    const f = family(name);
    if (f.type === null) problems.push(`${sample.name}: sample without a TYPE before it`);
    if (!f.help) problems.push(`${sample.name}: sample without a HELP before it`);
    f.samples += 1;
    if (!METRIC_NAME.test(sample.name)) problems.push(`${sample.name}: invalid metric name`);
    if (!FLOAT.test(sample.value)) problems.push(`${sample.name}: value ${sample.value} is not a number`);
    problems.push(...checkLabels(sample, f.type ?? "untyped", suffix));
    const id = `${sample.name}${JSON.stringify([...sample.labels].sort())}`;
    if (series.has(id)) problems.push(`${sample.name}: duplicate series ${id}`);
    series.add(id);
    if (f.type === "histogram") recordHistogram(f, sample, suffix);
  }
  for (const [name, f] of families) if (f.type === "histogram") problems.push(...checkHistograms(name, f));
  return problems;
}
