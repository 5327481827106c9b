/**
 * The public account record of `GET /api/idp/:handle` (SPEC Account record). Keyed by handle, but
 * the money belongs to the user id the handle is pinned to: once pinned, every handle pinned to
 * that id shows the same figures, tokens and payouts; before pinning the handle shows its own
 * credits and no payouts.
 */
import type { Db } from "../../db/client";
import { accountFigures, creditsByToken, type MoneyFigures } from "../ledger/figures";
import { isoMs, isoMsOrNull } from "../http/public-schemas";
import { imageUrlOf } from "../tokens/queries";

export interface AccountToken {
  mint: string;
  name: string;
  symbol: string;
  imageUrl: string | null;
  bps: number;
  creditedLamports: string;
}

export interface Payout {
  id: number;
  lamports: string;
  wallet: string;
  kind: "claim" | "autopay";
  status: "queued" | "sent" | "confirmed" | "failed" | "replaced";
  signature: string | null;
  createdAt: string;
  confirmedAt: string | null;
}

export interface AccountRecord {
  handle: string;
  displayHandle: string;
  name: string;
  avatarUrl: string;
  followers: number;
  claimed: boolean;
  routing: "hold" | "autopay" | "burn" | null;
  declined: boolean;
  creditedLamports: string;
  paidLamports: string;
  burnedLamports: string;
  balanceLamports: string;
  tokens: AccountToken[];
  payouts: Payout[];
}

interface HandleRow {
  handle: string;
  displayHandle: string;
  name: string;
  avatarUrl: string;
  followers: bigint;
  idpUserId: string | null;
  firstSignInAtMs: bigint | null;
  routing: AccountRecord["routing"];
  declined: bigint | null;
}

interface TokenRow {
  tokenId: bigint;
  mint: string;
  name: string;
  symbol: string;
  imageUri: string | null;
  hasImage: bigint;
  bps: bigint;
}

/**
 * Figures and per-token credits of one ledger account, reused while the account has no new entry.
 * Entries are append-only, so the account's highest entry id changes with every movement of its
 * money and is an exact stamp; reading it walks the account's index entries only, where the sums
 * read every entry and its posting.
 */
const MONEY_MEMO_MAX = 20_000;
const moneyMemo = new WeakMap<Db, Map<string, { stamp: bigint; figures: MoneyFigures; credits: Map<number, bigint> }>>();

function moneyOf(db: Db, kind: "user" | "handle", ref: string): { figures: MoneyFigures; credits: Map<number, bigint> } {
  let memo = moneyMemo.get(db);
  if (!memo) moneyMemo.set(db, (memo = new Map()));
  const stamp = BigInt(
    (
      db.$client
        .query(
          `SELECT COALESCE(MAX(e.id), 0) AS top FROM ledger_entries e
            WHERE e.account_id = (SELECT id FROM ledger_accounts WHERE kind = ? AND ref = ?)`,
        )
        .get(kind, ref) as { top: bigint }
    ).top,
  );
  const key = `${kind}\u0000${ref}`;
  const hit = memo.get(key);
  if (hit && hit.stamp === stamp) return hit;
  const fresh = { stamp, figures: accountFigures(db, kind, ref), credits: creditsByToken(db, kind, ref) };
  memo.delete(key);
  memo.set(key, fresh);
  if (memo.size > MONEY_MEMO_MAX) memo.delete(memo.keys().next().value!);
  return fresh;
}

/** Every payout of a user id, newest first (SPEC Payout). */
export function payoutsOf(db: Db, idpUserId: string): Payout[] {
  const rows = db.$client
    .query(
      `SELECT id, lamports, wallet, kind, status, signature, created_at_ms AS createdAtMs, confirmed_at_ms AS confirmedAtMs
         FROM payouts WHERE idp_user_id = ? ORDER BY id DESC`,
    )
    .all(idpUserId) as {
    id: bigint; lamports: bigint; wallet: string; kind: Payout["kind"]; status: Payout["status"];
    signature: string | null; createdAtMs: bigint; confirmedAtMs: bigint | null;
  }[];
  return rows.map((p) => ({
    id: Number(p.id),
    lamports: BigInt(p.lamports).toString(),
    wallet: p.wallet,
    kind: p.kind,
    status: p.status,
    signature: p.signature,
    createdAt: isoMs(p.createdAtMs),
    confirmedAt: isoMsOrNull(p.confirmedAtMs),
  }));
}

/** The record, or null when no token launched here names the handle. */
export function accountRecord(db: Db, handle: string): AccountRecord | null {
  const c = db.$client;
  const named = c.query("SELECT 1 FROM token_recipients WHERE handle = ? LIMIT 1").get(handle);
  if (!named) return null;
  const row = c
    .query(
      `SELECT h.handle, h.display_handle AS displayHandle, h.name, h.avatar_url AS avatarUrl, h.followers,
              h.idp_user_id AS idpUserId, i.first_sign_in_at_ms AS firstSignInAtMs, i.routing, i.declined
         FROM handles h LEFT JOIN identities i ON i.idp_user_id = h.idp_user_id
        WHERE h.handle = ?`,
    )
    .get(handle) as HandleRow | null;
  // A launch always writes the handle's row; a missing one means only a bare recipient entry.
  const profile: HandleRow = row ?? {
    ...(c
      .query("SELECT handle, display_handle AS displayHandle FROM token_recipients WHERE handle = ? LIMIT 1")
      .get(handle) as { handle: string; displayHandle: string }),
    name: handle,
    avatarUrl: "",
    followers: 0n,
    idpUserId: null,
    firstSignInAtMs: null,
    routing: null,
    declined: null,
  };
  if (profile.name === "" && row) profile.name = row.displayHandle;

  const pinnedTo = profile.idpUserId;
  const { figures, credits } = pinnedTo ? moneyOf(db, "user", pinnedTo) : moneyOf(db, "handle", handle);
  const tokenRows = (
    pinnedTo
      ? c.query(
          `SELECT t.id AS tokenId, t.mint, t.name, t.symbol, t.image_uri AS imageUri,
                  EXISTS (SELECT 1 FROM token_images i WHERE i.token_id = t.id) AS hasImage, SUM(r.bps) AS bps
             FROM token_recipients r JOIN tokens t ON t.id = r.token_id
            WHERE r.handle IN (SELECT handle FROM handles WHERE idp_user_id = ?)
            GROUP BY t.id ORDER BY t.launched_at_ms DESC, t.mint DESC`,
        )
      : c.query(
          `SELECT t.id AS tokenId, t.mint, t.name, t.symbol, t.image_uri AS imageUri,
                  EXISTS (SELECT 1 FROM token_images i WHERE i.token_id = t.id) AS hasImage, r.bps
             FROM token_recipients r JOIN tokens t ON t.id = r.token_id
            WHERE r.handle = ?
            ORDER BY t.launched_at_ms DESC, t.mint DESC`,
        )
  ).all(pinnedTo ?? handle) as TokenRow[];

  const payouts = pinnedTo ? payoutsOf(db, pinnedTo) : [];

  const claimed = pinnedTo !== null && profile.firstSignInAtMs !== null;
  return {
    handle: profile.handle,
    displayHandle: profile.displayHandle,
    name: profile.name,
    avatarUrl: profile.avatarUrl,
    followers: Number(profile.followers),
    claimed,
    routing: claimed ? profile.routing : null,
    declined: claimed && Number(profile.declined ?? 0) === 1,
    creditedLamports: figures.creditedLamports.toString(),
    paidLamports: figures.paidLamports.toString(),
    burnedLamports: figures.burnedLamports.toString(),
    balanceLamports: figures.balanceLamports.toString(),
    tokens: tokenRows.map((r) => ({
      mint: r.mint,
      name: r.name,
      symbol: r.symbol,
      imageUrl: imageUrlOf(r.mint, Number(r.hasImage) === 1, r.imageUri),
      bps: Number(r.bps),
      creditedLamports: (credits.get(Number(r.tokenId)) ?? 0n).toString(),
    })),
    payouts,
  };
}
