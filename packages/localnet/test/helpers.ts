/**
 * Test harness for the local chain: start/stop with port 0, a signed transaction, and polling
 * helpers that step the clock by hand instead of sleeping on a timer.
 */
import {
  Connection,
  type Keypair,
  type TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import bs58 from "bs58";
import { startLocalChain, type LocalChain, type LocalChainOptions } from "../src/index";

export async function startTestChain(
  opts: Partial<LocalChainOptions> = {},
): Promise<{ chain: LocalChain; connection: Connection }> {
  const chain = await startLocalChain({ rpcPort: 0, grpcPort: 0, slotMs: 0, ...opts });
  const connection = new Connection(chain.rpcUrl, { commitment: "confirmed", disableRetryOnRateLimit: true });
  return { chain, connection };
}

/** Builds and signs a v0 transaction with a blockhash fetched over RPC. */
export async function signedTx(
  connection: Connection,
  instructions: TransactionInstruction[],
  payer: Keypair,
  signers: Keypair[] = [],
): Promise<{ tx: VersionedTransaction; signature: string; lastValidBlockHeight: number }> {
  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
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
  return { tx, signature: bs58.encode(tx.signatures[0]!), lastValidBlockHeight };
}

/** Sends over RPC (skipPreflight like the service does), then closes the slot so it confirms. */
export async function sendAndConfirm(
  chain: LocalChain,
  connection: Connection,
  instructions: TransactionInstruction[],
  payer: Keypair,
  signers: Keypair[] = [],
): Promise<string> {
  const { tx, signature } = await signedTx(connection, instructions, payer, signers);
  await connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
  chain.node.advanceSlots(1);
  const st = await connection.getSignatureStatuses([signature]);
  if (!st.value[0]) throw new Error(`transaction ${signature} did not land`);
  return signature;
}

/** Waits for a condition with a generous bound (2-core CI); never a fixed sleep. */
export async function waitFor<T>(what: string, fn: () => T | undefined | null | false, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
