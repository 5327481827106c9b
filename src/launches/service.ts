/**
 * The launch flow (SPEC Launch routes; DESIGN §4, §5): prepare an intent, upload the image and
 * metadata with the wallet's message signature, confirm with the create transaction's signature.
 * The routes, the `launches` job and tests all call these functions; none takes an HTTP context.
 */
import { createHash } from "node:crypto";
import bs58 from "bs58";
import type { VerifiedCreate } from "../chain/ports";
import type { ChainServices } from "../chain/services";
import type { AppContext } from "../context";
import { AppError, isAppError } from "../lib/errors";
import { log } from "../lib/log";
import { recordConfirmedLaunch } from "../tokens";
import { tokenDetail } from "../tokens";
import { getLaunchesPaused } from "../settings";
import { programChangesPausing } from "../jobs";
import { buildUnsignedLaunch } from "./create-tx";
import { checkDraft, isWalletAddress, toStoredDraft, type Draft, type DraftInput } from "./draft";
import { resolveLaunchHandles } from "./handle-resolver";
import type { IdpProfile } from "../identity";
import { CONTENT_TYPES, checkImage, type ImageType, makePreview } from "./image";
import { dropPreview, getIntent, insertIntent, loadPreview, savePreview, transition, type Intent } from "./intents";
import { launchMessage, verifyWalletSignature } from "./message";
import type { ConfirmDone, ConfirmPending, IntentResponse, MetadataResponse } from "./schemas";
import { objectStoreFor } from "./storage";
import { publishLaunchObjects, refundOnFailure, releaseUploadBytes, reserveUploadBytes } from "./uploads";

/** What the metadata JSON of one launch may add to its image's bytes: a draft is a few KB at most. */
const UPLOAD_METADATA_ALLOWANCE_BYTES = 8 * 1024;

/**
 * After the window, a create transaction handed out inside it can still land for as long as its
 * blockhash lives (150 blocks, about a minute); five minutes covers that with room to spare.
 */
export const LANDING_GRACE_MS = 5 * 60_000;
/** The launch program's uri limit (PUMP.md §2). */
const URI_MAX_CHARS = 200;

const windowExpired = () => new AppError("LAUNCH_WINDOW_EXPIRED");

function requireChain(ctx: AppContext): ChainServices {
  if (!ctx.chain) throw new AppError("LAUNCHES_DISABLED");
  return ctx.chain;
}

function requireOpen(ctx: AppContext): ChainServices {
  const chain = requireChain(ctx);
  if (getLaunchesPaused(ctx.db)) throw new AppError("LAUNCHES_PAUSED");
  return chain;
}

/** The on-chain mint check is a courtesy (confirm verifies anyway): the form must not hang on it. */
const MINT_CHECK_WAIT_MS = 3_000;

async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([work, new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

const messageFor = (ctx: AppContext, i: Pick<Intent, "id" | "mint" | "wallet" | "digest" | "expiresAtMs">) =>
  launchMessage({
    site: ctx.config.publicUrl,
    intentId: i.id,
    mint: i.mint,
    wallet: i.wallet,
    digest: i.digest,
    expiresAtMs: i.expiresAtMs,
  });

// ---------------------------------------------------------------- intent

export interface IntentRequest {
  draft: DraftInput;
  wallet: string;
  mint: string;
  digest: string;
}

export type { IntentResponse, MetadataResponse };

export async function prepareLaunch(ctx: AppContext, req: IntentRequest): Promise<IntentResponse> {
  const chain = requireOpen(ctx);
  if (!isWalletAddress(req.wallet)) throw new AppError("LAUNCH_WALLET_INVALID");
  // The page generates the mint keypair; it signs the create, so it is a point on the curve too.
  if (!isWalletAddress(req.mint)) throw new AppError("LAUNCH_MINT_INVALID");
  if (req.mint === req.wallet) throw new AppError("LAUNCH_MINT_IS_WALLET");
  const digest = req.digest.toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(digest)) throw new AppError("LAUNCH_DIGEST_INVALID");
  const checked = checkDraft(req.draft, ctx.config);
  // With IDP_APP_BEARER: X says which id holds each handle now (400 for one that does not exist).
  const draft = pinnedDraft(
    checked,
    await resolveLaunchHandles(
      ctx.config,
      checked.recipients.map((r) => r.handle),
    ),
  );

  // An address already on chain can never be created again; say so now rather than at confirm.
  try {
    const existing = await withTimeout(chain.reader.getAccounts([req.mint]), MINT_CHECK_WAIT_MS);
    if (existing?.get(req.mint)) throw new AppError("LAUNCH_MINT_USED");
  } catch (error) {
    if (isAppError(error)) throw error;
    log.warn("launch: mint check skipped, chain unavailable", { error });
  }

  const intent = insertIntent(
    ctx.db,
    { wallet: req.wallet, mint: req.mint, digest, draft: toStoredDraft(draft, ctx.config.platformBps) },
    (index) => chain.creatorAddress(index).toBase58(),
    ctx.now(),
  );
  return {
    intent: intent.id,
    mint: intent.mint,
    wallet: intent.wallet,
    creator: intent.creator,
    platformBps: intent.draft.platformBps,
    message: messageFor(ctx, intent),
    expiresAt: new Date(intent.expiresAtMs).toISOString(),
  };
}

/** With X's answer, each recipient carries the id and profile that hold its handle now (pinned when the launch lands). */
function pinnedDraft(draft: Draft, profiles: Map<string, IdpProfile> | null): Draft {
  if (!profiles) return draft;
  return {
    ...draft,
    recipients: draft.recipients.map((r) => {
      const p = profiles.get(r.handle.toLowerCase())!;
      return { ...r, idpUserId: p.idpUserId, name: p.name, avatarUrl: p.avatarUrl, followers: p.followers };
    }),
  };
}

// ---------------------------------------------------------------- metadata

export interface MetadataRequest {
  intent: string;
  signature: string;
  image: Uint8Array;
  thumbnail: Uint8Array | null;
  /** the uploading client's limit key (IP, or IPv6 /64), for the daily byte allowance */
  clientKey?: string;
}

function loadOpenIntent(ctx: AppContext, id: string): Intent {
  const intent = getIntent(ctx.db, id);
  if (!intent) throw new AppError("LAUNCH_INTENT_NOT_FOUND");
  return intent;
}

export async function uploadMetadata(ctx: AppContext, req: MetadataRequest): Promise<MetadataResponse> {
  const chain = requireOpen(ctx);
  const intent = loadOpenIntent(ctx, req.intent);
  if (intent.status === "expired") throw windowExpired();
  // After a create that failed on chain the mint is still free, so a new transaction may be had.
  if (intent.status !== "prepared" && intent.status !== "metadata" && intent.status !== "failed") {
    throw new AppError("LAUNCH_PAST_METADATA");
  }
  if (ctx.now() > intent.expiresAtMs) throw windowExpired();
  if (!verifyWalletSignature(intent.wallet, messageFor(ctx, intent), req.signature)) {
    throw new AppError("LAUNCH_SIGNATURE_MISMATCH");
  }

  const maxBytes = ctx.config.maxImageBytes;
  const type = checkImage(req.image, maxBytes);
  // The thumbnail is checked like the image but never used: the stored preview is made from the
  // signed image, so it cannot show something the wallet did not sign.
  if (req.thumbnail) checkImage(req.thumbnail, maxBytes);
  const digest = createHash("sha256").update(req.image).digest("hex");
  if (digest !== intent.digest) throw new AppError("LAUNCH_IMAGE_NOT_NAMED");
  const preview = await makePreview(req.image, type);

  // A repeated upload (a lost answer, a stale blockhash) reuses what was pinned: same address, new transaction.
  const { metadataUri, imageUri } =
    intent.metadataUri && intent.imageUri
      ? { metadataUri: intent.metadataUri, imageUri: intent.imageUri }
      : await storeLaunchObjects(ctx, intent, req, type);

  const unsigned = await buildUnsignedLaunch(chain, {
    mint: intent.mint,
    creator: intent.creator,
    deployer: intent.wallet,
    name: intent.draft.name,
    symbol: intent.draft.symbol,
    uri: metadataUri,
    firstBuyLamports: BigInt(intent.draft.firstBuyLamports),
  });
  savePreview(ctx.db, intent.id, preview, ctx.now());
  if (!transition(ctx.db, intent.id, ["prepared", "metadata", "failed"], "metadata", { metadataUri, imageUri })) {
    throw new AppError("LAUNCH_PAST_METADATA");
  }
  return {
    intent: intent.id,
    mint: intent.mint,
    creator: intent.creator,
    metadataUri,
    imageUri,
    transactions: unsigned.transactions,
    lastValidBlockHeight: unsigned.lastValidBlockHeight.toString(),
    expiresAt: new Date(intent.expiresAtMs).toISOString(),
  };
}

/** Stores the image and the metadata JSON, counted against the client's daily allowance. */
async function storeLaunchObjects(
  ctx: AppContext,
  intent: Intent,
  req: MetadataRequest,
  type: ImageType,
): Promise<{ metadataUri: string; imageUri: string }> {
  const clientKey = req.clientKey ?? "unknown";
  const reservedBytes = req.image.length + UPLOAD_METADATA_ALLOWANCE_BYTES;
  reserveUploadBytes(ctx.db, clientKey, reservedBytes, ctx.config.uploadBytesPerIpDay, ctx.now());
  const store = refundOnFailure(objectStoreFor(ctx.config, ctx.db, ctx.now, intent.id), () =>
    releaseUploadBytes(ctx.db, clientKey, reservedBytes, ctx.now()),
  );
  const imageUri = (await store.putFile(req.image, CONTENT_TYPES[type], `${intent.mint}.${type}`)).uri;
  const metadataUri = (await store.putJson(launchMetadata(ctx, intent, imageUri), `${intent.mint}.json`)).uri;
  if ([...metadataUri].length > URI_MAX_CHARS) {
    log.error("launch: metadata address longer than the launch program allows", { length: metadataUri.length });
    throw new AppError("LAUNCH_METADATA_UNSTORABLE");
  }
  return { metadataUri, imageUri };
}

/** The metadata JSON wallets and explorers read; the split rides under `extensions`. */
function launchMetadata(ctx: AppContext, intent: Intent, imageUri: string) {
  const draft = intent.draft;
  return {
    name: draft.name,
    symbol: draft.symbol,
    description: draft.description,
    image: imageUri,
    showName: true,
    createdOn: new URL(ctx.config.publicUrl).origin,
    ...(draft.website ? { website: draft.website } : {}),
    ...(draft.twitter ? { twitter: draft.twitter } : {}),
    ...(draft.telegram ? { telegram: draft.telegram } : {}),
    extensions: {
      split: draft.recipients.map((r) => ({ handle: r.handle, bps: r.bps })),
      platformBps: draft.platformBps,
      creator: intent.creator,
    },
  };
}

// ---------------------------------------------------------------- confirm

export type ConfirmOutcome = { httpStatus: 202; body: ConfirmPending } | { httpStatus: 200; body: ConfirmDone };

function isTransactionSignature(value: unknown): value is string {
  if (typeof value !== "string" || !/^[1-9A-HJ-NP-Za-km-z]{64,90}$/.test(value)) return false;
  try {
    return bs58.decode(value).length === 64;
  } catch {
    return false;
  }
}

export async function confirmLaunch(
  ctx: AppContext,
  req: { intent: string; signature: string },
): Promise<ConfirmOutcome> {
  if (!isTransactionSignature(req.signature)) throw new AppError("LAUNCH_SIGNATURE_INVALID");
  const intent = loadOpenIntent(ctx, req.intent);
  const signature = req.signature;
  switch (intent.status) {
    case "prepared":
      throw new AppError("LAUNCH_UPLOAD_FIRST");
    case "expired":
      throw windowExpired();
    case "confirmed":
      if (intent.signature !== signature) throw new AppError("LAUNCH_CONFIRMED_ELSEWHERE");
      return confirmed(ctx, intent, signature);
    case "failed":
      if (intent.signature === signature) {
        return {
          httpStatus: 200,
          body: { status: "failed", intent: intent.id, signature, error: intent.error ?? "failed on chain" },
        };
      }
      // A new attempt after a failed transaction is allowed while its transaction could still land.
      if (ctx.now() > intent.expiresAtMs + LANDING_GRACE_MS) throw windowExpired();
      break;
    case "metadata":
      break;
  }
  const result = await settleIntent(ctx, requireChain(ctx), intent, signature);
  if (result.kind === "not_found" && ctx.now() > intent.expiresAtMs + LANDING_GRACE_MS) {
    throw new AppError("LAUNCH_WINDOW_EXPIRED_UNSENT");
  }
  if (result.kind === "rejected") throw new AppError("LAUNCH_TRANSACTION_REJECTED", { reason: result.reason });
  if (result.kind === "failed") {
    return { httpStatus: 200, body: { status: "failed", intent: intent.id, signature, error: result.error } };
  }
  if (result.kind === "confirmed") return confirmed(ctx, intent, signature);
  return { httpStatus: 202, body: { status: "pending", intent: intent.id, signature } };
}

function confirmed(ctx: AppContext, intent: Intent, signature: string): ConfirmOutcome {
  const record = tokenDetail(ctx.db, intent.mint);
  if (!record) throw new AppError("LAUNCH_RECORD_MISSING");
  return { httpStatus: 200, body: { status: "confirmed", intent: intent.id, signature, token: record.detail } };
}

export type SettleResult =
  | { kind: "pending" }
  | { kind: "not_found" }
  | { kind: "failed"; error: string }
  | { kind: "rejected"; reason: string }
  | { kind: "confirmed" };

/**
 * Reads the create transaction back and acts on it: records the token when it created this mint on
 * the launch program with our creator and our metadata address; marks the intent failed when it
 * failed on chain. A transaction that does something else changes nothing (it may be a mistake,
 * or somebody else's), so the real one can still be confirmed. Used by confirm and the job.
 */
export async function settleIntent(
  ctx: AppContext,
  chain: ChainServices,
  intent: Intent,
  signature: string,
): Promise<SettleResult> {
  const status = await readOnChain("signature status", () =>
    chain.reader.getSignatureStatuses([signature], true).then((s) => s.get(signature) ?? null),
  );
  if (!status) {
    remember(ctx, intent, signature);
    return { kind: "not_found" };
  }
  if (status.err === null && status.confirmationStatus !== "confirmed" && status.confirmationStatus !== "finalized") {
    remember(ctx, intent, signature);
    return { kind: "pending" };
  }
  const tx = await readOnChain("transaction", () => chain.reader.getTransaction(signature));
  if (!tx) {
    remember(ctx, intent, signature);
    return { kind: "pending" };
  }
  // Only a transaction that touches this mint may fail the launch: anything else is not ours.
  if (!tx.accountKeys.includes(intent.mint)) return { kind: "rejected", reason: "it does not involve this mint" };
  if (tx.err !== null || status.err !== null) {
    // An earlier attempt that failed while a later one created the mint (the stream or a page can
    // bring them in any order): failing the intent would leave that launch unrecorded.
    if (await mintExists(chain, intent.mint))
      return { kind: "rejected", reason: "it failed, and the mint was created by another transaction" };
    const error = `The create transaction failed on chain (${(tx.err ?? status.err ?? "error").slice(0, 200)}).`;
    transition(ctx.db, intent.id, ["metadata", "failed"], "failed", { signature, error });
    return { kind: "failed", error };
  }
  if (!intent.metadataUri) return { kind: "rejected", reason: "no metadata was uploaded" };
  // A launch program changed and no operator has looked: the create would be read by rules that
  // may no longer hold. It waits, as a create still landing does.
  if (programChangesPausing(ctx.db, "launches").length > 0) {
    remember(ctx, intent, signature);
    return { kind: "pending" };
  }
  const verdict = chain.launchProgram.verifyCreate(tx, {
    mint: intent.mint,
    creator: intent.creator,
    uri: intent.metadataUri,
  });
  if (!verdict.ok && verdict.coinRefused) {
    // The mint exists now as a coin whose fees would not reach the recipients: no later
    // transaction can create it again, so the launch ends here, saying why.
    const error = `The token was created as a coin this service does not accept (${verdict.reason}).`;
    transition(ctx.db, intent.id, ["metadata", "failed"], "failed", { signature, error });
    return { kind: "failed", error };
  }
  if (!verdict.ok) return { kind: "rejected", reason: verdict.reason };
  if (verdict.create.deployer !== intent.wallet) return { kind: "rejected", reason: "another wallet paid for it" };
  recordLaunch(ctx, chain, { ...intent, metadataUri: intent.metadataUri }, signature, verdict.create);
  return { kind: "confirmed" };
}

/** One read of the chain for settling; a failure is the caller's 502 (the page tries again). */
async function readOnChain<T>(what: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    log.warn(`launch: ${what} read failed`, { error });
    throw new AppError("LAUNCH_CHAIN_UNREACHABLE", {}, { cause: error });
  }
}

/** The verified create landed: the token is recorded and the intent, its objects and its preview are done. */
function recordLaunch(
  ctx: AppContext,
  chain: ChainServices,
  intent: Intent & { metadataUri: string },
  signature: string,
  create: VerifiedCreate,
): void {
  const draft = intent.draft;
  const preview = loadPreview(ctx.db, intent.id);
  const vaults = chain.launchProgram.vaultAddresses({ mint: intent.mint, creator: intent.creator });
  recordConfirmedLaunch(
    ctx.db,
    {
      mint: intent.mint,
      name: create.name,
      symbol: create.symbol,
      description: draft.description,
      website: draft.website,
      twitter: draft.twitter,
      telegram: draft.telegram,
      metadataUri: intent.metadataUri,
      imageUri: intent.imageUri,
      creatorIndex: intent.creatorIndex,
      creator: intent.creator,
      creatorVault: vaults.curveVault,
      poolVault: vaults.poolVault,
      deployer: create.deployer,
      launchSignature: signature,
      launchedAtMs: create.blockTime ? create.blockTime.getTime() : ctx.now(),
      platformBps: draft.platformBps,
      recipients: draft.recipients,
      imageWebp: preview,
      imageSha256: preview ? createHash("sha256").update(preview).digest("hex") : null,
    },
    ctx.now(),
  );
  transition(ctx.db, intent.id, ["metadata", "failed", "expired"], "confirmed", { signature, error: null });
  publishLaunchObjects(ctx.db, [intent.imageUri, intent.metadataUri]);
  dropPreview(ctx.db, intent.id);
}

async function mintExists(chain: ChainServices, mint: string): Promise<boolean> {
  try {
    return (await chain.reader.getAccounts([mint])).get(mint) != null;
  } catch (error) {
    log.warn("launch: mint read failed", { error });
    throw new AppError("LAUNCH_CHAIN_UNREACHABLE", {}, { cause: error });
  }
}

/** The job finishes launches whose page stopped polling, so the last signature given is kept. */
function remember(ctx: AppContext, intent: Intent, signature: string): void {
  if (intent.signature !== signature)
    transition(ctx.db, intent.id, ["metadata", "failed"], "metadata", { signature, error: null });
}
