/**
 * A handle's payouts as the ledger feed says they stand now. A `payout` event says what its payout
 * was when it was announced and never changes; each later status (sent, confirmed, failed,
 * replaced) is a `payoutStatus` event of its own. A reader folds them, oldest first, as a bot
 * following the feed does.
 */
export interface FeedPayoutEvent {
  type: string;
  handle?: string;
  payoutId?: number;
  lamports?: string;
  status?: string;
  signature?: string | null;
}

export interface PayoutNow {
  payoutId: number;
  handle: string;
  lamports: string;
  status: string;
  signature: string | null;
}

/** `events` newest first, as /api/ledger answers; the payouts newest first. */
export function payoutsNow(events: readonly FeedPayoutEvent[], handle: string): PayoutNow[] {
  const byId = new Map<number, PayoutNow>();
  for (const e of [...events].reverse()) {
    if ((e.type !== "payout" && e.type !== "payoutStatus") || e.handle !== handle || e.payoutId === undefined) continue;
    const known = byId.get(e.payoutId);
    byId.set(e.payoutId, {
      payoutId: e.payoutId,
      handle,
      lamports: e.lamports ?? known?.lamports ?? "0",
      status: e.status ?? known?.status ?? "queued",
      signature: e.signature ?? known?.signature ?? null,
    });
  }
  return [...byId.values()].sort((a, b) => b.payoutId - a.payoutId);
}
