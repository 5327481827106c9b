/**
 * The public ledger feed (`GET /api/ledger`): a descending walk of feed_events by its unique
 * microsecond key, then one batched lookup per event type. `before` and `nextBefore` carry the
 * microseconds, so paging never skips or repeats, even for events sharing a millisecond.
 */
import type { Statement } from "bun:sqlite";
import type { Db } from "../../db/client";
import { isoMs } from "../http/public-schemas";

export type FeedEvent =
  | { type: "launch"; at: string; mint: string; symbol: string; signature: string; recipients: number }
  | {
      type: "sweep";
      at: string;
      mint: string;
      symbol: string;
      signature: string;
      totalLamports: string;
      platformLamports: string;
    }
  | {
      type: "payout";
      at: string;
      handle: string;
      lamports: string;
      kind: "claim" | "autopay";
      status: string;
      signature: string | null;
    }
  | {
      type: "burn";
      at: string;
      mint: string;
      symbol: string | null;
      signature: string;
      lamports: string;
      tokenAmount: string;
      source: "recipient" | "platform";
    };

export interface FeedPage {
  events: FeedEvent[];
  nextBefore: string | null;
}

/** Microseconds as ISO 8601 UTC with six fractional digits. */
export function isoMicros(atUs: number): string {
  const ms = Math.floor(atUs / 1000);
  const base = new Date(ms).toISOString().slice(0, 19);
  const fraction = String(((atUs % 1_000_000) + 1_000_000) % 1_000_000).padStart(6, "0");
  return `${base}.${fraction}Z`;
}

const BEFORE_SHAPE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/**
 * An exclusive microsecond bound from an ISO 8601 time, or null when malformed. Digits beyond the
 * microsecond round the bound up, so an event inside that microsecond is not skipped.
 */
export function parseBefore(value: string): number | null {
  const m = BEFORE_SHAPE.exec(value);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac = "", zone] = m;
  const secondsMs = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const check = new Date(secondsMs);
  if (
    !Number.isFinite(secondsMs) ||
    check.getUTCFullYear() !== Number(y) ||
    check.getUTCMonth() !== Number(mo) - 1 ||
    check.getUTCDate() !== Number(d) ||
    Number(h) > 23 ||
    Number(mi) > 59 ||
    Number(s) > 59
  ) {
    return null;
  }
  let offsetMs = 0;
  if (zone !== "Z") {
    const sign = zone!.startsWith("-") ? -1 : 1;
    const [oh, om] = zone!.slice(1).split(":").map(Number) as [number, number];
    if (oh > 23 || om > 59) return null;
    offsetMs = sign * (oh * 60 + om) * 60_000;
  }
  const digits = frac.padEnd(9, "0");
  const micros = Number(digits.slice(0, 6));
  const roundUp = Number(digits.slice(6)) > 0 ? 1 : 0;
  const us = (secondsMs - offsetMs) * 1000 + micros + roundUp;
  return Number.isSafeInteger(us) && us > 0 ? us : null;
}

const cache = new WeakMap<Db, Map<string, Statement>>();
function prepared(db: Db, sql: string): Statement {
  let map = cache.get(db);
  if (!map) cache.set(db, (map = new Map()));
  let statement = map.get(sql);
  if (!statement) map.set(sql, (statement = db.$client.prepare(sql)));
  return statement;
}

const PAGE_SQL = `SELECT f.at_us AS atUs, f.type, f.ref_id AS refId FROM feed_events f
  WHERE f.at_us < $before
    AND NOT (f.type = 'launch' AND EXISTS (SELECT 1 FROM tokens t WHERE t.id = f.ref_id AND t.hidden = 1))
  ORDER BY f.at_us DESC LIMIT $limit`;

const DETAIL_SQL = {
  launch: `SELECT t.id, t.mint, t.symbol, t.launch_signature AS signature,
      (SELECT COUNT(*) FROM token_recipients r WHERE r.token_id = t.id) AS recipients
    FROM tokens t WHERE t.id IN (SELECT value FROM json_each($ids))`,
  sweep: `SELECT s.id, t.mint, t.symbol, s.signature, s.total_lamports AS totalLamports, s.platform_lamports AS platformLamports
    FROM sweeps s JOIN tokens t ON t.id = s.token_id WHERE s.id IN (SELECT value FROM json_each($ids))`,
  payout: `SELECT p.id, i.handle, p.lamports, p.kind, p.status, p.signature
    FROM payouts p JOIN identities i ON i.idp_user_id = p.idp_user_id WHERE p.id IN (SELECT value FROM json_each($ids))`,
  burn: `SELECT b.id, b.mint, t.symbol, b.signature, b.lamports, b.token_amount AS tokenAmount, b.source
    FROM burns b LEFT JOIN tokens t ON t.mint = b.mint WHERE b.id IN (SELECT value FROM json_each($ids))`,
} as const;

export type FeedType = keyof typeof DETAIL_SQL;

/** Events strictly older than `beforeUs` (all when null), newest first. */
export function feedPage(db: Db, beforeUs: number | null, limit: number): FeedPage {
  const rows = prepared(db, PAGE_SQL).all({
    before: beforeUs ?? Number.MAX_SAFE_INTEGER,
    limit: limit + 1,
  } as never) as { atUs: bigint; type: FeedType; refId: bigint }[];
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const events = renderFeedRows(db, page).map((r) => r.event);
  const last = page[page.length - 1];
  return { events, nextBefore: more && last ? isoMicros(Number(last.atUs)) : null };
}

/**
 * The public JSON of feed rows, in the order given, with their microsecond keys; shared by the
 * feed pages and the live stream so both serve the very same event.
 */
export function renderFeedRows(
  db: Db,
  page: { atUs: bigint | number; type: FeedType; refId: bigint | number }[],
): { atUs: number; event: FeedEvent }[] {
  const idsByType = new Map<FeedType, number[]>();
  for (const row of page) {
    let ids = idsByType.get(row.type);
    if (!ids) idsByType.set(row.type, (ids = []));
    ids.push(Number(row.refId));
  }
  const details = new Map<string, Record<string, unknown>>();
  for (const [type, ids] of idsByType) {
    const found = prepared(db, DETAIL_SQL[type]).all({ ids: JSON.stringify(ids) } as never) as Record<
      string,
      unknown
    >[];
    for (const d of found) details.set(`${type}:${d.id}`, d);
  }

  const events: { atUs: number; event: FeedEvent }[] = [];
  const push = (atUs: bigint | number, event: FeedEvent) => events.push({ atUs: Number(atUs), event });
  for (const row of page) {
    const d = details.get(`${row.type}:${row.refId}`) as any;
    // The event row and its subject are written in one transaction; a missing subject is a bug
    // elsewhere, and leaving the event out keeps the page well-formed.
    if (!d) continue;
    const at = isoMs(Number(row.atUs) / 1000);
    switch (row.type) {
      case "launch":
        push(row.atUs, {
          type: "launch",
          at,
          mint: d.mint,
          symbol: d.symbol,
          signature: d.signature,
          recipients: Number(d.recipients),
        });
        break;
      case "sweep":
        push(row.atUs, {
          type: "sweep",
          at,
          mint: d.mint,
          symbol: d.symbol,
          signature: d.signature,
          totalLamports: BigInt(d.totalLamports).toString(),
          platformLamports: BigInt(d.platformLamports).toString(),
        });
        break;
      case "payout":
        push(row.atUs, {
          type: "payout",
          at,
          handle: d.handle,
          lamports: BigInt(d.lamports).toString(),
          kind: d.kind,
          status: d.status,
          signature: d.signature ?? null,
        });
        break;
      case "burn":
        push(row.atUs, {
          type: "burn",
          at,
          mint: d.mint,
          symbol: d.symbol ?? null,
          signature: d.signature,
          lamports: BigInt(d.lamports).toString(),
          tokenAmount: BigInt(d.tokenAmount).toString(),
          source: d.source,
        });
        break;
    }
  }
  return events;
}
