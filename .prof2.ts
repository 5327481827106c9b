import { Keypair, SystemProgram, TransactionMessage, VersionedTransaction } from "@solana/web3.js";
import { startLocalChain } from "./src/chain/localnet/index.ts";
import { validateTransaction } from "./src/chain/localnet/program.ts";
const chain = await startLocalChain({ rpcPort: 0, grpcPort: 0, slotMs: Number(process.env.SLOT ?? 0) });
const node: any = chain.node;
const times: Record<string, number> = {};
for (const name of ["checkSignatures", "decompile", "tokenBalances", "emit", "remember", "execute", "maybeComplete"]) {
  const orig = node[name].bind(node);
  node[name] = (...a: any[]) => { const t = performance.now(); try { return orig(...a); } finally { times[name] = (times[name] ?? 0) + performance.now() - t; } };
}
const payer = Keypair.generate(); chain.node.fund(payer.publicKey, 10n ** 13n);
const to = Array.from({ length: 256 }, () => Keypair.generate().publicKey);
const mk = (i: number) => { const m = new TransactionMessage({ payerKey: payer.publicKey, recentBlockhash: chain.node.getLatestBlockhash().blockhash, instructions: [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to[i % 256]!, lamports: 1_000_000 + i })] }).compileToV0Message(); const t = new VersionedTransaction(m); t.sign([payer]); return t.serialize(); };
const txs = Array.from({ length: 1000 }, (_, i) => mk(i));
let t0 = performance.now();
for (const w of txs) VersionedTransaction.deserialize(w);
console.log("deserialize", (performance.now() - t0) / 1000);
t0 = performance.now();
for (const w of txs) chain.node.sendWire(w, { skipPreflight: true });
console.log("total per tx", (performance.now() - t0) / 1000);
for (const [k, v] of Object.entries(times)) console.log(k, v / 1000);
await chain.stop(); process.exit(0);
