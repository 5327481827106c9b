/**
 * The public account record of `GET /api/idp/:handle` (SPEC Account record). Keyed by handle, but
 * the money belongs to the user id the handle is pinned to: once pinned, every handle pinned to
 * that id shows the same figures, tokens and payouts; before pinning the handle shows its own
 * credits and no payouts.
 */
import type { Db } from "../../db/client";
import { payouts } from "../../db/schema";
import { columnsOf, query, statement, type TableRow } from "../../db/statement";
import { accountFigures, creditsByToken } from "../ledger";
import { isoMs, isoMsOrNull } from "../http/public-schemas";
import { booksReconciling } from "../reconcile";
import { imageUrlOf } from "../tokens";
import { ACCOUNT_PAGE_SIZE, payoutCursor, tokenCursor, type TokenPosition } from "./pages";
import type { AccountRecord, AccountToken, AccountTokensPage, Payout, PayoutsPage } from "./schemas";

export type { AccountRecord, AccountToken, Payout };

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

const PAYOUT_FIELDS = [
  "id",
  "lamports",
  "wallet",
  "kind",
  "status",
  "signature",
  "createdAtMs",
  "confirmedAtMs",
] as const;
type PayoutRow = Pick<TableRow<typeof payouts>, (typeof PAYOUT_FIELDS)[number]>;
const payoutsOlderThan = statement<PayoutRow, [idpUserId: string, beforeId: number, limit: number]>(
  `SELECT ${columnsOf(payouts, { only: PAYOUT_FIELDS })}
     FROM payouts WHERE idp_user_id = ? AND id < ? ORDER BY id DESC LIMIT ?`,
);

interface TokenRow {
  tokenId: bigint;
  launchedAtMs: bigint;
  mint: string;
  name: string;
  symbol: string;
  imageUri: string | null;
  hasImage: bigint;
  bps: bigint;
}

/** Every payout of a user id, newest first (SPEC Payout); or one page of them, strictly older than `beforeId`. */
function payoutsOf(db: Db, idpUserId: string, page: { beforeId?: number | null; limit?: number } = {}): Payout[] {
  const rows = payoutsOlderThan(db).all(idpUserId, page.beforeId ?? Number.MAX_SAFE_INTEGER, page.limit ?? -1);
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

/** One page of payouts and the cursor of the next (null on the last page). */
export function payoutsPage(db: Db, idpUserId: string, beforeId: number | null, limit: number): PayoutsPage {
  const rows = payoutsOf(db, idpUserId, { beforeId, limit: limit + 1 });
  const payouts = rows.slice(0, limit);
  return { payouts, nextCursor: rows.length > limit ? payoutCursor(payouts[payouts.length - 1]!.id) : null };
}

/**
 * The statement of one token page: ?1 the user id (pinned: every handle pinned to it, bps summed)
 * or the handle, ?2 and ?3 the keyset position (bound but unused on the first page), ?4 the limit.
 */
function tokenPageSql(pinned: boolean, afterPosition: boolean): string {
  const keyset = afterPosition
    ? "(t.launched_at_ms < ?2 OR (t.launched_at_ms = ?2 AND t.mint < ?3))"
    : "(?2 IS NOT NULL AND ?3 IS NOT NULL)";
  const columns = `t.id AS tokenId, t.launched_at_ms AS launchedAtMs, t.mint, t.name, t.symbol, t.image_uri AS imageUri,
                  EXISTS (SELECT 1 FROM token_images i WHERE i.token_id = t.id) AS hasImage`;
  return pinned
    ? `SELECT ${columns}, SUM(r.bps) AS bps
             FROM token_recipients r JOIN tokens t ON t.id = r.token_id
            WHERE r.handle IN (SELECT handle FROM handles WHERE idp_user_id = ?1) AND ${keyset}
            GROUP BY t.id ORDER BY t.launched_at_ms DESC, t.mint DESC LIMIT ?4`
    : `SELECT ${columns}, r.bps
             FROM token_recipients r JOIN tokens t ON t.id = r.token_id
            WHERE r.handle = ?1 AND ${keyset}
            ORDER BY t.launched_at_ms DESC, t.mint DESC LIMIT ?4`;
}

/**
 * One page of the tokens naming an account, newest launch first: every handle pinned to the user
 * id once pinned (bps summed per token), else the handle's own, with what each token credited
 * the account.
 */
export function accountTokensPage(
  db: Db,
  owner: { idpUserId: string | null; handle: string },
  after: TokenPosition | null,
  limit: number,
  reconciling: boolean = booksReconciling(db),
): AccountTokensPage {
  const afterMs = after?.launchedAtMs ?? Number.MAX_SAFE_INTEGER;
  const afterMint = after?.mint ?? "";
  const tokenRows = query<TokenRow, [owner: string, afterMs: number, afterMint: string, limit: number]>(
    db,
    tokenPageSql(owner.idpUserId !== null, after !== null),
  ).all(owner.idpUserId ?? owner.handle, afterMs, afterMint, limit + 1);
  const page = tokenRows.slice(0, limit);
  const last = page[page.length - 1];
  // The ledger keeps a row per account and token: only this page's are read.
  const pageTokenIds = page.map((r) => Number(r.tokenId));
  const credits = owner.idpUserId
    ? creditsByToken(db, "user", owner.idpUserId, pageTokenIds)
    : creditsByToken(db, "handle", owner.handle, pageTokenIds);
  return {
    tokens: page.map((r) => ({
      mint: r.mint,
      name: r.name,
      symbol: r.symbol,
      imageUrl: imageUrlOf(r.mint, Number(r.hasImage) === 1, r.imageUri),
      bps: Number(r.bps),
      creditedLamports: reconciling ? null : (credits.get(Number(r.tokenId)) ?? 0n).toString(),
    })),
    nextCursor:
      tokenRows.length > limit && last
        ? tokenCursor({ launchedAtMs: Number(last.launchedAtMs), mint: last.mint })
        : null,
    ...reconcilingMark(reconciling),
  };
}

const handleOwner = statement<{ idpUserId: string | null }, [handle: string]>(
  "SELECT idp_user_id AS idpUserId FROM handles WHERE handle = ?",
);
const anyRecipient = statement<{ one: bigint }, [handle: string]>(
  "SELECT 1 AS one FROM token_recipients WHERE handle = ? LIMIT 1",
);
// The identity's part from its covering index (one page, not the key's and then the row's): with no
// statistics SQLite prefers the primary key, so the index is named.
const handleProfile = statement<HandleRow, [handle: string]>(
  `SELECT h.handle, h.display_handle AS displayHandle, h.name, h.avatar_url AS avatarUrl, h.followers,
          h.idp_user_id AS idpUserId, i.first_sign_in_at_ms AS firstSignInAtMs, i.routing, i.declined
     FROM handles h LEFT JOIN identities i INDEXED BY identities_recipient ON i.idp_user_id = h.idp_user_id
    WHERE h.handle = ?`,
);
const recipientName = statement<{ handle: string; displayHandle: string }, [handle: string]>(
  "SELECT handle, display_handle AS displayHandle FROM token_recipients WHERE handle = ? LIMIT 1",
);

/** The user id a handle's money belongs to (null before pinning), or undefined when no token names the handle. */
export function accountOwnerOf(db: Db, handle: string): { idpUserId: string | null; handle: string } | undefined {
  if (!isNamed(db, handle)) return undefined;
  const row = handleOwner(db).get(handle);
  return { idpUserId: row?.idpUserId ?? null, handle };
}

/** Whether a token launched here names the handle: only then does it have a record. */
function isNamed(db: Db, handle: string): boolean {
  return anyRecipient(db).get(handle) !== null;
}

/** The handle's profile and, once pinned, its identity's; a handle named only as a recipient gets a bare one. */
function profileOf(db: Db, handle: string): HandleRow {
  const row = handleProfile(db).get(handle);
  if (row) return row.name === "" ? { ...row, name: row.displayHandle } : row;
  // A launch always writes the handle's row; a missing one means only a bare recipient entry.
  const recipient = recipientName(db).get(handle);
  return {
    handle: recipient?.handle ?? handle,
    displayHandle: recipient?.displayHandle ?? handle,
    name: handle,
    avatarUrl: "",
    followers: 0n,
    idpUserId: null,
    firstSignInAtMs: null,
    routing: null,
    declined: null,
  };
}

/** The account's four figures as the reads show them: null while the books are reconciling (a restore). */
export function shownFigures(
  figures: ReturnType<typeof accountFigures>,
  reconciling: boolean,
): Pick<AccountRecord, "creditedLamports" | "paidLamports" | "burnedLamports" | "balanceLamports"> {
  const shown = (lamports: bigint) => (reconciling ? null : lamports.toString());
  return {
    creditedLamports: shown(figures.creditedLamports),
    paidLamports: shown(figures.paidLamports),
    burnedLamports: shown(figures.burnedLamports),
    balanceLamports: shown(figures.balanceLamports),
  };
}

/** `reconciling: true` while the books are reconciling, and no field at all otherwise (the usual answer is unchanged). */
export function reconcilingMark(reconciling: boolean): { reconciling?: true } {
  return reconciling ? { reconciling: true } : {};
}

/** The record, or null when no token launched here names the handle. */
export function accountRecord(db: Db, handle: string): AccountRecord | null {
  if (!isNamed(db, handle)) return null;
  const profile = profileOf(db, handle);

  const pinnedTo = profile.idpUserId;
  // Asked once per record: its figures and its tokens' credits are shown or withheld together.
  const reconciling = booksReconciling(db);
  const figures = pinnedTo ? accountFigures(db, "user", pinnedTo) : accountFigures(db, "handle", handle);
  const tokens = accountTokensPage(db, { idpUserId: pinnedTo, handle }, null, ACCOUNT_PAGE_SIZE, reconciling);
  const payouts = pinnedTo ? payoutsPage(db, pinnedTo, null, ACCOUNT_PAGE_SIZE) : { payouts: [], nextCursor: null };

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
    ...shownFigures(figures, reconciling),
    ...reconcilingMark(reconciling),
    tokens: tokens.tokens,
    payouts: payouts.payouts,
    tokensNextCursor: tokens.nextCursor,
    payoutsNextCursor: payouts.nextCursor,
  };
}
