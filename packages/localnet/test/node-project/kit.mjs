// A Node project's @solana/kit script against `npx localnet`: a slot notification over PubSub
// and an airdrop that kit confirms through its subscriptions.
import {
  airdropFactory,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  generateKeyPairSigner,
  lamports,
} from "@solana/kit";

const [rpcUrl, wsUrl] = process.argv.slice(2);
const rpc = createSolanaRpc(rpcUrl);
const rpcSubscriptions = createSolanaRpcSubscriptions(wsUrl);
const abort = new AbortController();
const slots = await rpcSubscriptions.slotNotifications().subscribe({ abortSignal: abort.signal });
let heardSlot = null;
for await (const notification of slots) {
  heardSlot = Number(notification.slot);
  break;
}
abort.abort();
const signer = await generateKeyPairSigner();
await airdropFactory({ rpc, rpcSubscriptions })({
  commitment: "confirmed",
  lamports: lamports(2_000_000_000n),
  recipientAddress: signer.address,
});
const { value } = await rpc.getBalance(signer.address, { commitment: "confirmed" }).send();
console.log(JSON.stringify({ heardSlot, lamports: String(value) }));
process.exit(0);
