/**
 * State that survives a restart (`stateDir`): a stop and a start continue the same chain; a crash
 * (no stop) loses at most the open slot; a torn journal line and a compaction interrupted between
 * its rename and its truncation replay nothing wrong; `reset` starts fresh.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Connection, Keypair, LAMPORTS_PER_SOL, SystemProgram } from "@solana/web3.js";
import { type LocalChain, type LocalChainOptions, startLocalChain } from "../src/index";
import { signedTx } from "./helpers";

const dirs: string[] = [];
const chains: LocalChain[] = [];

afterEach(async () => {
  for (const chain of chains.splice(0)) await chain.stop();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function stateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "localnet-state-"));
  dirs.push(dir);
  return dir;
}

async function start(dir: string, treasury: Keypair, more: Partial<LocalChainOptions> = {}) {
  const chain = await startLocalChain({ rpcPort: 0, grpcPort: 0, slotMs: 0, stateDir: dir, treasury, ...more });
  chains.push(chain);
  const connection = new Connection(chain.rpcUrl, { commitment: "confirmed", disableRetryOnRateLimit: true });
  return { chain, connection };
}

async function stop(chain: LocalChain): Promise<void> {
  chains.splice(chains.indexOf(chain), 1);
  await chain.stop();
}

async function transfer(chain: LocalChain, connection: Connection, to: Keypair, lamports: bigint): Promise<string> {
  const { tx, signature } = await signedTx(
    connection,
    [SystemProgram.transfer({ fromPubkey: chain.treasury.publicKey, toPubkey: to.publicKey, lamports })],
    chain.treasury,
  );
  await connection.sendRawTransaction(tx.serialize());
  return signature;
}

describe("a chain with a state folder", () => {
  test("a stop and a start continue the same chain: balances, clock, program, tokens and transactions", async () => {
    const dir = stateDir();
    const treasury = Keypair.generate();
    const first = await start(dir, treasury);
    const to = Keypair.generate();
    const signature = await transfer(first.chain, first.connection, to, 2n * BigInt(LAMPORTS_PER_SOL));
    const token = first.chain.launch.createToken({ name: "Kept", symbol: "KEPT", uri: "", creator: to.publicKey });
    expect(token.err).toBeNull();
    first.chain.node.advanceSlots(40);
    const before = {
      slot: first.chain.node.getSlot(),
      treasury: first.chain.node.getBalance(treasury.publicKey),
      to: first.chain.node.getBalance(to.publicKey),
      vault: first.chain.node.vaultFees("curve", to.publicKey.toBase58()),
      curve: first.chain.launch.curveState(token.mint),
    };
    const { blockhash } = await first.connection.getLatestBlockhash("finalized");
    await stop(first.chain);

    const second = await start(dir, treasury);
    expect(second.chain.restoredFromSlot).toBe(before.slot);
    expect(second.chain.node.getSlot()).toBe(before.slot);
    // Not funded again: a restart mints nothing.
    expect(second.chain.node.getBalance(treasury.publicKey)).toBe(before.treasury);
    expect(BigInt(await second.connection.getBalance(to.publicKey))).toBe(before.to);
    expect(second.chain.programKeys.bondingCurveAddress(token.mint)).toBe(
      first.chain.programKeys.bondingCurveAddress(token.mint),
    );
    expect(second.chain.node.creatorOf(token.mint)).toBe(to.publicKey.toBase58());
    expect(second.chain.launch.curveState(token.mint)).toEqual(before.curve);
    expect(second.chain.node.vaultFees("curve", to.publicKey.toBase58())).toBe(before.vault);
    const read = await second.connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect(read?.meta?.err).toBeNull();
    const status = await second.connection.getSignatureStatuses([signature], { searchTransactionHistory: true });
    expect(status.value[0]?.confirmationStatus).toBe("finalized");
    expect(await second.connection.isBlockhashValid(blockhash)).toMatchObject({ value: true });

    // The restored chain goes on: a trade on the kept token pays its creator's vault.
    const buyer = Keypair.generate();
    second.chain.node.fund(buyer.publicKey, 10n * BigInt(LAMPORTS_PER_SOL));
    const trade = second.chain.launch.buy({ mint: token.mint, buyer, solInLamports: BigInt(LAMPORTS_PER_SOL) });
    expect(trade.err).toBeNull();
    expect(second.chain.node.vaultFees("curve", to.publicKey.toBase58())).toBe(before.vault + trade.feeLamports);
    second.chain.node.advanceSlots(1);
    expect(second.chain.node.getSlot()).toBe(before.slot + 1n);
  });

  test("a crash (no stop) loses nothing of the slots that closed; a torn last journal line is cut off", async () => {
    const dir = stateDir();
    const treasury = Keypair.generate();
    const crashed = await start(dir, treasury);
    const to = Keypair.generate();
    const kept = await transfer(crashed.chain, crashed.connection, to, 1_000_000n);
    crashed.chain.node.advanceSlots(1);
    // What the open slot did is lost with the process, as an unconfirmed slot is on a validator.
    const lost = Keypair.generate();
    await transfer(crashed.chain, crashed.connection, lost, 7_000_000n);
    const slotBefore = crashed.chain.node.getSlot();
    // The crash tore the next line in half.
    appendFileSync(join(dir, "journal.ndjson"), '{"seq":99,"changes":{"slot":"');

    // Another process starts on the same folder while the crashed one's memory is gone.
    const after = await start(dir, treasury);
    expect(after.chain.node.getSlot()).toBe(slotBefore);
    expect(BigInt(await after.connection.getBalance(to.publicKey))).toBe(1_000_000n);
    expect(await after.connection.getBalance(lost.publicKey)).toBe(0);
    expect((await after.connection.getSignatureStatuses([kept])).value[0]?.err).toBeNull();
    const journal = readFileSync(join(dir, "journal.ndjson"), "utf8");
    expect(journal.includes('"seq":99')).toBe(false);
  });

  test("a compaction cut between its rename and its truncation replays nothing twice", async () => {
    const dir = stateDir();
    const treasury = Keypair.generate();
    const first = await start(dir, treasury);
    const to = Keypair.generate();
    await transfer(first.chain, first.connection, to, 3_000_000n);
    first.chain.node.advanceSlots(1);
    const journalBefore = join(dir, "journal.before");
    copyFileSync(join(dir, "journal.ndjson"), journalBefore);
    expect(statSync(journalBefore).size).toBeGreaterThan(0);
    // After the line above, the account is spent down: replaying the old line would undo it.
    const back = Keypair.generate();
    const { tx } = await signedTx(
      first.connection,
      [SystemProgram.transfer({ fromPubkey: to.publicKey, toPubkey: back.publicKey, lamports: 1_000_000n })],
      to,
    );
    await first.connection.sendRawTransaction(tx.serialize());
    first.chain.node.advanceSlots(1);
    await stop(first.chain);
    // The stop compacted: the snapshot holds everything. Put the old journal back, as if the
    // truncation after the snapshot's rename had never happened.
    writeFileSync(join(dir, "journal.ndjson"), readFileSync(journalBefore));

    const second = await start(dir, treasury);
    expect(BigInt(await second.connection.getBalance(to.publicKey))).toBe(3_000_000n - 1_000_000n - 5000n);
    expect(BigInt(await second.connection.getBalance(back.publicKey))).toBe(1_000_000n);
  });

  test("a restart funds nothing again and keeps getTransactionCount, after a stop and after a crash", async () => {
    const dir = stateDir();
    // No treasury given: the chain makes one, and must keep it.
    const first = await startLocalChain({ rpcPort: 0, grpcPort: 0, slotMs: 0, stateDir: dir });
    chains.push(first);
    const firstConnection = new Connection(first.rpcUrl, { commitment: "confirmed" });
    for (let i = 0; i < 3; i++) await transfer(first, firstConnection, Keypair.generate(), 1_000_000n);
    first.node.advanceSlots(1);
    const before = {
      count: await firstConnection.getTransactionCount(),
      supply: (await firstConnection.getSupply()).value.total,
      treasury: first.treasury.publicKey.toBase58(),
      balance: await firstConnection.getBalance(first.treasury.publicKey),
    };
    expect(before.count).toBeGreaterThanOrEqual(3);

    const readBack = async (chain: LocalChain) => {
      const connection = new Connection(chain.rpcUrl, { commitment: "confirmed" });
      return {
        count: await connection.getTransactionCount(),
        supply: (await connection.getSupply()).value.total,
        treasury: chain.treasury.publicKey.toBase58(),
        balance: await connection.getBalance(chain.treasury.publicKey),
      };
    };
    // A crash: another start on the folder while the first never stopped (snapshot + journal).
    const crashed = await startLocalChain({ rpcPort: 0, grpcPort: 0, slotMs: 0, stateDir: dir });
    chains.push(crashed);
    expect(await readBack(crashed)).toEqual(before);
    await stop(crashed);
    await stop(first);

    // A stop and a start (the compacted snapshot alone), then the count goes on.
    const second = await startLocalChain({ rpcPort: 0, grpcPort: 0, slotMs: 0, stateDir: dir });
    chains.push(second);
    expect(await readBack(second)).toEqual(before);
    const secondConnection = new Connection(second.rpcUrl, { commitment: "confirmed" });
    await transfer(second, secondConnection, Keypair.generate(), 1_000_000n);
    second.node.advanceSlots(1);
    expect(await secondConnection.getTransactionCount()).toBe(before.count + 1);
  });

  test("reset starts a fresh chain", async () => {
    const dir = stateDir();
    const treasury = Keypair.generate();
    const first = await start(dir, treasury);
    const to = Keypair.generate();
    await transfer(first.chain, first.connection, to, 1_000_000n);
    first.chain.node.advanceSlots(5);
    await stop(first.chain);

    const fresh = await start(dir, treasury, { reset: true });
    expect(fresh.chain.restoredFromSlot).toBeNull();
    expect(await fresh.connection.getBalance(to.publicKey)).toBe(0);
    expect(fresh.chain.programSeed).not.toEqual(first.chain.programSeed);
  });

  test("the journal is compacted into the snapshot once it passes its bound", async () => {
    const dir = stateDir();
    const treasury = Keypair.generate();
    const { chain, connection } = await start(dir, treasury, { checkpoint: { journalBytesMax: 4096 } });
    const kept = Array.from({ length: 30 }, () => Keypair.generate());
    for (let i = 0; i < 30; i++) {
      await transfer(chain, connection, kept[i]!, 1_000_000n);
      chain.node.advanceSlots(1);
      const journal = readFileSync(join(dir, "journal.ndjson"));
      expect(journal.length).toBeLessThan(4096 + 4096);
      // Lines from the start of the file, none after a hole.
      expect(journal.includes(0)).toBe(false);
    }
    // A crash now: the snapshot and the journal's lines together hold every transfer.
    const restarted = await start(dir, treasury);
    for (const to of kept) expect(await restarted.connection.getBalance(to.publicKey)).toBe(1_000_000);
  });
});
