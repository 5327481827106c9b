/**
 * SPEC-shaped answers for the fake API the page tests run against. Amounts are chosen to catch
 * float rounding: 2^53+1 lamports, single lamports, and values with all nine decimals.
 */
import { Keypair } from "@solana/web3.js";

const BIG_LAMPORTS = "9007199254740993"; // 2^53 + 1: a float would show ...992
export const BIG_SOL = "9,007,199.254740993 SOL";

const address = (seed: number) => Keypair.fromSeed(new Uint8Array(32).fill(seed)).publicKey.toBase58();

function recipient(handle: string, bps: number, extra: Record<string, unknown> = {}) {
  return {
    handle: handle.toLowerCase(),
    displayHandle: handle,
    bps,
    name: `${handle} Name`,
    avatarUrl: "",
    claimed: true,
    routing: "hold",
    declined: false,
    creditedLamports: "1000000001",
    ...extra,
  };
}

export interface FakeToken {
  mint: string;
  name: string;
  symbol: string;
  imageUrl: string | null;
  creator: string;
  deployer: string;
  launchedAt: string;
  recipients: ReturnType<typeof recipient>[];
  platformBps: number;
  sweptLamports: string;
  vaultLamports: string;
  vaultCheckedAt: string;
  bonded: boolean;
  marketCapUsd: number | null;
  volume24hUsd: number | null;
  lastSweptAt: string | null;
}

/** 30 tokens: more than one page of 24, so Explore has to fetch the cursor. */
export function makeTokens(now: number): FakeToken[] {
  const tokens: FakeToken[] = [];
  for (let i = 0; i < 30; i++) {
    const mint = address(i + 1);
    tokens.push({
      mint,
      name: i === 0 ? "Alpha Dog" : `Token ${String(i).padStart(2, "0")}`,
      symbol: i === 0 ? "ALPHA" : `T${i}`,
      imageUrl: `/api/token-images/${mint}`,
      creator: address(100 + i),
      deployer: address(200 + i),
      launchedAt: new Date(now - i * 3_600_000).toISOString(),
      recipients:
        i === 0
          ? [
              recipient("Alice", 6000),
              recipient("bob_unclaimed", 4000, { claimed: false, routing: null, creditedLamports: "1" }),
            ]
          : [recipient(`user${i}`, 10_000)],
      platformBps: 1000,
      // Token 0 carries the big amount; the fee ranking puts Token 29 first.
      sweptLamports: i === 0 ? BIG_LAMPORTS : String(1_000_000 * i),
      vaultLamports: i === 0 ? "1" : String(123_456_789 + i),
      vaultCheckedAt: new Date(now - 90_000).toISOString(),
      bonded: i % 5 === 0,
      marketCapUsd: i === 3 ? 987_654 : i % 4 === 0 ? null : 1000 * i,
      volume24hUsd: null,
      lastSweptAt: i === 0 ? new Date(now - 120_000).toISOString() : null,
    });
  }
  return tokens;
}

export function sortTokens(tokens: FakeToken[], sort: string): FakeToken[] {
  const copy = [...tokens];
  if (sort === "fees") {
    const fees = (t: FakeToken) => BigInt(t.sweptLamports) + BigInt(t.vaultLamports);
    copy.sort((a, b) => (fees(b) > fees(a) ? 1 : fees(b) < fees(a) ? -1 : 0));
  } else if (sort === "mcap") {
    copy.sort((a, b) => (b.marketCapUsd ?? -1) - (a.marketCapUsd ?? -1));
  }
  return copy;
}

export function tokenDetail(token: FakeToken, now: number) {
  return {
    ...token,
    description: "A test token.\nSecond line <b>not bold</b>.",
    website: "https://example.com",
    twitter: null,
    telegram: "javascript:alert(1)",
    metadataUri: "https://example.com/meta.json",
    launchSignature: "5".repeat(87),
    creatorVault: address(250),
    recipients:
      token.recipients.length > 1
        ? [...token.recipients, recipient("Declined_Dan", 0, { declined: true, routing: "burn" })]
        : token.recipients,
    sweeps: [
      {
        id: 3,
        mint: token.mint,
        symbol: token.symbol,
        signature: "3".repeat(87),
        status: "sent",
        totalLamports: "0",
        platformLamports: "0",
        createdAt: new Date(now - 10_000).toISOString(),
        confirmedAt: null,
      },
      {
        id: 2,
        mint: token.mint,
        symbol: token.symbol,
        signature: "2".repeat(87),
        status: "confirmed",
        totalLamports: "5000000000",
        platformLamports: "500000001",
        createdAt: new Date(now - 120_000).toISOString(),
        confirmedAt: new Date(now - 119_000).toISOString(),
      },
      {
        id: 1,
        mint: token.mint,
        symbol: token.symbol,
        signature: "1".repeat(87),
        status: "failed",
        totalLamports: "0",
        platformLamports: "0",
        createdAt: new Date(now - 7_200_000).toISOString(),
        confirmedAt: null,
      },
    ],
  };
}

export function account(handle: string, token: FakeToken, claimed: boolean) {
  return {
    handle: handle.toLowerCase(),
    displayHandle: handle,
    name: `${handle} Name`,
    avatarUrl: "",
    followers: 1234,
    claimed,
    routing: claimed ? "hold" : null,
    declined: false,
    creditedLamports: "3000000000",
    paidLamports: claimed ? "1000000000" : "0",
    burnedLamports: "0",
    balanceLamports: claimed ? "2000000000" : "3000000000",
    tokens: [
      {
        mint: token.mint,
        name: token.name,
        symbol: token.symbol,
        imageUrl: token.imageUrl,
        bps: 6000,
        creditedLamports: "3000000000",
      },
    ],
    payouts: claimed
      ? [
          {
            id: 1,
            lamports: "1000000000",
            wallet: address(77),
            kind: "claim",
            status: "confirmed",
            signature: "4".repeat(87),
            createdAt: new Date(Date.now() - 86_400_000).toISOString(),
            confirmedAt: new Date(Date.now() - 86_300_000).toISOString(),
          },
        ]
      : [],
  };
}

export const WALLET = address(77);

export const STATS = {
  tokens: 30,
  recipients: 31,
  claimedAccounts: 5,
  sweptLamports: BIG_LAMPORTS,
  paidLamports: "1000000000",
  burnedLamports: "250000000",
  owedLamports: "2000000001",
  unclaimedLamports: "1500000000",
  launches24h: 24,
  updatedAt: new Date().toISOString(),
};

export function health(now: number) {
  // burns is broken (stale, with an error); market has no data source on this deployment.
  const jobs = ["sweep", "payouts", "burns", "launches", "market"].map((job, i) => ({
    job,
    lastRunAt: i === 4 ? null : new Date(now - 60_000).toISOString(),
    lastOkAt: i === 2 ? new Date(now - 7_200_000).toISOString() : i === 4 ? null : new Date(now - 60_000).toISOString(),
    secondsSinceOk: i === 2 ? 7200 : i === 4 ? null : 60,
    stale: i === 2 || i === 4,
    running: false,
    runs: i === 4 ? 0 : 12,
    lastError: i === 2 ? "The RPC node did not answer." : null,
    configured: i !== 4,
    nextRunAt: i === 4 ? null : new Date(now + 40_000).toISOString(),
  }));
  return { ok: false, staleAfterSec: 1800, jobs, checkedAt: new Date(now).toISOString() };
}

/** A fresh install on the local chain: every job ran once, market has nothing to do. */
export function freshHealth(now: number) {
  const report = health(now);
  report.jobs[2] = { ...report.jobs[0]!, job: "burns" };
  return { ...report, ok: true };
}

export const PROOF = {
  treasury: address(90),
  treasuryLamports: "3000000000",
  owedLamports: "2000000001",
  surplusLamports: "999999999",
  solvent: true,
  checkedAt: new Date().toISOString(),
};

/** A feed event's id as the service makes it: its time with microseconds, `bump` µs after `ms`. */
export function eventId(ms: number, bump = 0): string {
  return new Date(ms).toISOString().replace("Z", `${String(bump).padStart(3, "0")}Z`);
}

export function ledger(now: number, tokens: FakeToken[]) {
  const t = tokens[0]!;
  return [
    {
      type: "payout",
      id: eventId(now - 1_000),
      at: new Date(now - 1_000).toISOString(),
      handle: "alice",
      lamports: "1000000000",
      kind: "claim",
      status: "confirmed",
      signature: "4".repeat(87),
    },
    {
      type: "burn",
      id: eventId(now - 2_000),
      at: new Date(now - 2_000).toISOString(),
      mint: t.mint,
      symbol: t.symbol,
      signature: "6".repeat(87),
      lamports: "250000000",
      tokenAmount: "123456",
      source: "platform",
    },
    {
      type: "sweep",
      id: eventId(now - 3_000),
      at: new Date(now - 3_000).toISOString(),
      mint: t.mint,
      symbol: t.symbol,
      signature: "2".repeat(87),
      totalLamports: "5000000000",
      platformLamports: "500000001",
    },
    {
      type: "launch",
      id: eventId(now - 4_000),
      at: new Date(now - 4_000).toISOString(),
      mint: t.mint,
      symbol: t.symbol,
      signature: "5".repeat(87),
      recipients: 2,
    },
  ];
}

export const LAUNCH_CONFIG = {
  launchesOpen: true,
  platformBps: 1000,
  maxRecipients: 10,
  maxFirstBuyLamports: "5000000000",
  creatorFeeBps: 30,
  maxImageBytes: 4 * 1024 * 1024,
  handlesPinnedAtLaunch: false,
};

/** A 1x1 PNG, the smallest real image the launch form accepts. */
export const PNG = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="),
  (c) => c.charCodeAt(0),
);
