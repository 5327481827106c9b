/**
 * Transactions per second the local chain sustains over JSON-RPC, for simple transfers and for
 * sweep-style collect transactions (collect a creator vault + move it to the treasury).
 *
 *   bun run scripts/bench-localnet.ts [--count 3000] [--concurrency 64] [--slot-ms 400]
 *
 * Transactions are signed before the clock starts, so the figure is the node's (RPC decode,
 * signature checks, program validation, LiteSVM execution, recording, notifications), not the
 * client's signing. Every transaction is checked to have landed before a rate is printed.
 */
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  SystemProgram,
  TransactionMessage,
  VersionedTransaction,
  type TransactionInstruction,
} from "@solana/web3.js";
import bs58 from "bs58";
import { startLocalChain, type LocalChain } from "@fee-ledger/localnet";
import { buildCollectOp } from "@fee-ledger/localnet/program";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(v) || v <= 0) throw new Error(`--${name} must be a positive integer`);
  return v;
}

const COUNT = arg("count", 3000);
const CONCURRENCY = arg("concurrency", 64);
const SLOT_MS = arg("slot-ms", 400);
const SOL = BigInt(LAMPORTS_PER_SOL);

function sign(
  chain: LocalChain,
  instructions: TransactionInstruction[],
  payer: Keypair,
  signers: Keypair[] = [],
): { wire: Uint8Array; signature: string } {
  const { blockhash } = chain.node.getLatestBlockhash();
  const message = new TransactionMessage({
    payerKey: payer.publicKey,
    recentBlockhash: blockhash,
    instructions,
  }).compileToV0Message();
  const tx = new VersionedTransaction(message);
  const required = new Set(
    message.staticAccountKeys.slice(0, message.header.numRequiredSignatures).map((k) => k.toBase58()),
  );
  tx.sign([payer, ...signers].filter((s) => required.has(s.publicKey.toBase58())));
  return { wire: tx.serialize(), signature: bs58.encode(tx.signatures[0]!) };
}

async function run(label: string, chain: LocalChain, txs: { wire: Uint8Array; signature: string }[]): Promise<void> {
  const connection = new Connection(chain.rpcUrl, { commitment: "confirmed", disableRetryOnRateLimit: true });
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= txs.length) return;
      await connection.sendRawTransaction(txs[i]!.wire, { skipPreflight: true });
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, txs.length) }, worker));
  const elapsedSec = (performance.now() - started) / 1000;

  let landed = 0;
  let failed = 0;
  for (let i = 0; i < txs.length; i += 256) {
    const batch = txs.slice(i, i + 256).map((t) => t.signature);
    const st = await connection.getSignatureStatuses(batch, { searchTransactionHistory: true });
    for (const s of st.value) {
      if (s) landed++;
      if (s?.err) failed++;
    }
  }
  if (landed !== txs.length || failed !== 0)
    throw new Error(`${label}: ${landed}/${txs.length} landed, ${failed} failed`);
  console.log(
    `${label.padEnd(34)} ${String(txs.length).padStart(6)} tx in ${elapsedSec.toFixed(2)} s = ${(txs.length / elapsedSec).toFixed(0).padStart(6)} tx/s`,
  );
}

const chain = await startLocalChain({
  rpcPort: 0,
  grpcPort: 0,
  slotMs: SLOT_MS,
  bondThresholdLamports: 1_000_000n * SOL,
});
try {
  console.log(
    `local chain bench: ${COUNT} transactions per kind, ${CONCURRENCY} concurrent senders, ${SLOT_MS} ms slots, runtime ${typeof Bun !== "undefined" ? `bun ${Bun.version}` : `node ${process.version}`}`,
  );

  // Simple transfers: many payers so no single account is a hot spot.
  const payers = Array.from({ length: 64 }, () => Keypair.generate());
  for (const p of payers) chain.node.fund(p.publicKey, 1_000n * SOL);
  const recipients = Array.from({ length: 256 }, () => Keypair.generate().publicKey);
  const transfers = Array.from({ length: COUNT }, (_, i) =>
    sign(
      chain,
      [
        SystemProgram.transfer({
          fromPubkey: payers[i % payers.length]!.publicKey,
          toPubkey: recipients[i % recipients.length]!,
          lamports: 1_000_000n + BigInt(i),
        }),
      ],
      payers[i % payers.length]!,
    ),
  );
  await run("transfers (JSON-RPC)", chain, transfers);

  // Collect transactions: the shape of a sweep, one token each: collect the curve vault into the
  // creator address and move it to the treasury (treasury pays, creator and node co-sign).
  const tokens = Array.from({ length: 200 }, (_, i) => {
    const creator = Keypair.generate();
    const { mint, err } = chain.launch.createToken({
      name: `Bench ${i}`,
      symbol: "BNCH",
      uri: "https://bench.local",
      creator: creator.publicKey,
    });
    if (err) throw new Error(`create failed: ${JSON.stringify(err)}`);
    return { mint, creator };
  });
  const trader = Keypair.generate();
  chain.node.fund(trader.publicKey, 100_000n * SOL);
  for (const t of tokens) {
    const r = chain.launch.buy({ mint: t.mint, buyer: trader, solInLamports: 20n * SOL });
    if (r.err) throw new Error(`buy failed: ${JSON.stringify(r.err)}`);
  }
  const perCollect = 10_000n;
  const collects = Array.from({ length: COUNT }, (_, i) => {
    const t = tokens[i % tokens.length]!;
    return sign(
      chain,
      [
        ...buildCollectOp(chain.programKeys, {
          creator: t.creator.publicKey,
          vault: "curve",
          amountLamports: perCollect,
        }),
        SystemProgram.transfer({
          fromPubkey: t.creator.publicKey,
          toPubkey: chain.treasury.publicKey,
          lamports: perCollect,
        }),
      ],
      chain.treasury,
      [t.creator],
    );
  });
  await run("collect + move to treasury (JSON-RPC)", chain, collects);

  // For reference: the same work without HTTP, straight into the node.
  const inProcess = Array.from({ length: COUNT }, (_, i) =>
    sign(
      chain,
      [
        SystemProgram.transfer({
          fromPubkey: payers[i % payers.length]!.publicKey,
          toPubkey: recipients[i % recipients.length]!,
          lamports: 2_000_000n + BigInt(i),
        }),
      ],
      payers[i % payers.length]!,
    ),
  );
  const started = performance.now();
  for (const t of inProcess) chain.node.sendWire(t.wire, { skipPreflight: true });
  const sec = (performance.now() - started) / 1000;
  console.log(
    `${"transfers (in-process, no HTTP)".padEnd(34)} ${String(COUNT).padStart(6)} tx in ${sec.toFixed(2)} s = ${(COUNT / sec).toFixed(0).padStart(6)} tx/s`,
  );
} finally {
  await chain.stop();
}
