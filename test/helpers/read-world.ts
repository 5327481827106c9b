/**
 * A small, hand-built history for the public read tests, written through the same money services
 * the jobs use (never raw inserts into money tables), plus a fake chain for the reads that ask it.
 */
import type { Db } from "../../db/client";
import { recordSignIn, setRouting, type Routing } from "../../src/identity/identity";
import { completeBurnBuy, pendingBurnGroups, startBurnBuy } from "../../src/burns/service";
import type { ChainServices } from "../../src/chain/services";
import { fakeChain as fakeChainServices } from "../fakes/chain";
import type { VaultReading } from "../../src/chain/ports";
import {
  confirmPayouts,
  failPayouts,
  markPayoutsSent,
  queuePayout,
  replaceExpiredPayouts,
} from "../../src/payouts/service";
import { performAdminAction } from "../../src/admin/service";
import { confirmSweep, failSweep, recordSweepsSent } from "../../src/sweeps/service";
import { recordConfirmedLaunch } from "../../src/tokens/launch-record";
import { base58Of, rng } from "../../scripts/seed";

export const T0 = Date.UTC(2026, 0, 1);
const random = rng(42);
export const address = () => base58Of(random, 32);
const signature = () => base58Of(random, 64);

let creatorIndex = 1;

export interface LaunchOptions {
  name?: string;
  symbol?: string;
  recipients?: { handle: string; bps: number }[];
  launchedAtMs?: number;
  platformBps?: number;
  image?: boolean;
  mint?: string;
  creator?: string;
}

export function launch(db: Db, o: LaunchOptions = {}) {
  const mint = o.mint ?? address();
  const creator = o.creator ?? address();
  const launchedAtMs = o.launchedAtMs ?? T0;
  const { tokenId } = recordConfirmedLaunch(
    db,
    {
      mint,
      name: o.name ?? `Token ${mint.slice(0, 6)}`,
      symbol: o.symbol ?? mint.slice(0, 4).toUpperCase(),
      description: "a test token",
      website: null,
      twitter: "https://x.com/alice",
      telegram: null,
      metadataUri: `ipfs://meta-${mint}`,
      imageUri: `ipfs://image-${mint}`,
      creatorIndex: creatorIndex++,
      creator,
      creatorVault: address(),
      deployer: address(),
      launchSignature: signature(),
      launchedAtMs,
      platformBps: o.platformBps ?? 1000,
      recipients: o.recipients ?? [{ handle: "Alice", bps: 10_000 }],
      imageWebp: o.image ? new Uint8Array([82, 73, 70, 70, 1, 2, 3, 4, 87, 69, 66, 80]) : null,
      imageSha256: o.image ? "0".repeat(64) : null,
    },
    launchedAtMs,
  );
  return { tokenId, mint, creator, launchedAtMs };
}

const noBuyback = { platformBuybackBps: 0, platformTokenMint: null };

export function sweep(
  db: Db,
  tokenId: number,
  lamports: bigint,
  atMs: number,
  fate: "confirmed" | "failed" | "sent" = "confirmed",
  buyback: { platformBuybackBps: number; platformTokenMint: string | null } = noBuyback,
) {
  const sig = signature();
  const [sweepId] = recordSweepsSent(db, [{ tokenId, signature: sig, lastValidBlockHeight: 100n, atMs: atMs - 1000 }]);
  if (fate === "confirmed") confirmSweep(db, { sweepId: sweepId!, totalLamports: lamports, atMs, buyback });
  if (fate === "failed") failSweep(db, sweepId!, "expired");
  return { sweepId: sweepId!, signature: sig };
}

export function signIn(
  db: Db,
  idpUserId: string,
  displayHandle: string,
  atMs = T0,
  extra: { routing?: Routing; declined?: boolean } = {},
) {
  recordSignIn(
    db,
    {
      idpUserId,
      displayHandle,
      name: `${displayHandle} Name`,
      avatarUrl: `https://a.example/${displayHandle}`,
      followers: 1234,
    },
    atMs,
  );
  if (extra.routing)
    setRouting(db, idpUserId, {
      routing: extra.routing,
      payoutWallet: extra.routing === "autopay" ? address() : null,
      declined: extra.declined ?? false,
    });
}

export type PayoutFate = "queued" | "sent" | "confirmed" | "failed" | "replaced";

/** Queues a payout and walks it to `fate`; `replaced` leaves its replacement queued. */
export function payout(
  db: Db,
  idpUserId: string,
  lamports: bigint | null,
  atMs: number,
  fate: PayoutFate,
  kind: "claim" | "autopay" = "claim",
) {
  const q = queuePayout(db, { idpUserId, lamports, wallet: address(), kind, minLamports: 1n, atMs });
  if (fate === "queued") return q;
  const sig = signature();
  markPayoutsSent(db, { payoutIds: [q.payoutId], signature: sig, lastValidBlockHeight: 10n, atMs: atMs + 1 });
  if (fate === "confirmed") confirmPayouts(db, sig, atMs + 2);
  if (fate === "failed") failPayouts(db, sig, "failed on chain", atMs + 2);
  if (fate === "replaced") replaceExpiredPayouts(db, sig, atMs + 2);
  return q;
}

/** Buys and burns every pending order, one buy per mint. */
export function burnAll(db: Db, atMs: number, tokenAmount = 1_000_000n) {
  for (const group of pendingBurnGroups(db, 100)) {
    const buyId = startBurnBuy(db, { group, signature: signature(), lastValidBlockHeight: 10n, atMs });
    completeBurnBuy(db, { buyId, tokenAmount, atMs: atMs + 1 });
  }
}

const admin = { actor: "test", reason: null, nowMs: T0 };

export function setPlatformToken(db: Db, mint: string) {
  performAdminAction(db, admin, { action: "set_platform_token", mint });
}

export function setHidden(db: Db, mint: string) {
  performAdminAction(db, admin, { action: "hide_token", mint });
}

export function setMarket(db: Db, mint: string, capUsd: number | null, volumeUsd: number | null = null) {
  db.$client
    .query("UPDATE tokens SET market_cap_usd = ?, volume_24h_usd = ? WHERE mint = ?")
    .run(capUsd, volumeUsd, mint);
}

export function setVault(db: Db, mint: string, lamports: bigint, checkedAtMs: number) {
  db.$client
    .query("UPDATE tokens SET vault_lamports = ?, vault_checked_at_ms = ? WHERE mint = ?")
    .run(lamports, checkedAtMs, mint);
}

export interface FakeChainOptions {
  treasuryLamports?: bigint | (() => Promise<bigint>);
  readVaults?: (mints: string[]) => Promise<VaultReading[]>;
  creatorFeeBps?: () => Promise<number>;
}

/** Only what the public reads ask of the chain; anything else throws. */
export function fakeChain(
  o: FakeChainOptions = {},
): ChainServices & { calls: { readVaults: number; getBalances: number } } {
  const calls = { readVaults: 0, getBalances: 0 };
  const chain = fakeChainServices({
    usedBy: "public reads",
    reader: {
      async getBalances(addresses) {
        calls.getBalances++;
        const value =
          typeof o.treasuryLamports === "function" ? await o.treasuryLamports() : (o.treasuryLamports ?? 0n);
        return new Map(addresses.map((a) => [a, value]));
      },
    },
    launchProgram: {
      kind: "local",
      programId: address(),
      async readVaults(tokens) {
        calls.readVaults++;
        if (o.readVaults) return o.readVaults(tokens.map((t) => t.mint));
        return tokens.map((t) => ({
          mint: t.mint,
          curveLamports: 0n,
          poolLamports: 0n,
          creatorLamports: 0n,
          bonded: false,
        }));
      },
      creatorFeeBps: o.creatorFeeBps ?? (async () => 30),
    },
  });
  return { ...chain, calls };
}
