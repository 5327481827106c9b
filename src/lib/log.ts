/**
 * Structured JSON logs, one line each. Errors are scrubbed (no URLs, setting names or secrets);
 * stacks go to the log only, never to a response.
 */
import { scrubErrorText } from "./scrub";

type Level = "debug" | "info" | "warn" | "error";
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };
let threshold: Level = (process.env.LOG_LEVEL as Level) in ORDER ? (process.env.LOG_LEVEL as Level) : "info";
let silent = process.env.NODE_ENV === "test";

export function setLogLevel(level: Level): void {
  threshold = level;
}
export function setLogSilent(value: boolean): void {
  silent = value;
}

/** True when a line at `level` would be written: for a hot path that would build its fields for nothing. */
export function logsAt(level: Level): boolean {
  return !silent && ORDER[level] >= ORDER[threshold];
}

function write(level: Level, message: string, fields: Record<string, unknown> = {}): void {
  if (!logsAt(level)) return;
  const out: Record<string, unknown> = { at: new Date().toISOString(), level, msg: message };
  for (const [key, value] of Object.entries(fields)) {
    if (value instanceof Error) {
      out[key] = scrubErrorText(value);
      if (value.stack && level === "error") out.stack = scrubErrorText(value.stack, 2000);
    } else if (typeof value === "bigint") out[key] = value.toString();
    else out[key] = value;
  }
  const line = JSON.stringify(out);
  if (level === "error" || level === "warn") process.stderr.write(`${line}\n`);
  else process.stdout.write(`${line}\n`);
}

export const log = {
  debug: (m: string, f?: Record<string, unknown>) => write("debug", m, f),
  info: (m: string, f?: Record<string, unknown>) => write("info", m, f),
  warn: (m: string, f?: Record<string, unknown>) => write("warn", m, f),
  error: (m: string, f?: Record<string, unknown>) => write("error", m, f),
};
