/**
 * Fills a database with a realistic synthetic history: tokens naming 1 to 10 recipients, sweeps in
 * every state, sign-ins that pin handles (and renames that pin a second handle to the same id),
 * routings, payouts in every status, recipient burns and platform buybacks (some bought together),
 * hidden tokens, market figures and vault readings.
 *
 * Money moves only through the ledger's services (launch record, sweeps, identities, payouts,
 * burns) and moderation through the admin service, so the seeded books pass the same audit as
 * real ones. Market figures and vault readings are plain readings of outside sources (the market
 * job and the chain), written directly as those jobs would.
 *
 *   bun run seed -- --tokens 1000 [--seed 7] [--days 365] [--sweeps-per-token 10]
 *
 * writes into DATA_DIR (default ./data) and refuses a database that already has tokens.
 */
import { seededRandom } from "@fee-ledger/localnet";
import { encodeBase58 } from "@fee-ledger/localnet/address";
import { closeDatabase, openDatabase, type Db } from "../db/client";
import { recordSignIn, setRouting, type Routing } from "../src/identity";
import { completeBurnBuy, failBurnBuy, pendingBurnGroups, startBurnBuy } from "../src/burns";
import { loadConfig } from "../src/config";
import { accounts, balanceOf, verifyLedger } from "../src/ledger";
import { confirmPayouts, failPayouts, markPayoutsSent, queuePayout, replaceExpiredPayouts } from "../src/payouts";
import { confirmSweep, failSweep, recordSweepsSent } from "../src/sweeps";
import { recordConfirmedLaunch } from "../src/tokens";
import { performAdminAction } from "../src/admin";
import { markHistoryOffChain } from "../src/reconcile";

export interface SeedOptions {
  tokens: number;
  /** PRNG seed: the same seed gives the same history */
  seed?: number;
  /** the history ends here */
  nowMs?: number;
  /** and starts this many days earlier */
  days?: number;
  /** mean sweeps per token (default `defaultSweepsPerToken`: about 1M sweeps for 100k tokens) */
  sweepsPerToken?: number;
  /** progress lines on stderr */
  log?: (line: string) => void;
}

export interface SeedSummary {
  tokens: number;
  hidden: number;
  handles: number;
  sweeps: number;
  signIns: number;
  payouts: number;
  burns: number;
  feedEvents: number;
  /** a few handles, mints and names the bench and tests can query */
  samples: {
    mints: string[];
    handles: string[];
    pinnedHandles: string[];
    unpinnedHandles: string[];
    nameFragments: string[];
  };
}

/** Synthetic data draws from the local chain's seeded generator. */
export const rng = seededRandom;

export function base58Of(random: () => number, bytes: number): string {
  const buf = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i++) buf[i] = Math.floor(random() * 256);
  // A leading zero byte encodes as '1' and shortens nothing; avoid it so every address is 43-44 chars.
  if (buf[0] === 0) buf[0] = 1;
  // bs58's string is a rope of one cell per character (~1.4 KB kept per address); at 1M tokens the
  // seed keeps a mint per token and tens of thousands of deployers. The same text, built flat.
  return encodeBase58(buf);
}

/**
 * A stand-in address fixed by `subject`, drawing nothing from the seed's random sequence (so every
 * value seeded after it is what it was before the field existed).
 */
function addressFor(subject: string): string {
  const bytes = new Bun.CryptoHasher("sha256").update(subject).digest();
  if (bytes[0] === 0) bytes[0] = 1;
  return encodeBase58(bytes);
}

/**
 * A database seeded before `pool_vault` existed (migration 0013), brought to what the seed writes
 * now: each token's stand-in pool vault. Without it every detail's refresh derives both vaults, so
 * bench:api on an older seed would measure a path no newly launched token takes. Returns the
 * number of tokens filled.
 */
export function fillPoolVaults(db: Db): number {
  const c = db.$client;
  const missing = c
    .query<{ id: bigint; mint: string }, []>("SELECT id, mint FROM tokens WHERE pool_vault IS NULL")
    .all();
  const fill = c.query<never, [string, bigint]>("UPDATE tokens SET pool_vault = ? WHERE id = ?");
  c.transaction(() => {
    for (const t of missing) fill.run(addressFor(`pool-vault/${t.mint}`), t.id);
  }).immediate();
  return missing.length;
}

const WORDS = [
  "pepe",
  "doge",
  "moon",
  "frog",
  "cat",
  "based",
  "chad",
  "wojak",
  "bonk",
  "shib",
  "floki",
  "mog",
  "giga",
  "brain",
  "rocket",
  "lambo",
  "degen",
  "ape",
  "bull",
  "bear",
  "sol",
  "pump",
  "fren",
  "gm",
  "wagmi",
  "hodl",
  "banana",
  "pizza",
  "laser",
  "eyes",
  "diamond",
  "hands",
  "turbo",
  "mega",
  "ultra",
  "hyper",
  "neo",
  "retro",
  "cyber",
  "pixel",
];

/** A tiny RIFF/WEBP header: the preview route serves bytes, it does not decode them. */
const FAKE_WEBP = new Uint8Array([
  0x52, 0x49, 0x46, 0x46, 0x1a, 0, 0, 0, 0x57, 0x45, 0x42, 0x50, 0x56, 0x50, 0x38, 0x4c, 0x0d, 0, 0, 0, 0x2f, 0, 0, 0,
  0x10, 0x07, 0x10, 0x11, 0x11, 0x88, 0x88, 0xfe, 0x07, 0,
]);

/**
 * Mean sweeps per token unless told: 10 up to 100,000 tokens (~1M sweeps and ~1M feed events, the
 * history bench:api was tuned on), then fewer so the history stays ~1M sweeps. Each sweep goes
 * through the ledger's services at ~0.6 ms: 10 per token at 1M tokens would be ~10M sweeps,
 * hours of seeding and a ~18 GB file, and what a million tokens stress (the token table's sorts,
 * search, the read loop) does not need it. `--sweeps-per-token` asks for more.
 */
export function defaultSweepsPerToken(tokens: number): number {
  return tokens <= 100_000 ? 10 : (10 * 100_000) / tokens;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Runs `work` in batches inside one outer transaction each; the services' own transactions nest as savepoints. */
function batched<T>(db: Db, items: readonly T[], size: number, work: (item: T, index: number) => void): void {
  for (let start = 0; start < items.length; start += size) {
    const slice = items.slice(start, start + size);
    db.$client
      .transaction(() => {
        for (const [i, item] of slice.entries()) work(item, start + i);
      })
      .immediate();
  }
}

/** The draws and clock every phase of a seed shares; phases draw in a fixed order, so a seed repeats. */
interface Seeding {
  db: Db;
  random: () => number;
  nowMs: number;
  startMs: number;
  /** when the sign-ins start; the sweeps run on both sides of it */
  midMs: number;
  say: (line: string) => void;
  pick: <T>(list: readonly T[]) => T;
  between: (lo: number, hi: number) => number;
}

interface Seeded {
  tokenId: number;
  mint: string;
  launchedAtMs: number;
  firstHandle: string;
}

interface PlannedSweep {
  tokenId: number;
  atMs: number;
  lamports: bigint;
  fate: "confirmed" | "failed" | "sent";
}

/** Who signed in (by lowercase handle, their idp user id), and the renames among them. */
interface People {
  userOf: Map<string, string>;
  signIns: number;
  renamed: string[];
  unpinned: string[];
  renameCount: number;
}

export function seedDatabase(db: Db, options: SeedOptions): SeedSummary {
  const random = rng(options.seed ?? 7);
  const nowMs = options.nowMs ?? Date.now();
  const days = options.days ?? 365;
  const startMs = nowMs - days * DAY;
  const meanSweeps = options.sweepsPerToken ?? defaultSweepsPerToken(options.tokens);
  const t0 = performance.now();
  const s: Seeding = {
    db,
    random,
    nowMs,
    startMs,
    midMs: startMs + Math.floor((nowMs - startMs) * 0.6),
    say: (line) => options.log?.(`${line} (+${Math.round(performance.now() - t0)} ms)`),
    pick: (list) => list[Math.floor(random() * list.length)]!,
    between: (lo, hi) => lo + Math.floor(random() * (hi - lo + 1)),
  };
  const c = db.$client;
  const existing = Number(c.query<{ n: bigint }, []>("SELECT COUNT(*) AS n FROM tokens").get()?.n ?? 0n);
  if (existing > 0) throw new Error("the database already has tokens; seed an empty one");

  const { handles, popular, pickHandle, deployers } = drawHandles(s, options.tokens);
  s.say(`launching ${options.tokens} tokens`);
  const seeded: Seeded[] = [];
  const order = Array.from({ length: options.tokens }, (_, i) => i);
  batched(db, order, 2000, (i) => seeded.push(launchToken(s, i, options.tokens, pickHandle, deployers)));
  const platformToken = setPlatformToken(s, seeded);
  const buyback = { platformBuybackBps: 2000, platformTokenMint: platformToken.mint };

  const plan = planSweeps(s, seeded, platformToken, meanSweeps);
  const sweeps = { count: 0 };
  s.say(`sweeping (${plan.length} sweeps)`);
  const people = sweepAroundSignIns(s, plan, buyback, sweeps, () => signInPeople(s, handles, platformToken));
  payOut(s, people.userOf);
  s.say("burning");
  burnPending(s, nowMs - HOUR);
  const hidden = setMarketFigures(s, seeded);

  s.say("verifying the books");
  verifyLedger(db);
  // Its signatures were made up: no chain's history holds them, so the start's check of the
  // treasury's history must not wait to reach them (src/reconcile/store.ts).
  markHistoryOffChain(db);
  const count = (sql: string) => Number(c.query<{ n: bigint }, []>(sql).get()?.n ?? 0n);
  const pinnedHandles = [...people.userOf.keys()];
  const { unpinned, renameCount } = people;
  return {
    tokens: seeded.length,
    hidden,
    handles: handles.length,
    sweeps: sweeps.count,
    signIns: people.signIns,
    payouts: count("SELECT COUNT(*) AS n FROM payouts"),
    burns: count("SELECT COUNT(*) AS n FROM burns"),
    feedEvents: count("SELECT COUNT(*) AS n FROM feed_events"),
    samples: {
      mints: seeded.filter((_, i) => i % Math.max(1, Math.floor(seeded.length / 50)) === 0).map((t) => t.mint),
      handles: popular.map((h) => h.toLowerCase()),
      pinnedHandles: pinnedHandles.slice(0, 50).concat(people.renamed.slice(0, 10)),
      unpinnedHandles: unpinned.slice(renameCount, renameCount + 50).map((h) => h.toLowerCase()),
      nameFragments: WORDS.slice(0, 20),
    },
  };
}

/** The handles tokens name, the few popular ones, and the deployers' addresses. */
function drawHandles(s: Seeding, tokens: number) {
  const { random, pick, between } = s;
  const handleCount = Math.max(4, Math.ceil(tokens * 0.6));
  const handles: string[] = [];
  const seenHandles = new Set<string>();
  while (handles.length < handleCount) {
    const base = `${pick(WORDS)}${pick(["", "_", "x", "Fan", "Dev", "Guy", "Maxi"])}${between(0, 99_999)}`.slice(0, 15);
    const display = random() < 0.4 ? base[0]!.toUpperCase() + base.slice(1) : base;
    if (seenHandles.has(display.toLowerCase())) continue;
    seenHandles.add(display.toLowerCase());
    handles.push(display);
  }
  // A few handles are named on many tokens (the active creators), most on one or two.
  const popular = handles.slice(0, Math.max(2, Math.ceil(handleCount * 0.02)));
  const pickHandle = () => (random() < 0.3 ? pick(popular) : pick(handles));
  const deployers = Array.from({ length: Math.max(2, Math.ceil(tokens / 20)) }, () => base58Of(random, 32));
  return { handles, popular, pickHandle, deployers };
}

/** The recipients a token names (1 to 10, distinct), their shares summing to 10,000 bps. */
function drawRecipients(s: Seeding, pickHandle: () => string): { handle: string; bps: number }[] {
  const { random, between } = s;
  const n = random() < 0.5 ? 1 : random() < 0.6 ? between(2, 3) : between(4, 10);
  const named = new Set<string>();
  const recipients: { handle: string; bps: number }[] = [];
  while (recipients.length < n) {
    const h = pickHandle();
    if (named.has(h.toLowerCase())) continue;
    named.add(h.toLowerCase());
    recipients.push({ handle: h, bps: 0 });
  }
  let left = 10_000;
  recipients.forEach((r, k) => {
    const rest = recipients.length - k - 1;
    r.bps = rest === 0 ? left : between(1, Math.max(1, Math.floor((left - rest) / (rest + 1)) * 2 - 1));
    r.bps = Math.min(r.bps, left - rest);
    left -= r.bps;
  });
  return recipients;
}

function launchToken(
  s: Seeding,
  i: number,
  tokens: number,
  pickHandle: () => string,
  deployers: readonly string[],
): Seeded {
  const { db, random, pick, startMs, nowMs } = s;
  // Launches speed up over the period, as a growing platform's do.
  const frac = Math.sqrt((i + random()) / tokens);
  const launchedAtMs = Math.floor(startMs + frac * (nowMs - startMs - HOUR));
  const recipients = drawRecipients(s, pickHandle);
  const word = pick(WORDS);
  const name = `${word[0]!.toUpperCase()}${word.slice(1)} ${pick(WORDS)} ${i}`;
  const mint = base58Of(random, 32);
  const hasImage = random() < 0.8;
  const { tokenId } = recordConfirmedLaunch(
    db,
    {
      mint,
      name,
      symbol: `${word.slice(0, 4).toUpperCase()}${i % 100}`,
      description: `${name}: a synthetic token for load tests.`,
      website: random() < 0.5 ? `https://${word}${i}.example` : null,
      twitter: random() < 0.6 ? `https://x.com/${recipients[0]!.handle}` : null,
      telegram: random() < 0.3 ? `https://t.me/${word}${i}` : null,
      metadataUri: `ipfs://bafy${base58Of(random, 20)}`,
      imageUri: `ipfs://bafy${base58Of(random, 20)}`,
      creatorIndex: i + 1,
      creator: base58Of(random, 32),
      creatorVault: base58Of(random, 32),
      poolVault: addressFor(`pool-vault/${mint}`),
      deployer: pick(deployers),
      launchSignature: base58Of(random, 64),
      launchedAtMs,
      platformBps: random() < 0.9 ? 1000 : 500,
      recipients,
      imageWebp: hasImage ? FAKE_WEBP : null,
      imageSha256: hasImage ? "0".repeat(64) : null,
    },
    launchedAtMs,
  );
  return { tokenId, mint, launchedAtMs, firstHandle: recipients[0]!.handle };
}

/** The platform token is one of the launched tokens, so some buys pay both sources. */
function setPlatformToken(s: Seeding, seeded: readonly Seeded[]): Seeded {
  const platformToken = seeded[Math.floor(seeded.length / 3)]!;
  performAdminAction(
    s.db,
    { actor: "seed", reason: "synthetic history", nowMs: s.startMs },
    { action: "set_platform_token", mint: platformToken.mint },
  );
  return platformToken;
}

function planSweeps(s: Seeding, seeded: readonly Seeded[], platformToken: Seeded, meanSweeps: number): PlannedSweep[] {
  const { random, nowMs } = s;
  const plan: PlannedSweep[] = [];
  for (const t of seeded) {
    // Heavy tail: most tokens are swept a few times, a few very often.
    const count = Math.min(400, Math.floor(-Math.log(1 - random()) * meanSweeps));
    for (let k = 0; k < count; k++) {
      const atMs = t.launchedAtMs + Math.floor(((k + random()) / count) * (nowMs - HOUR - t.launchedAtMs));
      const fate = k === count - 1 && random() < 0.05 ? "sent" : random() < 0.03 ? "failed" : "confirmed";
      const lamports = BigInt(Math.floor(5_000_000 * Math.exp(random() * 6)));
      plan.push({ tokenId: t.tokenId, atMs, lamports, fate });
    }
  }
  // The platform token is swept late too, so its buys pay recipient orders and the buyback together.
  for (let k = 0; k < 5; k++) {
    plan.push({
      tokenId: platformToken.tokenId,
      atMs: nowMs - (k + 2) * DAY,
      lamports: 2_000_000_000n,
      fate: "confirmed",
    });
  }
  plan.sort((a, b) => a.atMs - b.atMs);
  return plan;
}

/** The burns job runs every few minutes, so orders are bought in small groups as sweeps land. */
function burnPending(s: Seeding, atMs: number): void {
  const { db, random, between } = s;
  for (let pass = 0; pass < 3; pass++) {
    const groups = pendingBurnGroups(db, 1000);
    if (groups.length === 0) return;
    batched(db, groups, 500, (group) => {
      const buyId = startBurnBuy(db, {
        group,
        signature: base58Of(random, 64),
        lastValidBlockHeight: BigInt(atMs),
        atMs,
      });
      // A few buys fail once; their orders wait for the next pass.
      if (pass === 0 && random() < 0.05) failBurnBuy(db, buyId, "slippage exceeded");
      else
        completeBurnBuy(db, {
          buyId,
          tokenAmount: BigInt(between(1_000, 5_000_000)) * 1_000_000n,
          atMs: atMs + 5_000,
        });
    });
  }
}

function runSweeps(
  s: Seeding,
  list: PlannedSweep[],
  buyback: { platformBuybackBps: number; platformTokenMint: string },
  sweeps: { count: number },
): void {
  const { db, random } = s;
  batched(db, list, 2000, (p) => {
    const [sweepId] = recordSweepsSent(db, [
      {
        tokenId: p.tokenId,
        signature: base58Of(random, 64),
        lastValidBlockHeight: BigInt(p.atMs),
        atMs: p.atMs - 20_000,
      },
    ]);
    if (p.fate === "confirmed")
      confirmSweep(db, { sweepId: sweepId!, totalLamports: p.lamports, atMs: p.atMs, buyback });
    else if (p.fate === "failed") failSweep(db, sweepId!, "expired before landing");
    sweeps.count++;
    if (sweeps.count % 20_000 === 0) burnPending(s, p.atMs + 60_000);
  });
}

/** The sweeps, in two halves around the sign-ins. */
function sweepAroundSignIns(
  s: Seeding,
  plan: readonly PlannedSweep[],
  buyback: { platformBuybackBps: number; platformTokenMint: string },
  sweeps: { count: number },
  signIn: () => People,
): People {
  runSweeps(
    s,
    plan.filter((p) => p.atMs < s.midMs),
    buyback,
    sweeps,
  );
  const people = signIn();
  runSweeps(
    s,
    plan.filter((p) => p.atMs >= s.midMs),
    buyback,
    sweeps,
  );
  return people;
}

/** Sign-ins with their routings, someone the platform token names burning, and renames. */
function signInPeople(s: Seeding, handles: readonly string[], platformToken: Seeded): People {
  const { db, random, pick, between, midMs } = s;
  const signInHandles = handles.filter(() => random() < 0.35);
  const userOf = new Map<string, string>();
  const routings: Routing[] = ["hold", "hold", "autopay", "autopay", "burn"];
  let signIns = 0;
  batched(db, signInHandles, 2000, (display, i) => {
    const idpUserId = `u${1_000_000 + i}`;
    const atMs = midMs + between(0, 10 * DAY);
    recordSignIn(
      db,
      {
        idpUserId,
        displayHandle: display,
        name: display,
        avatarUrl: `https://avatars.example/${display}.png`,
        followers: between(0, 50_000),
      },
      atMs,
    );
    userOf.set(display.toLowerCase(), idpUserId);
    signIns++;
    const routing = pick(routings);
    const declined = routing === "burn" && random() < 0.2;
    setRouting(db, idpUserId, {
      routing,
      payoutWallet: routing === "autopay" || random() < 0.5 ? base58Of(random, 32) : null,
      declined,
    });
  });
  const handle = platformToken.firstHandle;
  const burnerId = userOf.get(handle.toLowerCase()) ?? "u-platform-burner";
  recordSignIn(db, { idpUserId: burnerId, displayHandle: handle, name: handle, avatarUrl: "", followers: 10 }, midMs);
  setRouting(db, burnerId, { routing: "burn", payoutWallet: null, declined: false });
  userOf.set(handle.toLowerCase(), burnerId);
  return { userOf, signIns, ...renameSome(s, handles, signInHandles, userOf) };
}

/** Renames: an account signs in again under another handle some token names; both show the same totals. */
function renameSome(
  s: Seeding,
  handles: readonly string[],
  signInHandles: readonly string[],
  userOf: Map<string, string>,
): Pick<People, "renamed" | "unpinned" | "renameCount"> {
  const { db, between, midMs } = s;
  const renamed: string[] = [];
  const unpinned = handles.filter((h) => !userOf.has(h.toLowerCase()));
  const renameCount = Math.min(Math.floor(signInHandles.length * 0.05), Math.floor(unpinned.length / 2));
  batched(
    db,
    Array.from({ length: renameCount }, (_, i) => i),
    2000,
    (i) => {
      const oldHandle = signInHandles[i]!;
      const newHandle = unpinned[i]!;
      const idpUserId = userOf.get(oldHandle.toLowerCase())!;
      recordSignIn(
        db,
        { idpUserId, displayHandle: newHandle, name: newHandle, avatarUrl: "", followers: between(0, 5000) },
        midMs + 11 * DAY,
      );
      userOf.set(newHandle.toLowerCase(), idpUserId);
      renamed.push(newHandle.toLowerCase());
    },
  );
  return { renamed, unpinned, renameCount };
}

/** Payouts in every status, in two rounds, so accounts also carry confirmed history behind a live payout. */
function payOut(s: Seeding, userOf: Map<string, string>): void {
  const { random } = s;
  const users = [...new Set(userOf.values())];
  const payoutIds: { id: number; atMs: number }[] = [];
  s.say(`paying out (${users.length} accounts)`);
  for (let round = 0; round < 2; round++) {
    const start = payoutIds.length;
    queuePayoutsFor(
      s,
      users.filter(() => random() < 0.5),
      payoutIds,
    );
    settlePayouts(s, payoutIds.slice(start), round);
  }
}

function queuePayoutsFor(s: Seeding, list: string[], payoutIds: { id: number; atMs: number }[]): void {
  const { db, random, between, nowMs } = s;
  batched(db, list, 2000, (idpUserId) => {
    const kind = random() < 0.4 ? "autopay" : "claim";
    const balance = balanceOf(db, accounts.user(idpUserId));
    if (balance < 10_000_000n) return;
    const lamports = kind === "claim" && random() < 0.5 && balance / 2n >= 10_000_000n ? balance / 2n : null;
    const atMs = nowMs - between(HOUR, 30 * DAY);
    const q = queuePayout(db, {
      idpUserId,
      lamports,
      wallet: base58Of(random, 32),
      kind,
      minLamports: 10_000_000n,
      atMs,
    });
    payoutIds.push({ id: q.payoutId, atMs });
  });
}

/**
 * Batches of up to 12 per transaction (DESIGN §5), then each batch meets one fate. Only the
 * last round leaves payouts queued or in flight: an account has one live payout at a time.
 */
function settlePayouts(s: Seeding, queued: { id: number; atMs: number }[], round: number): void {
  const { db, random, between } = s;
  const fates =
    round === 0
      ? (["replaced", "failed", "confirmed", "confirmed"] as const)
      : (["queued", "sent", "confirmed", "failed", "replaced", "confirmed"] as const);
  const batches: { ids: number[]; atMs: number; fate: (typeof fates)[number] }[] = [];
  for (let i = 0; i < queued.length; ) {
    const group = queued.slice(i, i + between(1, 12));
    i += group.length;
    batches.push({
      ids: group.map((p) => p.id),
      atMs: Math.max(...group.map((p) => p.atMs)) + 60_000,
      fate: fates[batches.length % fates.length]!,
    });
  }
  batched(db, batches, 500, (b) => {
    if (b.fate === "queued") return;
    const signature = base58Of(random, 64);
    markPayoutsSent(db, { payoutIds: b.ids, signature, lastValidBlockHeight: BigInt(b.atMs), atMs: b.atMs });
    if (b.fate === "sent") return;
    if (b.fate === "failed") failPayouts(db, signature, "insufficient funds for rent", b.atMs + 30_000);
    else if (b.fate === "replaced") {
      const replacements = replaceExpiredPayouts(db, signature, b.atMs + 120_000);
      const sig2 = base58Of(random, 64);
      markPayoutsSent(db, {
        payoutIds: replacements,
        signature: sig2,
        lastValidBlockHeight: BigInt(b.atMs),
        atMs: b.atMs + 180_000,
      });
      confirmPayouts(db, sig2, b.atMs + 200_000);
    } else confirmPayouts(db, signature, b.atMs + 30_000);
  });
}

/** Market figures, vault readings and moderation; returns how many tokens were hidden. */
function setMarketFigures(s: Seeding, seeded: readonly Seeded[]): number {
  const { db, random, between, nowMs } = s;
  const c = db.$client;
  s.say("market figures and vault readings");
  const setMarket = c.prepare(
    "UPDATE tokens SET market_cap_usd = ?, volume_24h_usd = ?, market_checked_at_ms = ?, bonded = ? WHERE id = ?",
  );
  const setVault = c.prepare("UPDATE tokens SET vault_lamports = ?, vault_checked_at_ms = ? WHERE id = ?");
  let hidden = 0;
  batched(db, seeded, 5000, (t) => {
    if (random() < 0.75) {
      const cap = Math.round(4000 * Math.exp(random() * 9) * 100) / 100;
      setMarket.run(
        cap,
        random() < 0.8 ? Math.round(cap * random() * 30) / 100 : null,
        nowMs - between(0, 15 * 60_000),
        cap > 69_000 ? 1 : 0,
        t.tokenId,
      );
    }
    setVault.run(BigInt(between(0, 6_000_000)), nowMs - between(0, 5 * 60_000), t.tokenId);
    if (random() < 0.01) {
      performAdminAction(
        db,
        { actor: "seed", reason: "synthetic moderation", nowMs },
        { action: "hide_token", mint: t.mint },
      );
      hidden++;
    }
  });
  return hidden;
}

function argValue(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const tokens = Number(argValue(args, "--tokens") ?? "1000");
  const seed = Number(argValue(args, "--seed") ?? "7");
  const days = Number(argValue(args, "--days") ?? "365");
  const perToken = argValue(args, "--sweeps-per-token");
  const sweepsPerToken = perToken === undefined ? undefined : Number(perToken);
  if (sweepsPerToken !== undefined && !(sweepsPerToken >= 0 && sweepsPerToken <= 100)) {
    process.stderr.write("--sweeps-per-token must be a number from 0 to 100\n");
    process.exit(1);
  }
  if (!Number.isSafeInteger(tokens) || tokens < 1 || tokens > 10_000_000) {
    process.stderr.write("--tokens must be a whole number from 1 to 10000000\n");
    process.exit(1);
  }
  const config = loadConfig();
  const db = openDatabase(config.databasePath);
  // A seed is rebuilt, not recovered: trade the per-commit fsync for speed.
  db.$client.exec("PRAGMA synchronous = OFF");
  db.$client.exec("PRAGMA cache_size = -262144");
  const started = performance.now();
  try {
    const summary = seedDatabase(db, {
      tokens,
      seed,
      days,
      ...(sweepsPerToken === undefined ? {} : { sweepsPerToken }),
      log: (line) => process.stderr.write(`seed: ${line}\n`),
    });
    const { samples: _samples, ...counts } = summary;
    process.stdout.write(
      `${JSON.stringify({ database: config.databasePath, ...counts, seconds: Math.round((performance.now() - started) / 100) / 10 })}\n`,
    );
  } catch (error) {
    process.stderr.write(`seed failed: ${(error as Error).message}\n`);
    process.exitCode = 1;
  } finally {
    closeDatabase(db);
  }
}
