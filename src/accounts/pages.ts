/**
 * Paging of an account's `payouts` and `tokens` (the record and `/api/me` carry the first 100;
 * an autopay account pays every few minutes, so a full list would grow without bound). Cursors
 * are keyset positions: payouts by id, tokens by (launch time, mint), both newest first, so a new
 * payout or launch never shifts a page. They are opaque to clients; a malformed one is a 400.
 */
import { integerQuery } from "../http/params";
import { AppError } from "../lib/errors";

/** Items inline in the record and per page. */
export const ACCOUNT_PAGE_SIZE = 100;

export interface TokenPosition {
  launchedAtMs: number;
  mint: string;
}

const refuse = (cause?: unknown) => new AppError("ACCOUNT_CURSOR_INVALID", {}, { cause });

export function payoutCursor(lastId: number): string {
  return Buffer.from(JSON.stringify(["p", lastId])).toString("base64url");
}

export function tokenCursor(position: TokenPosition): string {
  return Buffer.from(JSON.stringify(["t", position.launchedAtMs, position.mint])).toString("base64url");
}

function parse(cursor: string): unknown[] {
  if (cursor.length > 200 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw refuse();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch (error) {
    throw refuse(error);
  }
  if (!Array.isArray(value)) throw refuse();
  return value;
}

export function parsePayoutCursor(cursor: string): number {
  const [kind, id] = parse(cursor);
  if (kind !== "p" || typeof id !== "number" || !Number.isSafeInteger(id) || id < 1) throw refuse();
  return id;
}

export function parseTokenCursor(cursor: string): TokenPosition {
  const [kind, launchedAtMs, mint] = parse(cursor);
  if (
    kind !== "t" ||
    typeof launchedAtMs !== "number" ||
    !Number.isSafeInteger(launchedAtMs) ||
    typeof mint !== "string" ||
    !/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(mint)
  ) {
    throw refuse();
  }
  return { launchedAtMs, mint };
}

/** `limit` of the pages: 1 to 100, default 100. */
export const PAGE_LIMIT = integerQuery(
  "limit",
  { minimum: 1, maximum: ACCOUNT_PAGE_SIZE, default: ACCOUNT_PAGE_SIZE },
  "items per page",
);

export const pageLimit = (raw: string | undefined): number => PAGE_LIMIT.parse(raw);
