/**
 * Launch intents: the server side of one launch attempt, from prepare to confirm. The creator index
 * is allocated here (DESIGN §4): a counter in `settings` bumped in the same immediate transaction
 * that stores the intent, so two launches can never share a creator address.
 */
import type { Db } from "../../db/client";
import { launchIntents } from "../../db/schema";
import { columnsOf, query, statement, type TableRow } from "../../db/statement";
import { immediate } from "../../db/transaction";
import { AppError } from "../lib/errors";
import { NEXT_CREATOR_INDEX_KEY, readSetting, writeSetting } from "../settings";
import { highestCreatorIndex, isTokenMint } from "../tokens";
import type { StoredDraft } from "./draft";

export const INTENT_WINDOW_MS = 10 * 60_000;
const SETTING_NEXT_CREATOR_INDEX = NEXT_CREATOR_INDEX_KEY;

export type IntentStatus = "prepared" | "metadata" | "confirmed" | "failed" | "expired";

export interface Intent {
  id: string;
  wallet: string;
  mint: string;
  digest: string;
  draft: StoredDraft;
  creatorIndex: number;
  creator: string;
  status: IntentStatus;
  metadataUri: string | null;
  imageUri: string | null;
  signature: string | null;
  error: string | null;
  createdAtMs: number;
  expiresAtMs: number;
}

type IntentRow = TableRow<typeof launchIntents>;

const SELECT = `SELECT ${columnsOf(launchIntents)} FROM launch_intents`;
const intentById = statement<IntentRow, [id: string]>(`${SELECT} WHERE id = ?`);
const intentByMint = statement<IntentRow, [mint: string]>(`${SELECT} WHERE mint = ?`);
const intentsAtMetadata = statement<IntentRow, []>(`${SELECT} WHERE status = 'metadata'`);
const signedIntents = statement<IntentRow, []>(
  `${SELECT} WHERE status = 'metadata' AND signature IS NOT NULL ORDER BY created_at_ms`,
);
const unsignedIntentsBefore = statement<IntentRow, [beforeMs: number]>(
  `${SELECT} WHERE status = 'metadata' AND signature IS NULL AND expires_at_ms < ? ORDER BY created_at_ms`,
);
const expirePrepared = statement<never, [nowMs: number]>(
  "UPDATE launch_intents SET status = 'expired' WHERE status = 'prepared' AND expires_at_ms < ?",
);
const expireUnsignedIntent = statement<never, [id: string]>(
  "UPDATE launch_intents SET status = 'expired' WHERE id = ? AND status = 'metadata' AND signature IS NULL",
);
const expireMetadataIntent = statement<never, [id: string]>(
  "UPDATE launch_intents SET status = 'expired' WHERE id = ? AND status = 'metadata'",
);
const EARLIER_FIELDS = ["id", "status", "expiresAtMs"] as const;
const earlierIntent = statement<Pick<IntentRow, (typeof EARLIER_FIELDS)[number]>, [mint: string]>(
  `SELECT ${columnsOf(launchIntents, { only: EARLIER_FIELDS })} FROM launch_intents WHERE mint = ?`,
);
const deleteIntent = statement<never, [id: string]>("DELETE FROM launch_intents WHERE id = ?");
const insertIntentRow = statement<
  never,
  [
    id: string,
    wallet: string,
    mint: string,
    digest: string,
    draft: string,
    creatorIndex: number,
    creator: string,
    createdAtMs: number,
    expiresAtMs: number,
  ]
>(
  `INSERT INTO launch_intents (id, wallet, mint, digest, draft, creator_index, creator, status, created_at_ms, expires_at_ms)
   VALUES (?, ?, ?, ?, ?, ?, ?, 'prepared', ?, ?)`,
);
const intentMetadataUri = statement<{ uri: string | null }, [id: string]>(
  "SELECT metadata_uri AS uri FROM launch_intents WHERE id = ?",
);
const highestIntentCreatorIndex = statement<{ m: bigint | null }, []>(
  "SELECT MAX(creator_index) AS m FROM launch_intents",
);

const fromRow = (r: IntentRow): Intent => ({
  ...r,
  draft: JSON.parse(r.draft) as StoredDraft,
  creatorIndex: Number(r.creatorIndex),
  createdAtMs: Number(r.createdAtMs),
  expiresAtMs: Number(r.expiresAtMs),
});

export function getIntent(db: Db, id: string): Intent | null {
  const row = intentById(db).get(id);
  return row ? fromRow(row) : null;
}

/** The intent that names `mint` (one at most: the mint is unique among intents). */
export function intentForMint(db: Db, mint: string): Intent | null {
  const row = intentByMint(db).get(mint);
  return row ? fromRow(row) : null;
}

/** Intents whose create transaction was handed out and may land: what the indexer watches for. */
export function intentsAwaitingCreate(db: Db): Intent[] {
  return intentsAtMetadata(db).all().map(fromRow);
}

/** Intents waiting on a signature the page gave, oldest first: what the `launches` job settles. */
export function intentsWithSignatureToSettle(db: Db): Intent[] {
  return signedIntents(db).all().map(fromRow);
}

/** Intents handed a transaction but no signature whose landing window ended before `beforeMs`, oldest first. */
export function unsignedIntentsPastWindow(db: Db, beforeMs: number): Intent[] {
  return unsignedIntentsBefore(db).all(beforeMs).map(fromRow);
}

/**
 * Expires the intents that can no longer complete, in the caller's transaction: those that never
 * got a transaction with their window, and the unsigned ones the caller found could no longer land
 * (`unsignedIntentsPastWindow`, their mint absent on chain). Their waiting previews go too.
 * Returns how many expired.
 */
export function expireStaleIntents(db: Db, nowMs: number, unsignedIdsToExpire: readonly string[]): number {
  const prepared = expirePrepared(db).run(nowMs).changes;
  const expireUnsigned = expireUnsignedIntent(db);
  let unsigned = 0;
  for (const id of unsignedIdsToExpire) unsigned += expireUnsigned.run(id).changes;
  deleteExpiredPreviews(db).run();
  return prepared + unsigned;
}

/** Expires one intent still at the metadata step; false when it moved on meanwhile. */
export function expireIntent(db: Db, id: string): boolean {
  return expireMetadataIntent(db).run(id).changes > 0;
}

const mintUsed = () => new AppError("LAUNCH_MINT_USED");

export interface NewIntent {
  wallet: string;
  mint: string;
  digest: string;
  draft: StoredDraft;
}

/**
 * Stores a new intent with the next creator index. `creatorFor` derives the address (pure, no
 * I/O), so it may run inside the transaction. 409 when the mint is already used; an earlier intent
 * for the same mint that expired before any transaction was handed out does not count.
 */
export function insertIntent(db: Db, input: NewIntent, creatorFor: (index: number) => string, nowMs: number): Intent {
  return immediate(db, () => {
    if (isTokenMint(db, input.mint)) throw mintUsed();
    const earlier = earlierIntent(db).get(input.mint);
    if (earlier) {
      const abandoned =
        earlier.status === "expired" || (earlier.status === "prepared" && Number(earlier.expiresAtMs) <= nowMs);
      // Only an intent that never got a transaction may go: one that did may still land on chain,
      // and its creator index must stay findable.
      const noTransaction = earlier.status === "prepared" || earlier.status === "expired";
      if (!(abandoned && noTransaction && !hadTransaction(db, earlier.id))) {
        throw mintUsed();
      }
      deleteIntent(db).run(earlier.id);
    }
    const index = nextCreatorIndex(db);
    writeSetting(db, SETTING_NEXT_CREATOR_INDEX, String(index + 1));
    const intent: Intent = {
      id: crypto.randomUUID(),
      wallet: input.wallet,
      mint: input.mint,
      digest: input.digest,
      draft: input.draft,
      creatorIndex: index,
      creator: creatorFor(index),
      status: "prepared",
      metadataUri: null,
      imageUri: null,
      signature: null,
      error: null,
      createdAtMs: nowMs,
      expiresAtMs: nowMs + INTENT_WINDOW_MS,
    };
    insertIntentRow(db).run(
      intent.id,
      intent.wallet,
      intent.mint,
      intent.digest,
      JSON.stringify(intent.draft),
      index,
      intent.creator,
      nowMs,
      intent.expiresAtMs,
    );
    return intent;
  });
}

/** An intent whose metadata step ran has handed out a create transaction (metadata_uri is set then). */
function hadTransaction(db: Db, id: string): boolean {
  const row = intentMetadataUri(db).get(id);
  return row?.uri != null;
}

/**
 * The counter, but never below an index already in use: tokens recorded by other paths (the demo,
 * the seed) take indexes too, and a shared creator address would mix two tokens' fees.
 */
function nextCreatorIndex(db: Db): number {
  const setting = readSetting(db, SETTING_NEXT_CREATOR_INDEX);
  const used = highestCreatorIndexInUse(db);
  const fromSetting = setting !== null && /^\d+$/.test(setting) ? Number(setting) : 0;
  const afterUsed = used === null ? 0 : Number(used) + 1;
  return Math.max(fromSetting, afterUsed);
}

/** The highest creator index a token or an intent holds, or null when none does. */
export function highestCreatorIndexInUse(db: Db): bigint | null {
  const byIntents = highestIntentCreatorIndex(db).get()?.m ?? null;
  const byTokens = highestCreatorIndex(db);
  if (byIntents === null) return byTokens;
  return byTokens !== null && byTokens > byIntents ? byTokens : byIntents;
}

/** Moves an intent from one status to another; false when another request moved it first. */
export function transition(
  db: Db,
  id: string,
  from: readonly IntentStatus[],
  to: IntentStatus,
  fields: { metadataUri?: string; imageUri?: string | null; signature?: string | null; error?: string | null } = {},
): boolean {
  const sets = ["status = ?"];
  const args: (string | null)[] = [to];
  for (const [column, value] of [
    ["metadata_uri", fields.metadataUri],
    ["image_uri", fields.imageUri],
    ["signature", fields.signature],
    ["error", fields.error],
  ] as const) {
    if (value !== undefined) {
      sets.push(`${column} = ?`);
      args.push(value);
    }
  }
  const placeholders = from.map(() => "?").join(", ");
  const result = query<never, (string | null)[]>(
    db,
    `UPDATE launch_intents SET ${sets.join(", ")} WHERE id = ? AND status IN (${placeholders})`,
  ).run(...args, id, ...from);
  return result.changes > 0;
}

const PREVIEW_KEY_PREFIX = "preview:";

const deleteExpiredPreviews = statement<never, []>(
  `DELETE FROM local_objects WHERE cid LIKE '${PREVIEW_KEY_PREFIX}%'
     AND substr(cid, ${PREVIEW_KEY_PREFIX.length + 1}) IN (SELECT id FROM launch_intents WHERE status = 'expired')`,
);
const upsertPreview = statement<never, [cid: string, webp: Uint8Array, nowMs: number]>(
  `INSERT INTO local_objects (cid, content_type, body, created_at_ms) VALUES (?, 'image/webp', ?, ?)
   ON CONFLICT (cid) DO UPDATE SET body = excluded.body, created_at_ms = excluded.created_at_ms`,
);
const previewBody = statement<{ body: Uint8Array }, [cid: string]>("SELECT body FROM local_objects WHERE cid = ?");
const deletePreview = statement<never, [cid: string]>("DELETE FROM local_objects WHERE cid = ?");

/** The preview made at the metadata step waits here until the token is recorded at confirm. */
export function savePreview(db: Db, intentId: string, webp: Uint8Array, nowMs: number): void {
  upsertPreview(db).run(PREVIEW_KEY_PREFIX + intentId, webp, nowMs);
}

export function loadPreview(db: Db, intentId: string): Uint8Array | null {
  const row = previewBody(db).get(PREVIEW_KEY_PREFIX + intentId);
  return row?.body ?? null;
}

export function dropPreview(db: Db, intentId: string): void {
  deletePreview(db).run(PREVIEW_KEY_PREFIX + intentId);
}
