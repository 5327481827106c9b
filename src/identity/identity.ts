/**
 * Identities and handle pins (DESIGN §3). Money belongs to the identity-provider user id; a handle
 * a token names is pinned to the id that owns it, and at the first pin everything the handle
 * accrued moves to that id in one posting.
 */
import type { Db } from "../../db/client";
import { pinHandleCredits } from "../ledger";
import { immediate } from "../../db/transaction";
import { AppError } from "../lib/errors";
import { query } from "../../db/statement";

export type Routing = "hold" | "autopay" | "burn";

/** An identity's profile columns as the inserts bind them (handle lowercase, then as spelled). */
type ProfileColumns = [
  idpUserId: string,
  handle: string,
  displayHandle: string,
  name: string,
  avatarUrl: string,
  followers: number,
];

export interface IdpProfile {
  idpUserId: string;
  /** as the provider spells it */
  displayHandle: string;
  name: string;
  avatarUrl: string;
  followers: number;
}

/** Creates or refreshes an identity; `signIn` marks a sign-in (claimed, latest handle). Call inside `immediate`. */
function upsertIdentity(db: Db, profile: IdpProfile, options: { signIn: boolean; atMs: number }): void {
  const handle = profile.displayHandle.toLowerCase();
  query<never, [...ProfileColumns, createdAtMs: number, signInAtMs: number | null]>(
    db,
    `INSERT INTO identities (idp_user_id, handle, display_handle, name, avatar_url, followers, created_at_ms,
        first_sign_in_at_ms, last_sign_in_at_ms)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)
     ON CONFLICT (idp_user_id) DO UPDATE SET
        handle = ?2, display_handle = ?3, name = ?4, avatar_url = ?5, followers = ?6,
        first_sign_in_at_ms = COALESCE(first_sign_in_at_ms, ?8),
        last_sign_in_at_ms = COALESCE(?8, last_sign_in_at_ms)`,
  ).run(
    profile.idpUserId,
    handle,
    profile.displayHandle,
    profile.name,
    profile.avatarUrl,
    profile.followers,
    options.atMs,
    options.signIn ? options.atMs : null,
  );
}

export interface PinResult {
  /** true when this call pinned a handle that was unpinned before (and moved its credits) */
  firstPin: boolean;
  /** the id the handle was pinned to before, when it changed hands */
  previousIdpUserId: string | null;
}

/**
 * Pins `handle` to `idpUserId` (call inside `immediate`, after upsertIdentity). The first pin moves
 * the handle's accrued credits to the id; a re-pin (the handle changed hands) moves nothing: what
 * the old owner was credited stays the old owner's.
 */
function pinHandle(db: Db, profile: IdpProfile, atMs: number): PinResult {
  const handle = profile.displayHandle.toLowerCase();
  const row = query<{ idpUserId: string | null }, [string]>(
    db,
    "SELECT idp_user_id AS idpUserId FROM handles WHERE handle = ?",
  ).get(handle);
  if (row?.idpUserId === profile.idpUserId) {
    query<never, [displayHandle: string, name: string, avatarUrl: string, followers: number, handle: string]>(
      db,
      "UPDATE handles SET display_handle = ?, name = ?, avatar_url = ?, followers = ? WHERE handle = ?",
    ).run(profile.displayHandle, profile.name, profile.avatarUrl, profile.followers, handle);
    return { firstPin: false, previousIdpUserId: null };
  }
  query<
    never,
    [
      handle: string,
      displayHandle: string,
      name: string,
      avatarUrl: string,
      followers: number,
      idpUserId: string,
      pinnedAtMs: number,
    ]
  >(
    db,
    `INSERT INTO handles (handle, display_handle, name, avatar_url, followers, idp_user_id, pinned_at_ms)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
     ON CONFLICT (handle) DO UPDATE SET display_handle = ?2, name = ?3, avatar_url = ?4, followers = ?5,
        idp_user_id = ?6, pinned_at_ms = ?7`,
  ).run(handle, profile.displayHandle, profile.name, profile.avatarUrl, profile.followers, profile.idpUserId, atMs);
  const firstPin = !row || row.idpUserId === null;
  if (firstPin) pinHandleCredits(db, handle, profile.idpUserId, atMs);
  return { firstPin, previousIdpUserId: row?.idpUserId ?? null };
}

/**
 * A handle named at launch, pinned to the id the provider says holds it now (DESIGN §3: earlier
 * than sign-in when the provider can be asked). The identity is created unclaimed if it is new;
 * an existing one keeps its profile and the handle it last signed in with. A handle pinned to
 * another id moves to this one for future credits (the provider says the other no longer holds
 * it); what that id was credited stays its own. Call inside `immediate`.
 */
export function pinHandleAtLaunch(db: Db, profile: IdpProfile, atMs: number): PinResult {
  query<never, [...ProfileColumns, createdAtMs: number]>(
    db,
    `INSERT INTO identities (idp_user_id, handle, display_handle, name, avatar_url, followers, created_at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (idp_user_id) DO NOTHING`,
  ).run(
    profile.idpUserId,
    profile.displayHandle.toLowerCase(),
    profile.displayHandle,
    profile.name,
    profile.avatarUrl,
    profile.followers,
    atMs,
  );
  return pinHandle(db, profile, atMs);
}

/** Sign-in bookkeeping in one transaction: the identity, then the pin of the handle it signed in with. */
export function recordSignIn(db: Db, profile: IdpProfile, atMs: number): PinResult {
  return immediate(db, () => {
    upsertIdentity(db, profile, { signIn: true, atMs });
    return pinHandle(db, profile, atMs);
  });
}

export function setRouting(
  db: Db,
  idpUserId: string,
  choice: { routing: Routing; payoutWallet: string | null; declined: boolean },
): void {
  if (choice.declined && choice.routing !== "burn") {
    throw new AppError("INTERNAL", "declining requires burn routing", { idpUserId });
  }
  immediate(db, () => {
    const result = query<never, [routing: Routing, payoutWallet: string | null, declined: number, idpUserId: string]>(
      db,
      "UPDATE identities SET routing = ?, payout_wallet = ?, declined = ? WHERE idp_user_id = ?",
    ).run(choice.routing, choice.payoutWallet, choice.declined ? 1 : 0, idpUserId);
    if (result.changes !== 1) throw new AppError("INTERNAL", "no such identity", { idpUserId });
  });
}

/** The wallet autopay pays, or null (none saved, or no such identity). */
export function payoutWalletOf(db: Db, idpUserId: string): string | null {
  const row = query<{ payoutWallet: string | null }, [string]>(
    db,
    "SELECT payout_wallet AS payoutWallet FROM identities WHERE idp_user_id = ?",
  ).get(idpUserId);
  return row?.payoutWallet ?? null;
}

// ---------------------------------------------------------------- sign-in with changed hands (DESIGN §3)

/** The handle is pinned to another id whose account still holds it (409). */
function heldElsewhere(reason: string): AppError<"HANDLE_HELD_ELSEWHERE"> {
  return new AppError("HANDLE_HELD_ELSEWHERE", { reason });
}

/** The provider could not say who holds a handle that money has gone to before (503). */
function ownerUnknown(cause: unknown): AppError<"HANDLE_OWNER_UNKNOWN"> {
  return new AppError("HANDLE_OWNER_UNKNOWN", {}, { cause });
}

/**
 * The handle an id holds on the provider now: a handle (any casing), `null` when the account no
 * longer exists. Throws when the provider cannot be asked.
 */
export type CurrentHandleLookup = (idpUserId: string) => Promise<string | null>;

/** The id a handle is pinned to, or null when unpinned (or never seen). */
export function pinnedIdOf(db: Db, handle: string): string | null {
  const row = query<{ idpUserId: string | null }, [string]>(
    db,
    "SELECT idp_user_id AS idpUserId FROM handles WHERE handle = ?",
  ).get(handle.toLowerCase());
  return row?.idpUserId ?? null;
}

/**
 * Whether money has gone to this handle before: a sweep credited it, or the account it is pinned
 * to has a payout. Then handing the handle to someone else on a guess could move real money.
 */
function handleHasBeenPaid(db: Db, handle: string): boolean {
  const key = handle.toLowerCase();
  const credited = query<{ 1: bigint }, [handle: string]>(
    db,
    `SELECT 1 FROM ledger_entries e JOIN ledger_postings p ON p.id = e.posting_id
        WHERE e.handle = ? AND p.kind = 'sweep' AND e.amount > 0 LIMIT 1`,
  ).get(key);
  if (credited) return true;
  const pinned = pinnedIdOf(db, key);
  return (
    pinned !== null &&
    query<{ 1: bigint }, [idpUserId: string]>(db, "SELECT 1 FROM payouts WHERE idp_user_id = ? LIMIT 1").get(pinned) !==
      null
  );
}

/**
 * A sign-in with the provider's profile, including a handle that changed hands: when the handle is
 * pinned to another id V, the provider is asked which handle V holds now. V still holding it is a
 * conflict (409); V holding another handle, or gone, re-pins the handle to the signing-in user for
 * future credits while what V was credited stays V's. When the provider cannot be asked and the
 * handle has been paid before, nothing changes (503). The provider is asked outside the
 * transaction; the pin is read again inside it so a concurrent change is not overwritten.
 */
export async function signInWithProfile(
  db: Db,
  profile: IdpProfile,
  atMs: number,
  currentHandleOf: CurrentHandleLookup,
): Promise<PinResult> {
  const handle = profile.displayHandle.toLowerCase();
  const pinned = pinnedIdOf(db, handle);
  if (pinned === null || pinned === profile.idpUserId) return pinIfStill(db, profile, atMs, pinned);

  let current: string | null | undefined;
  let lookupFailure: unknown;
  try {
    current = await currentHandleOf(pinned);
  } catch (error) {
    current = undefined;
    lookupFailure = error;
  }
  if (current === undefined && handleHasBeenPaid(db, handle)) throw ownerUnknown(lookupFailure);
  if (current !== undefined && current !== null && current.toLowerCase() === handle) {
    throw heldElsewhere("this handle is still held by the account it is pinned to");
  }
  return pinIfStill(db, profile, atMs, pinned);
}

/** The sign-in write, refused when the pin moved to a third id since it was read. */
function pinIfStill(db: Db, profile: IdpProfile, atMs: number, expected: string | null): PinResult {
  return immediate(db, () => {
    const now = pinnedIdOf(db, profile.displayHandle);
    if (now !== expected && now !== profile.idpUserId) {
      throw heldElsewhere("this handle was pinned to another account during sign-in");
    }
    upsertIdentity(db, profile, { signIn: true, atMs });
    return pinHandle(db, profile, atMs);
  });
}

/** Every handle pinned to an id, oldest pin first (a rename shows as two entries). */
export function handlesOf(db: Db, idpUserId: string): string[] {
  const rows = query<{ handle: string }, [string]>(
    db,
    "SELECT handle FROM handles WHERE idp_user_id = ? ORDER BY pinned_at_ms, handle",
  ).all(idpUserId);
  return rows.map((r) => r.handle);
}
