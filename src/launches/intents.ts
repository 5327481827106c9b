/**
 * Launch intents: the server side of one launch attempt, from prepare to confirm. The creator index
 * is allocated here (DESIGN §4): a counter in `settings` bumped in the same immediate transaction
 * that stores the intent, so two launches can never share a creator address.
 */
import type { Db } from "../../db/client";
import { immediate } from "../../db/transaction";
import { conflict } from "../http/errors";
import type { StoredDraft } from "./draft";

export const INTENT_WINDOW_MS = 10 * 60_000;
export const SETTING_NEXT_CREATOR_INDEX = "next_creator_index";

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

interface IntentRow {
  id: string;
  wallet: string;
  mint: string;
  digest: string;
  draft: string;
  creatorIndex: bigint;
  creator: string;
  status: IntentStatus;
  metadataUri: string | null;
  imageUri: string | null;
  signature: string | null;
  error: string | null;
  createdAtMs: bigint;
  expiresAtMs: bigint;
}

const SELECT = `SELECT id, wallet, mint, digest, draft, creator_index AS creatorIndex, creator, status,
  metadata_uri AS metadataUri, image_uri AS imageUri, signature, error, created_at_ms AS createdAtMs,
  expires_at_ms AS expiresAtMs FROM launch_intents`;

const fromRow = (r: IntentRow): Intent => ({
  ...r,
  draft: JSON.parse(r.draft) as StoredDraft,
  creatorIndex: Number(r.creatorIndex),
  createdAtMs: Number(r.createdAtMs),
  expiresAtMs: Number(r.expiresAtMs),
});

export function getIntent(db: Db, id: string): Intent | null {
  const row = db.$client.query(`${SELECT} WHERE id = ?`).get(id) as IntentRow | null;
  return row ? fromRow(row) : null;
}

export function intentsWhere(db: Db, where: string, ...args: (string | number)[]): Intent[] {
  return (db.$client.query(`${SELECT} WHERE ${where}`).all(...args) as IntentRow[]).map(fromRow);
}

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
    const c = db.$client;
    if (c.query("SELECT 1 FROM tokens WHERE mint = ?").get(input.mint)) {
      throw conflict("That token address is already used; generate a new one.");
    }
    const earlier = c
      .query("SELECT id, status, expires_at_ms AS expiresAtMs FROM launch_intents WHERE mint = ?")
      .get(input.mint) as { id: string; status: IntentStatus; expiresAtMs: bigint } | null;
    if (earlier) {
      const abandoned =
        earlier.status === "expired" || (earlier.status === "prepared" && Number(earlier.expiresAtMs) <= nowMs);
      // Only an intent that never got a transaction may go: one that did may still land on chain,
      // and its creator index must stay findable.
      const noTransaction = earlier.status === "prepared" || earlier.status === "expired";
      if (!(abandoned && noTransaction && !hadTransaction(db, earlier.id))) {
        throw conflict("That token address is already used; generate a new one.");
      }
      c.query("DELETE FROM launch_intents WHERE id = ?").run(earlier.id);
    }
    const index = nextCreatorIndex(db);
    c.query(
      "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    ).run(SETTING_NEXT_CREATOR_INDEX, String(index + 1));
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
    c.query(
      `INSERT INTO launch_intents (id, wallet, mint, digest, draft, creator_index, creator, status, created_at_ms, expires_at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'prepared', ?, ?)`,
    ).run(
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
  const row = db.$client.query("SELECT metadata_uri AS uri FROM launch_intents WHERE id = ?").get(id) as {
    uri: string | null;
  } | null;
  return row?.uri != null;
}

/**
 * The counter, but never below an index already in use: tokens recorded by other paths (the demo,
 * the seed) take indexes too, and a shared creator address would mix two tokens' fees.
 */
function nextCreatorIndex(db: Db): number {
  const c = db.$client;
  const setting = c.query("SELECT value FROM settings WHERE key = ?").get(SETTING_NEXT_CREATOR_INDEX) as {
    value: string;
  } | null;
  const used = c
    .query(
      `SELECT MAX(m) AS m FROM (SELECT MAX(creator_index) AS m FROM tokens UNION ALL SELECT MAX(creator_index) FROM launch_intents)`,
    )
    .get() as { m: bigint | null };
  const fromSetting = setting && /^\d+$/.test(setting.value) ? Number(setting.value) : 0;
  const afterUsed = used.m === null ? 0 : Number(used.m) + 1;
  return Math.max(fromSetting, afterUsed);
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
  const result = db.$client
    .query(`UPDATE launch_intents SET ${sets.join(", ")} WHERE id = ? AND status IN (${placeholders})`)
    .run(...args, id, ...from);
  return result.changes > 0;
}

export const PREVIEW_KEY_PREFIX = "preview:";

/** The preview made at the metadata step waits here until the token is recorded at confirm. */
export function savePreview(db: Db, intentId: string, webp: Uint8Array, nowMs: number): void {
  db.$client
    .query(
      `INSERT INTO local_objects (cid, content_type, body, created_at_ms) VALUES (?, 'image/webp', ?, ?)
       ON CONFLICT (cid) DO UPDATE SET body = excluded.body, created_at_ms = excluded.created_at_ms`,
    )
    .run(PREVIEW_KEY_PREFIX + intentId, webp, nowMs);
}

export function loadPreview(db: Db, intentId: string): Uint8Array | null {
  const row = db.$client.query("SELECT body FROM local_objects WHERE cid = ?").get(PREVIEW_KEY_PREFIX + intentId) as {
    body: Uint8Array;
  } | null;
  return row?.body ?? null;
}

export function dropPreview(db: Db, intentId: string): void {
  db.$client.query("DELETE FROM local_objects WHERE cid = ?").run(PREVIEW_KEY_PREFIX + intentId);
}
