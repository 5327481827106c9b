/**
 * Records a confirmed launch: the token, the handles it names, its stored preview and its launch
 * event, in one transaction. The launch confirm route, the launches job, the demo and the seed all
 * come through here. Idempotent on the mint.
 */
import { AppError } from "../lib/errors";
import type { Db } from "../../db/client";
import { pinHandleAtLaunch } from "../identity";
import { appendFeedEvent } from "../ledger";
import { statement } from "../../db/statement";
import { immediate } from "../../db/transaction";

export interface LaunchRecipientInput {
  /** as given, any casing, without '@' */
  handle: string;
  bps: number;
  /** profile, when the identity provider could be asked; otherwise the handle stands in */
  name?: string | null;
  avatarUrl?: string | null;
  followers?: number | null;
  /** the X user id that held the handle at launch (IDP_APP_BEARER): the handle is pinned to it now */
  idpUserId?: string | null;
}

export interface ConfirmedLaunch {
  mint: string;
  name: string;
  symbol: string;
  description: string;
  website: string | null;
  twitter: string | null;
  telegram: string | null;
  metadataUri: string;
  imageUri: string | null;
  creatorIndex: number;
  creator: string;
  creatorVault: string;
  /** the swap venue's creator vault as the launch program derives it; null when not known */
  poolVault?: string | null;
  deployer: string;
  launchSignature: string;
  /** block time of the create transaction */
  launchedAtMs: number;
  platformBps: number;
  recipients: readonly LaunchRecipientInput[];
  imageWebp?: Uint8Array | null;
  imageSha256?: string | null;
}

/** The bound values of the token insert, in column order. */
type TokenInsert = [
  mint: string,
  name: string,
  symbol: string,
  description: string,
  website: string | null,
  twitter: string | null,
  telegram: string | null,
  metadataUri: string,
  imageUri: string | null,
  creatorIndex: number,
  creator: string,
  creatorVault: string,
  poolVault: string | null,
  deployer: string,
  launchSignature: string,
  launchedAtMs: number,
  platformBps: number,
  vaultCheckedAtMs: number,
];

export const HANDLE_PATTERN = /^[A-Za-z0-9_]{1,15}$/;

const tokenIdOfMint = statement<{ id: bigint }, [string]>("SELECT id FROM tokens WHERE mint = ?");

const insertToken = statement<{ id: bigint }, TokenInsert>(
  `INSERT INTO tokens (mint, name, symbol, description, website, twitter, telegram, metadata_uri, image_uri,
     creator_index, creator, creator_vault, pool_vault, deployer, launch_signature, launched_at_ms, platform_bps,
     swept_lamports, vault_lamports, vault_checked_at_ms, bonded, hidden)
   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?, 0, 0) RETURNING id`,
);

const insertImage = statement<never, [number, Uint8Array, string]>(
  "INSERT INTO token_images (token_id, webp, sha256) VALUES (?, ?, ?)",
);

const insertRecipient = statement<never, [number, number, string, string, number]>(
  "INSERT INTO token_recipients (token_id, position, handle, display_handle, bps) VALUES (?, ?, ?, ?, ?)",
);

const insertHandleIfNew = statement<never, [string, string, string, string, number]>(
  `INSERT INTO handles (handle, display_handle, name, avatar_url, followers) VALUES (?, ?, ?, ?, ?)
   ON CONFLICT (handle) DO NOTHING`,
);

export function recordConfirmedLaunch(
  db: Db,
  launch: ConfirmedLaunch,
  nowMs: number,
): { tokenId: number; created: boolean } {
  checkRecipients(launch.recipients);
  return immediate(db, () => {
    const existing = tokenIdOfMint(db).get(launch.mint);
    if (existing) return { tokenId: Number(existing.id), created: false };
    const row = insertToken(db).get(
      launch.mint,
      launch.name,
      launch.symbol,
      launch.description,
      launch.website,
      launch.twitter,
      launch.telegram,
      launch.metadataUri,
      launch.imageUri,
      launch.creatorIndex,
      launch.creator,
      launch.creatorVault,
      launch.poolVault ?? null,
      launch.deployer,
      launch.launchSignature,
      launch.launchedAtMs,
      launch.platformBps,
      nowMs,
    );
    if (!row) throw new AppError("INTERNAL", "the token insert returned no id");
    const tokenId = Number(row.id);
    launch.recipients.forEach((r, position) => {
      recordRecipient(db, tokenId, position, r, nowMs);
    });
    if (launch.imageWebp) {
      insertImage(db).run(tokenId, launch.imageWebp, launch.imageSha256 ?? "");
    }
    appendFeedEvent(db, "launch", tokenId, launch.launchedAtMs);
    return { tokenId, created: true };
  });
}

/** The callers checked the draft already; this guards the books against a caller that did not. */
function checkRecipients(recipients: readonly LaunchRecipientInput[]): void {
  if (recipients.length === 0) throw new AppError("LAUNCH_RECORD_NO_RECIPIENTS");
  const bpsSum = recipients.reduce((sum, r) => sum + r.bps, 0);
  if (bpsSum !== 10_000) throw new AppError("LAUNCH_RECORD_BPS_SUM");
  const seen = new Set<string>();
  for (const r of recipients) {
    if (!HANDLE_PATTERN.test(r.handle)) throw new AppError("LAUNCH_RECORD_HANDLE_INVALID");
    if (!Number.isInteger(r.bps) || r.bps <= 0) throw new AppError("LAUNCH_RECORD_BPS_INVALID");
    const key = r.handle.toLowerCase();
    if (seen.has(key)) throw new AppError("LAUNCH_RECORD_HANDLE_TWICE");
    seen.add(key);
  }
}

/** One named recipient: its row, its handle's profile (first one wins) and, with an X id, its pin. */
function recordRecipient(db: Db, tokenId: number, position: number, r: LaunchRecipientInput, nowMs: number): void {
  const handle = r.handle.toLowerCase();
  insertRecipient(db).run(tokenId, position, handle, r.handle, r.bps);
  insertHandleIfNew(db).run(handle, r.handle, r.name ?? r.handle, r.avatarUrl ?? "", r.followers ?? 0);
  if (r.idpUserId) {
    pinHandleAtLaunch(
      db,
      {
        idpUserId: r.idpUserId,
        displayHandle: r.handle,
        name: r.name ?? r.handle,
        avatarUrl: r.avatarUrl ?? "",
        followers: r.followers ?? 0,
      },
      nowMs,
    );
  }
}
