// A Node project's web3.js script against `npx localnet`: airdrop, an account notification over
// PubSub, a transfer confirmed through signatureSubscribe, and the transfer read back parsed.
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  SystemProgram,
  Transaction,
  sendAndConfirmTransaction,
} from "@solana/web3.js";

const [rpcUrl, wsUrl] = process.argv.slice(2);
const connection = new Connection(rpcUrl, { commitment: "confirmed", wsEndpoint: wsUrl });
const payer = Keypair.generate();
const payee = Keypair.generate();
let notifiedLamports = null;
const heard = new Promise((resolve) =>
  connection.onAccountChange(payer.publicKey, (account) => resolve(account.lamports), "confirmed"),
).then((lamports) => {
  notifiedLamports = lamports;
});
// web3.js sends the subscription once its socket opens and tells nobody when the node has it; a
// change before then is not notified (agave's too). So airdrops repeat, a bounded number of
// times, until one is heard.
for (let round = 0; round < 20 && notifiedLamports === null; round++) {
  const airdrop = await connection.requestAirdrop(payer.publicKey, LAMPORTS_PER_SOL);
  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
  await connection.confirmTransaction({ signature: airdrop, blockhash, lastValidBlockHeight }, "confirmed");
}
await heard;
const transfer = new Transaction().add(
  SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: payee.publicKey, lamports: 1_234_567 }),
);
const signature = await sendAndConfirmTransaction(connection, transfer, [payer], { commitment: "confirmed" });
const parsed = await connection.getParsedTransaction(signature, { commitment: "confirmed" });
const instruction = parsed?.transaction.message.instructions[0];
console.log(
  JSON.stringify({
    notifiedLamports,
    payeeLamports: await connection.getBalance(payee.publicKey),
    parsedType: instruction && "parsed" in instruction ? instruction.parsed.type : null,
  }),
);
process.exit(0);
