/** Service-side helpers over the local chain package: a ChainReader over JSON-RPC for the adapter tests. */
import { type Connection, PublicKey } from "@solana/web3.js";
import bs58 from "bs58";
import type { AccountSnapshot, ChainReader, ConfirmedTransaction, SignatureState } from "../../../src/chain/ports";

export { sendAndConfirm, signedTx, startTestChain, waitFor } from "../../../packages/localnet/test/helpers";

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
