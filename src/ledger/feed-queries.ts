/**
 * The public ledger feed (`GET /api/ledger`): a descending walk of feed_events by its unique
 * microsecond key, then one batched lookup per event type. `before` and `nextBefore` carry the
 * microseconds, so paging never skips or repeats, even for events sharing a millisecond.
 */
import type { Db } from "../../db/client";
import { statement } from "../../db/statement";
import { isoMs } from "../http/public-schemas";
import type { FeedType } from "./feed";
import type { FeedEvent, FeedPage, PayoutEvent } from "./feed-schemas";

export type { FeedEvent, FeedPage, FeedType };

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

const feedRows = statement<FeedRow, [{ before: number; limit: number }]>(
  `SELECT f.at_us AS atUs, f.type, f.ref_id AS refId FROM feed_events f
    WHERE f.at_us < $before
      AND NOT (f.type = 'launch' AND EXISTS (SELECT 1 FROM tokens t WHERE t.id = f.ref_id AND t.hidden = 1))
    ORDER BY f.at_us DESC LIMIT $limit`,
);

/** One row of feed_events: the event's microsecond key and the row of its subject. */
export interface FeedRow {
  atUs: bigint | number;
  type: FeedType;
  refId: bigint | number;
}

/** Ids as one JSON array parameter: one statement whatever the page size. */
type Ids = [{ ids: string }];

const launchDetails = statement<
  { id: bigint; mint: string; symbol: string; signature: string; recipients: bigint },
  Ids
>(
  `SELECT t.id, t.mint, t.symbol, t.launch_signature AS signature,
      (SELECT COUNT(*) FROM token_recipients r WHERE r.token_id = t.id) AS recipients
    FROM tokens t WHERE t.id IN (SELECT value FROM json_each($ids))`,
);
const sweepDetails = statement<
  { id: bigint; mint: string; symbol: string; signature: string; totalLamports: bigint; platformLamports: bigint },
  Ids
>(
  `SELECT s.id, t.mint, t.symbol, s.signature, s.total_lamports AS totalLamports, s.platform_lamports AS platformLamports
    FROM sweeps s JOIN tokens t ON t.id = s.token_id WHERE s.id IN (SELECT value FROM json_each($ids))`,
);
interface PayoutDetail {
  id: bigint;
  payoutId: bigint;
  handle: string;
  lamports: bigint;
  kind: "claim" | "autopay";
  status: PayoutEvent["status"];
  signature: string | null;
  replacementId: bigint | null;
}
// Payout events read what was fixed as they were published (payout_events), never the payout's
// status now: a `payout` event is its payout's first row, a `payoutStatus` event names its row.
const payoutDetails = statement<PayoutDetail, Ids>(
  `SELECT p.id, p.id AS payoutId, e.handle, p.lamports, p.kind, e.status, e.signature, e.replacement_id AS replacementId
    FROM payouts p JOIN payout_events e
      ON e.id = (SELECT MIN(f.id) FROM payout_events f WHERE f.payout_id = p.id)
    WHERE p.id IN (SELECT value FROM json_each($ids))`,
);
const payoutStatusDetails = statement<PayoutDetail, Ids>(
  `SELECT e.id, p.id AS payoutId, e.handle, p.lamports, p.kind, e.status, e.signature, e.replacement_id AS replacementId
    FROM payout_events e JOIN payouts p ON p.id = e.payout_id
    WHERE e.id IN (SELECT value FROM json_each($ids))`,
);
const burnDetails = statement<
  {
    id: bigint;
    mint: string;
    symbol: string | null;
    signature: string;
    lamports: bigint;
    tokenAmount: bigint;
    source: "recipient" | "platform";
  },
  Ids
>(
  `SELECT b.id, b.mint, t.symbol, b.signature, b.lamports, b.token_amount AS tokenAmount, b.source
    FROM burns b LEFT JOIN tokens t ON t.mint = b.mint WHERE b.id IN (SELECT value FROM json_each($ids))`,
);

/** An event without its id and time yet: the renderer puts them in their places (as the schema lists them). */
type Render = (id: string, at: string) => FeedEvent;

/** The subjects of one type of event, by id, each ready to render. */
function subjects(db: Db, type: FeedType, ids: number[]): Map<number, Render> {
  const param = { ids: JSON.stringify(ids) };
  const byId = new Map<number, Render>();
  switch (type) {
    case "launch":
      for (const d of launchDetails(db).all(param)) {
        byId.set(Number(d.id), (id, at) => ({
          type: "launch",
          id,
          at,
          mint: d.mint,
          symbol: d.symbol,
          signature: d.signature,
          recipients: Number(d.recipients),
        }));
      }
      break;
    case "sweep":
      for (const d of sweepDetails(db).all(param)) {
        byId.set(Number(d.id), (id, at) => ({
          type: "sweep",
          id,
          at,
          mint: d.mint,
          symbol: d.symbol,
          signature: d.signature,
          totalLamports: BigInt(d.totalLamports).toString(),
          platformLamports: BigInt(d.platformLamports).toString(),
        }));
      }
      break;
    case "payout":
      for (const d of payoutDetails(db).all(param)) {
        byId.set(Number(d.id), (id, at) => ({ type: "payout", id, at, ...payoutFields(d) }));
      }
      break;
    case "payoutStatus":
      for (const d of payoutStatusDetails(db).all(param)) {
        byId.set(Number(d.id), (id, at) => ({
          type: "payoutStatus",
          id,
          at,
          ...payoutFields(d),
          replacementPayoutId: d.replacementId === null ? null : Number(d.replacementId),
        }));
      }
      break;
    case "burn":
      for (const d of burnDetails(db).all(param)) {
        byId.set(Number(d.id), (id, at) => ({
          type: "burn",
          id,
          at,
          mint: d.mint,
          symbol: d.symbol ?? null,
          signature: d.signature,
          lamports: BigInt(d.lamports).toString(),
          tokenAmount: BigInt(d.tokenAmount).toString(),
          source: d.source,
        }));
      }
      break;
  }
  return byId;
}

function payoutFields(d: PayoutDetail) {
  return {
    payoutId: Number(d.payoutId),
    handle: d.handle,
    lamports: BigInt(d.lamports).toString(),
    kind: d.kind,
    status: d.status,
    signature: d.signature ?? null,
  };
}

/** Events strictly older than `beforeUs` (all when null), newest first. */
export function feedPage(db: Db, beforeUs: number | null, limit: number): FeedPage {
  const rows = feedRows(db).all({ before: beforeUs ?? Number.MAX_SAFE_INTEGER, limit: limit + 1 });
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
export function renderFeedRows(db: Db, page: readonly FeedRow[]): { atUs: number; event: FeedEvent }[] {
  const idsByType = new Map<FeedType, number[]>();
  for (const row of page) {
    const ids = idsByType.get(row.type);
    if (ids) ids.push(Number(row.refId));
    else idsByType.set(row.type, [Number(row.refId)]);
  }
  const byType = new Map<FeedType, Map<number, Render>>();
  for (const [type, ids] of idsByType) byType.set(type, subjects(db, type, ids));

  const events: { atUs: number; event: FeedEvent }[] = [];
  for (const row of page) {
    const render = byType.get(row.type)?.get(Number(row.refId));
    // The event row and its subject are written in one transaction; a missing subject is a bug
    // elsewhere, and leaving the event out keeps the page well-formed.
    if (!render) continue;
    const atUs = Number(row.atUs);
    events.push({ atUs, event: render(isoMicros(atUs), isoMs(atUs / 1000)) });
  }
  return events;
}
