/**
 * Test harness for the local chain: start/stop with port 0, a ChainReader over web3.js
 * `Connection` (what the launch-program adapter reads through), and polling helpers that step the
 * clock by hand instead of sleeping on a timer.
 */
import {
  Connection,
  type Keypair,
  PublicKey,
  type TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import bs58 from "bs58";
import { startLocalChain, type LocalChain, type LocalChainOptions } from "../../../src/chain/localnet";
import type { AccountSnapshot, ChainReader, ConfirmedTransaction, SignatureState } from "../../../src/chain/ports";

export async function startTestChain(
  opts: Partial<LocalChainOptions> = {},
): Promise<{ chain: LocalChain; connection: Connection }> {
  const chain = await startLocalChain({ rpcPort: 0, grpcPort: 0, slotMs: 0, ...opts });
  const connection = new Connection(chain.rpcUrl, { commitment: "confirmed", disableRetryOnRateLimit: true });
  return { chain, connection };
}

/** A ChainReader over JSON-RPC, as small as the adapter needs (the real one lives in src/chain/rpc.ts). */
export class ConnectionReader implements ChainReader {
  constructor(private readonly c: Connection) {}

  async getBalances(addresses: readonly string[]): Promise<Map<string, bigint>> {
    const accounts = await this.getAccounts(addresses);
    return new Map([...accounts].map(([k, v]) => [k, v?.lamports ?? 0n]));
  }

  async getAccounts(addresses: readonly string[]): Promise<Map<string, AccountSnapshot | null>> {
    const out = new Map<string, AccountSnapshot | null>();
    for (let i = 0; i < addresses.length; i += 100) {
      const batch = addresses.slice(i, i + 100);
      const infos = await this.c.getMultipleAccountsInfo(batch.map((a) => new PublicKey(a)));
      batch.forEach((a, k) => {
        const info = infos[k];
        out.set(
          a,
          info
            ? {
                lamports: BigInt(info.lamports),
                owner: info.owner.toBase58(),
                executable: info.executable,
                data: new Uint8Array(info.data),
              }
            : null,
        );
      });
    }
    return out;
  }

  async getTransaction(signature: string): Promise<ConfirmedTransaction | null> {
    const tx = await this.c.getTransaction(signature, { maxSupportedTransactionVersion: 0, commitment: "confirmed" });
    if (!tx?.meta) return null;
    const keys = tx.transaction.message.staticAccountKeys.map((k) => k.toBase58());
    const view = (ix: {
      programIdIndex: number;
      accounts?: number[];
      accountKeyIndexes?: number[];
      data: string | Uint8Array;
    }) => ({
      programId: keys[ix.programIdIndex]!,
      accounts: (ix.accountKeyIndexes ?? ix.accounts ?? []).map((i) => keys[i]!),
      data: typeof ix.data === "string" ? bs58.decode(ix.data) : ix.data,
    });
    return {
      signature,
      slot: BigInt(tx.slot),
      blockTime: tx.blockTime ? new Date(tx.blockTime * 1000) : null,
      err: tx.meta.err ? JSON.stringify(tx.meta.err) : null,
      accountKeys: keys,
      preBalances: tx.meta.preBalances.map(BigInt),
      postBalances: tx.meta.postBalances.map(BigInt),
      instructions: tx.transaction.message.compiledInstructions.map((ix) => view(ix)),
      innerInstructions: (tx.meta.innerInstructions ?? []).flatMap((g) =>
        g.instructions.map((ix) => ({ ...view(ix), outerIndex: g.index })),
      ),
      logMessages: tx.meta.logMessages ?? [],
    };
  }

  async getSignatureStatuses(
    signatures: readonly string[],
    searchHistory: boolean,
  ): Promise<Map<string, SignatureState | null>> {
    const r = await this.c.getSignatureStatuses([...signatures], { searchTransactionHistory: searchHistory });
    return new Map(
      signatures.map((s, i) => {
        const v = r.value[i];
        return [
          s,
          v
            ? {
                slot: BigInt(v.slot),
                err: v.err ? JSON.stringify(v.err) : null,
                confirmationStatus: v.confirmationStatus ?? null,
              }
            : null,
        ];
      }),
    );
  }

  async getBlockHeight(): Promise<bigint> {
    return BigInt(await this.c.getBlockHeight());
  }

  async getLatestBlockhash(): Promise<{ blockhash: string; lastValidBlockHeight: bigint }> {
    const r = await this.c.getLatestBlockhash();
    return { blockhash: r.blockhash, lastValidBlockHeight: BigInt(r.lastValidBlockHeight) };
  }
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
