/**
 * Integer query parameters, parsed strictly: decimal digits only, within the route's bounds.
 * Elysia's `t.Integer` coerces with `Number()`, so `0x10`, `1e1`, `0b11` and ` 1` passed as 16,
 * 10, 3 and 1, and its document offered "string or integer" with a default of 0. The route
 * validates the raw string, the handler parses it here, and the OpenAPI document shows the integer
 * with its bounds and its real default (src/openapi.ts swaps the schema under DOCUMENT_AS in).
 */
import type { TOptional, TString } from "@sinclair/typebox";
import { t } from "elysia";
import { AppError, messageOf } from "../lib/errors";

/**
 * A schema key the OpenAPI document shows in place of the schema the route validates with: for
 * inputs whose shape the handler checks itself, so a refusal carries its own sentence.
 */
export const DOCUMENT_AS = "x-document-as";

/**
 * A schema key naming the property that tells a union's members apart: the OpenAPI document shows
 * such a union as a `oneOf` with a discriminator (src/openapi.ts), so generated clients switch on it.
 */
export const DISCRIMINATED_BY = "x-discriminated-by";

/** A string schema that validates nothing beyond "a string" and is documented as `documented`. */
export const documentedString = (documented: Record<string, unknown>) => t.String({ [DOCUMENT_AS]: documented });

export interface IntegerBounds {
  minimum: number;
  maximum: number;
  default: number;
}

export interface IntegerQuery {
  /** For the route's `query` schema. */
  schema: TOptional<TString>;
  /** The value of the raw query string, its default when absent; a 400 with the one sentence otherwise. */
  parse(raw: string | undefined): number;
  readonly bounds: IntegerBounds;
  /** The refusal's sentence, the same for every fault: not digits, too large, out of bounds. */
  readonly message: string;
}

const DIGITS = /^[0-9]{1,15}$/;

/** The decimal integer `raw` spells, or null: digits only, no sign, space, prefix or exponent. */
function strictInteger(raw: string): number | null {
  return DIGITS.test(raw) ? Number(raw) : null;
}

export function integerQuery(name: string, bounds: IntegerBounds, description?: string): IntegerQuery {
  const refusal = { name, minimum: bounds.minimum, maximum: bounds.maximum };
  const message = messageOf("QUERY_INTEGER_INVALID", refusal);
  const documented = {
    type: "integer",
    minimum: bounds.minimum,
    maximum: bounds.maximum,
    default: bounds.default,
    ...(description ? { description } : {}),
  };
  return {
    schema: t.Optional(documentedString(documented)),
    bounds,
    message,
    parse(raw) {
      if (raw === undefined) return bounds.default;
      const value = strictInteger(raw);
      if (value === null || value < bounds.minimum || value > bounds.maximum)
        throw new AppError("QUERY_INTEGER_INVALID", refusal);
      return value;
    },
  };
}

/**
 * What `looksLikeAddress` accepts (src/http/public-schemas.ts): 32 to 44 base58 characters, a
 * lowercase `l` let through so a lowercased mint is a 404, not a 400.
 */
export const ADDRESS_PATTERN = "^[1-9A-HJ-NP-Za-z]{32,44}$";
/** What `handleKey` accepts: 1 to 15 letters, digits or underscores, an optional leading '@'. */
const HANDLE_PATH_PATTERN = "^@?[A-Za-z0-9_]{1,15}$";

/**
 * Path parameters whose shape the handler checks with its own sentence ("The mint is not a base58
 * address."); the document shows the pattern a client can check before asking.
 */
export const MintParams = t.Object({
  mint: documentedString({
    type: "string",
    pattern: ADDRESS_PATTERN,
    description: "base58 token address, case-sensitive",
  }),
});
export const HandleParams = t.Object({
  handle: documentedString({
    type: "string",
    pattern: HANDLE_PATH_PATTERN,
    description: "1 to 15 letters, digits or underscores, with or without a leading @; case-insensitive",
  }),
});

/** What the repeated-parameter guard reads of a route: an entry of Elysia's `app.routes`. */
export interface RouteQuerySchema {
  method: string;
  path: string;
  hooks?: { query?: unknown };
}

/** The query parameters each route declares, by `METHOD pattern`; array parameters (none yet) may repeat. */
function declaredScalars(routes: readonly RouteQuerySchema[]): Map<string, string[]> {
  const declared = new Map<string, string[]>();
  for (const route of routes) {
    const properties = (route.hooks?.query as { properties?: Record<string, { type?: unknown }> } | undefined)
      ?.properties;
    if (!properties) continue;
    const names = Object.entries(properties)
      .filter(([, schema]) => schema?.type !== "array")
      .map(([name]) => name);
    if (names.length > 0) declared.set(`${route.method} ${route.path}`, names);
  }
  return declared;
}

/**
 * Refuses a query parameter a route takes once but is given more than once (`limit=5&limit=6`):
 * Elysia keeps the last value silently, so a client that built its query wrongly got an answer to
 * a question it may not have asked. Only the parameters the route declares count; any other
 * parameter is ignored as before (SPEC: `/api/stats` ignores any query string). The routes are
 * read on the first request, when every route is registered. Throws the 400 in the envelope.
 */
export function repeatedQueryGuard(routes: () => readonly RouteQuerySchema[]) {
  let declared: Map<string, string[]> | null = null;
  return (method: string, route: string, url: string): void => {
    const mark = url.indexOf("?");
    if (mark < 0) return;
    declared ??= declaredScalars(routes());
    // HEAD runs the GET route (Elysia answers it with the GET's handler).
    const names = declared.get(`${method === "HEAD" ? "GET" : method} ${route}`);
    if (!names) return;
    const search = new URLSearchParams(url.slice(mark + 1));
    for (const name of names) if (search.getAll(name).length > 1) throw new AppError("QUERY_REPEATED", { name });
  };
}

/** A calendar date, leap days included, years 0000 to 9999. */
const ISO_DATE =
  "(?:\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8]))" +
  "|(?:\\d\\d(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29)";

/**
 * The ISO 8601 times the time parameters take (`before`, `at`): RFC 3339's date-time with
 * seconds, up to nine fraction digits and a zone (`Z` or `±hh:mm`), as `toISOString` and
 * `nextBefore` write them. The document shows this pattern and the handlers accept exactly it.
 */
const ISO_TIME_PATTERN = `^${ISO_DATE}T(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d{1,9})?(?:Z|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)$`;
/** The longest such time: 19 characters, 10 for the fraction, 6 for the zone. */
const ISO_TIME_MAX_LENGTH = 35;
const ISO_TIME = new RegExp(ISO_TIME_PATTERN);

/** Whether `raw` is a time ISO_TIME_PATTERN describes. */
export function isIsoTime(raw: string): boolean {
  return raw.length <= ISO_TIME_MAX_LENGTH && ISO_TIME.test(raw);
}

/**
 * The instant of such a time in unix milliseconds (digits past the millisecond dropped), or null
 * when it is not one. Any year the pattern allows has its instant, those before 1970 included.
 */
export function isoTimeMs(raw: string): number | null {
  if (!isIsoTime(raw)) return null;
  const [y, mo, d, h, mi, s] = [0, 5, 8, 11, 14, 17].map((at) => Number(raw.slice(at, at + (at === 0 ? 4 : 2))));
  const fraction = /^\.(\d{1,3})/.exec(raw.slice(19));
  const ms = fraction ? Number(fraction[1]!.padEnd(3, "0")) : 0;
  const zone = /(Z|([+-])(\d\d):(\d\d))$/.exec(raw)!;
  const offsetMinutes = zone[1] === "Z" ? 0 : (zone[2] === "-" ? -1 : 1) * (Number(zone[3]) * 60 + Number(zone[4]));
  const date = new Date(0);
  // setUTCFullYear takes years 0 to 99 as they are; Date.UTC would read them as 1900 to 1999.
  date.setUTCFullYear(y!, mo! - 1, d!);
  date.setUTCHours(h!, mi!, s!, ms);
  return date.getTime() - offsetMinutes * 60_000;
}

/**
 * A time query parameter: validated by its handler (with the route's own sentence) and shown in
 * the document with the pattern and length the handler accepts.
 */
export const isoTimeQuery = (description: string) =>
  t.Optional(
    documentedString({ type: "string", pattern: ISO_TIME_PATTERN, maxLength: ISO_TIME_MAX_LENGTH, description }),
  );
