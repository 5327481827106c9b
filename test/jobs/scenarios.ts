/**
 * The three money pipelines as scenarios over a World: set up what a pipeline works on, and check,
 * against the chain itself, that everything collected was credited exactly once, every payout paid
 * exactly once and every burn order bought and burned exactly once. Used by the crash, fault and
 * concurrency tests.
 */
import { Keypair, PublicKey } from "@solana/web3.js";
import { getAssociatedTokenAddressSync } from "@solana/spl-token";
import { expect } from "bun:test";
import { accountFigures, recipientCredits } from "../../src/ledger/figures";
import { queuePayout } from "../../src/payouts/service";
import { splitSweep } from "../../src/ledger/split";
import { PLATFORM_TOKEN_MINT_KEY } from "../../src/settings/service";
import { signaturesOf, type Token, type World } from "./world";

// ------------------------------------------------------------------ sweep

export interface SweepSetup {
  tokens: (Token & { recipients: { handle: string; bps: number }[]; platformBps: number })[];
  before: Map<string, bigint>;
  treasuryBefore: bigint;
}

/** `count` tokens with fees; recipients signed in or not, one hidden token. */
export async function setupSweep(w: World, count = 6): Promise<SweepSetup> {
  const tokens: SweepSetup["tokens"] = [];
  for (let i = 0; i < count; i++) {
    const recipients =
      i % 3 === 0
        ? [
            { handle: `a${i}`, bps: 7000 },
            { handle: `b${i}`, bps: 3000 },
          ]
        : i % 3 === 1
          ? [{ handle: `c${i}`, bps: 10_000 }]
          : [
              { handle: `d${i}`, bps: 3333 },
              { handle: `e${i}`, bps: 3333 },
              { handle: `f${i}`, bps: 3334 },
            ];
    const platformBps = [1000, 250, 0][i % 3]!;
    const t = w.launch(recipients, platformBps);
    tokens.push({ ...t, recipients, platformBps });
    w.trade(t.mint, 1_000_000_007n * BigInt(i + 1));
  }
  w.signIn("u-a0", "a0");
  // Hidden tokens are swept too.
  w.db.$client.query("UPDATE tokens SET hidden = 1 WHERE id = ?").run(tokens[tokens.length > 1 ? 1 : 0]!.tokenId);
  const before = await w.unswept(tokens);
  for (const t of tokens) expect(before.get(t.mint)!).toBeGreaterThan(0n);
  return { tokens, before, treasuryBefore: w.treasuryLamports() };
}

/** Everything that left the vaults is credited exactly once, split to the lamport. */
export async function checkSweptExactlyOnce(w: World, s: SweepSetup): Promise<void> {
  const db = w.db;
  expect(db.$client.query("SELECT COUNT(*) AS n FROM sweeps WHERE status = 'sent'").get()).toEqual({ n: 0n });
  // Nothing is left in the vaults: the fees all moved to the treasury.
  const after = await w.unswept(s.tokens);
  for (const t of s.tokens) expect(after.get(t.mint)).toBe(0n);
  let expectedTotal = 0n;
  for (const t of s.tokens) {
    const collected = s.before.get(t.mint)!;
    expectedTotal += collected;
    const confirmed = db.$client
      .query("SELECT total_lamports AS total FROM sweeps WHERE token_id = ? AND status = 'confirmed'")
      .all(t.tokenId) as { total: bigint }[];
    // One confirmed sweep per token, crediting exactly what was collected.
    expect(confirmed.map((c) => BigInt(c.total))).toEqual([collected]);
    const token = db.$client
      .query("SELECT swept_lamports AS s, last_swept_at_ms AS at FROM tokens WHERE id = ?")
      .get(t.tokenId) as { s: bigint; at: bigint | null };
    expect(BigInt(token.s)).toBe(collected);
    expect(token.at).not.toBeNull();
    const split = splitSweep(
      collected,
      t.platformBps,
      t.recipients.map((r) => ({ key: r.handle, bps: r.bps })),
    );
    const credits = recipientCredits(db, t.tokenId);
    for (const r of split.recipients) expect(credits.get(r.key) ?? 0n).toBe(r.lamports);
  }
  // The chain agrees: every sweep transaction that landed is confirmed in the books, every one
  // the books call failed never landed successfully.
  const rows = db.$client.query("SELECT signature, status FROM sweeps").all() as {
    signature: string;
    status: string;
  }[];
  for (const r of rows) {
    const landed = w.landed(r.signature);
    if (r.status === "confirmed") expect(landed?.ok).toBe(true);
    else expect(landed?.ok ?? false).toBe(false);
  }
  const t = w.checkRelations();
  expect(t.sweptLamports).toBe(expectedTotal);
  // The treasury received exactly what was credited, less the network fees it paid.
  // The treasury also pays for the memos anchoring liability snapshots after in-process runs.
  expect(w.treasuryLamports() - s.treasuryBefore).toBe(
    expectedTotal - w.feesOf(signaturesOf(db, "sweeps")) - w.feesOf(signaturesOf(db, "liability_snapshots")),
  );
}

// ------------------------------------------------------------------ payouts

export interface PayoutSetup {
  wallets: Map<string, string>;
  amounts: Map<string, bigint>;
  treasuryBefore: bigint;
}

/**
 * Sweeps fees to `claimers` signed-in accounts (plus `autopayers` on autopay), then queues a
 * claim of each claimer's whole balance. The sweep runs in a worker, not crashed.
 */
export async function setupPayouts(w: World, claimers: number, autopayers: number): Promise<PayoutSetup> {
  const wallets = new Map<string, string>();
  const ids: string[] = [];
  for (let i = 0; i < claimers + autopayers; i++) {
    const id = `u-p${i}`;
    const wallet = Keypair.generate().publicKey.toBase58();
    wallets.set(id, wallet);
    ids.push(id);
    w.signIn(id, `p${i}`, i >= claimers ? { routing: "autopay", wallet } : undefined);
  }
  // Two recipients a token, so sweeps batch several tokens.
  for (let i = 0; i < ids.length; i += 2) {
    const recipients =
      i + 1 < ids.length
        ? [
            { handle: `p${i}`, bps: 5000 },
            { handle: `p${i + 1}`, bps: 5000 },
          ]
        : [{ handle: `p${i}`, bps: 10_000 }];
    const t = w.launch(recipients, 1000);
    w.trade(t.mint, 2_000_000_000n + BigInt(i) * 1_000_003n);
  }
  expect(await w.run("sweep")).toMatchObject({ ran: true, ok: true });
  const amounts = new Map<string, bigint>();
  for (const id of ids.slice(0, claimers)) {
    const q = queuePayout(w.db, {
      idpUserId: id,
      lamports: null,
      wallet: wallets.get(id)!,
      kind: "claim",
      minLamports: 1n,
      atMs: Date.now(),
    });
    amounts.set(id, q.lamports);
  }
  for (const id of ids.slice(claimers)) amounts.set(id, accountFigures(w.db, "user", id).balanceLamports);
  for (const a of amounts.values()) expect(a).toBeGreaterThan(0n);
  w.checkRelations();
  return { wallets, amounts, treasuryBefore: w.treasuryLamports() };
}

/** Each wallet holds exactly its amount (paid once), every payout settled, books and chain agree. */
export function checkPaidExactlyOnce(w: World, s: PayoutSetup): void {
  const db = w.db;
  let total = 0n;
  for (const [id, amount] of s.amounts) {
    const wallet = s.wallets.get(id)!;
    expect(w.local.node.getBalance(new PublicKey(wallet))).toBe(amount);
    total += amount;
    const rows = db.$client.query("SELECT status, lamports FROM payouts WHERE idp_user_id = ? ORDER BY id").all(id) as {
      status: string;
      lamports: bigint;
    }[];
    // Exactly one confirmed payout; the others in its chain were replaced after a proven expiry.
    expect(rows.filter((r) => r.status === "confirmed").map((r) => BigInt(r.lamports))).toEqual([amount]);
    for (const r of rows) expect(["confirmed", "replaced"]).toContain(r.status);
    expect(accountFigures(db, "user", id).balanceLamports).toBe(0n);
  }
  const rows = db.$client.query("SELECT signature, status FROM payouts WHERE signature IS NOT NULL").all() as {
    signature: string;
    status: string;
  }[];
  for (const r of rows) {
    const landed = w.landed(r.signature);
    if (r.status === "confirmed") expect(landed?.ok).toBe(true);
    else expect(landed?.ok ?? false).toBe(false);
  }
  const t = w.checkRelations();
  expect(t.paidLamports).toBe(total);
  expect(s.treasuryBefore - w.treasuryLamports()).toBe(
    total + w.feesOf(signaturesOf(db, "payouts")) + w.feesOf(signaturesOf(db, "liability_snapshots")),
  );
}

// ------------------------------------------------------------------ burns

export interface BurnSetup {
  mints: string[];
  supplyBefore: Map<string, bigint>;
  ordered: Map<string, bigint>;
  treasuryBefore: bigint;
}

/**
 * Three tokens: two name a burn-routed account and a declined one; the third is the platform
 * token, bought back with PLATFORM_BUYBACK_BPS of every sweep's platform part. A sweep (worker,
 * not crashed) turns the credits into burn orders for three mints.
 */
export async function setupBurns(w: World): Promise<BurnSetup> {
  w.signIn("u-burn", "burner", { routing: "burn" });
  w.signIn("u-decl", "decliner", { routing: "burn", declined: true });
  w.signIn("u-hold", "holder");
  const a = w.launch(
    [
      { handle: "burner", bps: 6000 },
      { handle: "holder", bps: 4000 },
    ],
    1000,
  );
  const b = w.launch([{ handle: "decliner", bps: 10_000 }], 1000);
  const platform = w.launch(
    [
      { handle: "burner", bps: 5000 },
      { handle: "holder", bps: 5000 },
    ],
    1000,
  );
  w.db.$client
    .query("INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = ?2")
    .run(PLATFORM_TOKEN_MINT_KEY, platform.mint);
  w.trade(a.mint, 3_000_000_000n);
  w.trade(b.mint, 2_000_000_000n);
  w.trade(platform.mint, 1_000_000_000n);
  expect(await w.run("sweep", { PLATFORM_BUYBACK_BPS: "5000" })).toMatchObject({ ran: true, ok: true });
  const mints = [a.mint, b.mint, platform.mint];
  const ordered = new Map<string, bigint>();
  for (const row of w.db.$client.query("SELECT mint, SUM(lamports) AS s FROM burn_orders GROUP BY mint").all() as {
    mint: string;
    s: bigint;
  }[]) {
    ordered.set(row.mint, BigInt(row.s));
  }
  expect([...ordered.keys()].sort()).toEqual([...mints].sort());
  w.checkRelations();
  return {
    mints,
    supplyBefore: new Map(mints.map((m) => [m, w.mintSupply(m)])),
    ordered,
    treasuryBefore: w.treasuryLamports(),
  };
}

/** One landed buy per mint, its tokens burned once, the records and the books agree with the chain. */
export function checkBurnedExactlyOnce(w: World, s: BurnSetup, o: { unspentLamports?: bigint } = {}): void {
  const db = w.db;
  expect(db.$client.query("SELECT COUNT(*) AS n FROM burn_orders WHERE status <> 'done'").get()).toEqual({ n: 0n });
  let spent = 0n;
  for (const mint of s.mints) {
    const buys = db.$client
      .query(
        "SELECT id, signature, status, lamports, spent_lamports AS spent, token_amount AS amount FROM burn_buys WHERE mint = ?",
      )
      .all(mint) as {
      id: bigint;
      signature: string;
      status: string;
      lamports: bigint;
      spent: bigint | null;
      amount: bigint | null;
    }[];
    // Exactly one buy landed on chain for the mint's orders, and it is the confirmed one.
    const landedBuys = buys.filter((b) => w.landed(b.signature)?.ok);
    expect(landedBuys.length).toBe(1);
    const buy = landedBuys[0]!;
    expect(buy.status).toBe("confirmed");
    for (const b of buys) if (b !== buy) expect(b.status).toBe("failed");
    expect(BigInt(buy.lamports)).toBe(s.ordered.get(mint)!);
    const record = w.local.node.getTransaction(buy.signature)!;
    const ti = record.accountKeys.findIndex((k) => k.equals(w.treasury.publicKey));
    // The buy also paid the rent of the treasury's token account when it created it; the burn
    // closed that account again (checked below), so the rent came back.
    const ata = getAssociatedTokenAddressSync(new PublicKey(mint), w.treasury.publicKey, true);
    const ai = record.accountKeys.findIndex((k) => k.equals(ata));
    const rent = ai >= 0 && record.preBalances[ai] === 0n ? record.postBalances[ai]! : 0n;
    const paid = record.preBalances[ti]! - record.postBalances[ti]! - record.feeLamports - rent;
    // The buy spent what the orders hold, less at most a lamport or two of rounding kept; what it
    // spent, read from the chain here, is what the books burned.
    expect(paid).toBeLessThanOrEqual(BigInt(buy.lamports) - (o.unspentLamports ?? 0n));
    expect(BigInt(buy.lamports) - (o.unspentLamports ?? 0n) - paid).toBeLessThan(3n);
    expect(BigInt(buy.spent!)).toBe(paid);
    spent += paid;
    // What was bought was burned: the treasury holds none, the supply fell by the burned amount.
    const burns = db.$client
      .query("SELECT source, lamports, token_amount AS amount FROM burns WHERE buy_id = ?")
      .all(buy.id) as {
      source: string;
      lamports: bigint;
      amount: bigint;
    }[];
    const burnedTokens = burns.reduce((n, b) => n + BigInt(b.amount), 0n);
    expect(burnedTokens).toBe(BigInt(buy.amount!));
    expect(burnedTokens).toBeGreaterThan(0n);
    expect(burns.reduce((n, b) => n + BigInt(b.lamports), 0n)).toBe(paid);
    expect(new Set(burns.map((b) => b.source)).size).toBe(burns.length);
    expect(w.local.node.getAccount(ata) ? w.local.launch.tokenBalance(mint, w.treasury.publicKey) : 0n).toBe(0n);
    expect(s.supplyBefore.get(mint)! - w.mintSupply(mint)).toBe(burnedTokens);
  }
  const t = w.checkRelations();
  // Burned is what the buys spent; the unspent rest of the orders went back to their accounts.
  expect(t.burnedLamports).toBe(spent);
  expect(t.buybackPendingLamports).toBe(0n);
  expect(s.treasuryBefore - w.treasuryLamports()).toBe(spent + w.feesOf(signaturesOf(db, "burn_buys")));
}
