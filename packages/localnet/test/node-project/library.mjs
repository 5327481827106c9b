// The library in-process, as a Node or Bun project imports it: a chain on free ports, a
// WebSocket notification and a read, then a clean stop.
import { Connection, Keypair, LAMPORTS_PER_SOL } from "@solana/web3.js";
import { startLocalChain } from "@fee-ledger/localnet";

const chain = await startLocalChain({ rpcPort: 0, grpcPort: 0, slotMs: 50 });
const connection = new Connection(chain.rpcUrl, { commitment: "confirmed", wsEndpoint: chain.wsUrl });
const owner = Keypair.generate();
let notifiedLamports = null;
const heard = new Promise((resolve) =>
  connection.onAccountChange(owner.publicKey, (account) => resolve(account.lamports), "confirmed"),
).then((lamports) => {
  notifiedLamports = lamports;
});
// A change before the node has the subscription is not notified (agave's too), and web3.js does
// not say when it has: airdrops repeat, a bounded number of times, until one is heard.
for (let round = 0; round < 20 && notifiedLamports === null; round++) {
  const signature = await connection.requestAirdrop(owner.publicKey, LAMPORTS_PER_SOL);
  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
  await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight }, "confirmed");
}
await heard;
const result = {
  runtime: typeof Bun === "undefined" ? "node" : "bun",
  notifiedLamports,
  treasuryLamports: await connection.getBalance(chain.treasury.publicKey),
};
await chain.stop();
console.log(JSON.stringify(result));
process.exit(0);
