/**
 * Times as people read them: relative for scanning a list, absolute in the browser's own time zone
 * in one format everywhere ("26 Nov 2026, 16:15:14 CET"), with the UTC time one hover away.
 */
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 86_400],
  ["month", 30 * 86_400],
  ["day", 86_400],
  ["hour", 3_600],
  ["minute", 60],
  ["second", 1],
];
const rtf = new Intl.RelativeTimeFormat("en", { numeric: "auto" });

export function relativeTime(iso: string, now = Date.now()): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return "unknown";
  const seconds = Math.round((then - now) / 1000);
  if (Math.abs(seconds) < 5) return "just now";
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size || unit === "second") return rtf.format(Math.trunc(seconds / size), unit);
  }
  return "just now";
}

/** "2026-11-21 19:04:05 UTC": the same for people in every time zone (titles, exports). */
export function utcTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "unknown";
  return `${d.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

const formats = new Map<string, Intl.DateTimeFormat>();

function format(timeZone: string | undefined, seconds: boolean): Intl.DateTimeFormat {
  const key = `${timeZone ?? ""}|${seconds}`;
  let f = formats.get(key);
  if (!f) {
    // en-GB fixes the order and words ("26 Nov 2026, 16:15"); the zone is the browser's own.
    f = new Intl.DateTimeFormat("en-GB", {
      day: "numeric",
      month: "short",
      year: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      second: seconds ? "2-digit" : undefined,
      hourCycle: "h23",
      timeZoneName: "short",
      timeZone,
    });
    formats.set(key, f);
  }
  return f;
}

/** "21 Nov 2026, 20:04:05 CET": the page's one absolute format, in the browser's time zone. */
export function absoluteTime(iso: string, options: { timeZone?: string; seconds?: boolean } = {}): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "unknown";
  return format(options.timeZone, options.seconds ?? true).format(d);
}

/** "21 Nov 2026": a calendar day (the charts' UTC days) in the same words as absoluteTime. */
export function dayLabel(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(d.getTime())) return day;
  return d.toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
}

export function durationSeconds(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
  return `${Math.floor(seconds / 86_400)} d`;
}
