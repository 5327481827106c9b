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
export function strictInteger(raw: string): number | null {
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
export const HANDLE_PATH_PATTERN = "^@?[A-Za-z0-9_]{1,15}$";

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
