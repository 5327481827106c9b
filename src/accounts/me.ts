/**
 * `GET /api/me` (SPEC Signed-in account). Figures, tokens and payouts are the same as the public
 * account record's for the signed-in user id; the record builder is reused for the two arrays so
 * both answers always agree.
 */
import { claimsPausedReason } from "../custody";
import type { Db } from "../../db/client";
import { identities } from "../../db/schema";
import { columnsOf, statement, type TableRow } from "../../db/statement";
import type { Config } from "../config";
import { accountFigures } from "../ledger";
import { settingsInForce } from "../settings";
import { idpConfigured } from "../auth";
import { handlesOf, type Routing } from "../identity";
import { booksReconciling } from "../reconcile";
import { accountRecord, payoutsPage, reconcilingMark, shownFigures, type AccountToken, type Payout } from "./record";
import { ACCOUNT_PAGE_SIZE } from "./pages";

export interface SignedOut {
  signedIn: false;
  idpConfigured: boolean;
  devLogin: boolean;
}

export interface SignedIn extends Omit<SignedOut, "signedIn"> {
  signedIn: true;
  idpUserId: string;
  handle: string;
  displayHandle: string;
  name: string;
  avatarUrl: string;
  routing: Routing;
  payoutWallet: string | null;
  declined: boolean;
  /** the account's figures; null while the books are reconciling with the chain (after a restore) */
  creditedLamports: string | null;
  paidLamports: string | null;
  burnedLamports: string | null;
  balanceLamports: string | null;
  /** present, and true, only while the books are reconciling */
  reconciling?: true;
  handles: string[];
  tokens: AccountToken[];
  payouts: Payout[];
  /** where `GET /api/me/tokens` and `/api/me/payouts` continue; null when the list is whole */
  tokensNextCursor: string | null;
  payoutsNextCursor: string | null;
  minClaimLamports: string;
  autopayMinLamports: string;
  claimsPaused: boolean;
  /** why claims are paused, in plain words (the operator's pause, or a custody halt); null when they are not */
  claimsPausedReason: string | null;
}

export function signedOut(config: Config): SignedOut {
  return { signedIn: false, idpConfigured: idpConfigured(config), devLogin: config.devLogin };
}

const IDENTITY_FIELDS = [
  "handle",
  "displayHandle",
  "name",
  "avatarUrl",
  "routing",
  "payoutWallet",
  "declined",
] as const;
type IdentityRow = Pick<TableRow<typeof identities>, (typeof IDENTITY_FIELDS)[number]>;
const identityOf = statement<IdentityRow, [idpUserId: string]>(
  `SELECT ${columnsOf(identities, { only: IDENTITY_FIELDS })} FROM identities WHERE idp_user_id = ?`,
);

/** The signed-in answer, or the signed-out one when the identity is gone. */
export function meOf(db: Db, config: Config, idpUserId: string): SignedIn | SignedOut {
  const identity = identityOf(db).get(idpUserId);
  if (!identity) return signedOut(config);
  const handles = handlesOf(db, idpUserId);
  // The record of any handle pinned to this id covers the whole id; one named by a token has one.
  let record = null;
  for (const handle of handles) {
    record = accountRecord(db, handle);
    if (record) break;
  }
  const figures = accountFigures(db, "user", idpUserId);
  const reconciling = booksReconciling(db);
  const payouts = record
    ? { payouts: record.payouts, nextCursor: record.payoutsNextCursor }
    : payoutsPage(db, idpUserId, null, ACCOUNT_PAGE_SIZE);
  const settings = settingsInForce(db, config);
  const pausedReason = claimsPausedReason(db);
  return {
    ...signedOut(config),
    signedIn: true,
    idpUserId,
    handle: identity.handle,
    displayHandle: identity.displayHandle,
    name: identity.name,
    avatarUrl: identity.avatarUrl,
    routing: identity.routing ?? "hold",
    payoutWallet: identity.payoutWallet,
    declined: Number(identity.declined) === 1,
    ...shownFigures(figures, reconciling),
    ...reconcilingMark(reconciling),
    handles,
    tokens: record?.tokens ?? [],
    payouts: payouts.payouts,
    tokensNextCursor: record?.tokensNextCursor ?? null,
    payoutsNextCursor: payouts.nextCursor,
    minClaimLamports: settings.minClaimLamports.toString(),
    autopayMinLamports: settings.autopayMinLamports.toString(),
    claimsPaused: pausedReason !== null,
    claimsPausedReason: pausedReason,
  };
}
