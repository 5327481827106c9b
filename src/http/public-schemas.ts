/**
 * Schemas and formatters shared by the public reads: they feed route validation, the OpenAPI
 * document and the response tests, so a field's contract is written once.
 */
import { Type, type IntegerOptions } from "@sinclair/typebox";
import { t } from "elysia";

/**
 * A response integer. Elysia's `t.Integer` also accepts numeric strings (it is built for query
 * coercion), which would make the document promise "string or integer"; responses use the plain one.
 */
export const Int = (options?: IntegerOptions) => Type.Integer(options);

export const LamportsSchema = t.String({ pattern: "^[0-9]+$", description: "whole lamports as a decimal string" });
export const IsoTimeSchema = t.String({ format: "date-time", description: "ISO 8601, UTC" });
export const NullableIsoTime = t.Union([IsoTimeSchema, t.Null()]);
export const NullableString = t.Union([t.String(), t.Null()]);
export const NullableNumber = t.Union([t.Number(), t.Null()]);
export const ErrorSchema = t.Object({ error: t.String() }, { description: "Every error has this shape only" });

/** Error responses as documented per route; the bodies come from the app's one error handler. */
export const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, ErrorSchema])) as Record<number, typeof ErrorSchema>;

export const isoMs = (ms: number | bigint): string => new Date(Number(ms)).toISOString();
export const isoMsOrNull = (ms: number | bigint | null): string | null => (ms === null ? null : isoMs(ms));

/**
 * Base58 as a mint or wallet is written: 32 to 44 characters of the base58 alphabet. A lowercase
 * `l` is let through on purpose: lowercasing a real address can produce one, and SPEC says a
 * lowercased mint is a different address that answers 404, not a malformed one.
 */
const ADDRESS_SHAPE = /^[1-9A-HJ-NP-Za-z]{32,44}$/;
export const looksLikeAddress = (value: string): boolean => ADDRESS_SHAPE.test(value);

/** SPEC handle: 1 to 15 letters, digits or underscores, optional leading '@'; returns the lowercase key. */
export function handleKey(raw: string): string | null {
  const match = /^@?([A-Za-z0-9_]{1,15})$/.exec(raw);
  return match ? match[1]!.toLowerCase() : null;
}
