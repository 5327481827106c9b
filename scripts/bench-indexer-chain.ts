/**
 * The chain side of bench:indexer, run as its own process: a local chain whose every watched
 * vault changes in every slot. Commands arrive as JSON lines on stdin, answers leave on stdout.
 * A separate process, as a provider's endpoint would be: its work does not share the indexer's
 * event loop.
 */
import { Keypair, SystemProgram } from "@solana/web3.js";
import { createInterface } from "node:readline";
import { startLocalChain } from "@fee-ledger/localnet";

const TRANSFERS_PER_TX = 20;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The child: a local chain whose every watched vault changes in every slot. */
async function chainProcess(vaults: number): Promise<void> {
  const seed = Uint8Array.from(Buffer.from(process.env.BENCH_PROGRAM_SEED!, "hex"));
  const chain = await startLocalChain({ rpcPort: 0, grpcPort: 0, slotMs: 0, programSeed: seed });
  const tokens: { mint: string; creator: string; vault: Keypair["publicKey"] }[] = [];
  for (let i = 0; i < vaults; i++) {
    const creator = Keypair.generate().publicKey.toBase58();
    const created = chain.launch.createToken({
      name: `Bench ${i}`,
      symbol: `B${i}`,
      uri: `local://bench/${i}`,
      creator,
    });
    if (created.err) throw new Error(`create failed: ${JSON.stringify(created.err)}`);
    tokens.push({ mint: created.mint, creator, vault: chain.programKeys.curveVault(creator).publicKey });
  }
  chain.node.advanceSlots(1);
  const say = (o: object) => process.stdout.write(`${JSON.stringify(o)}\n`);
  say({
    ready: true,
    rpcUrl: chain.rpcUrl,
    grpcUrl: chain.grpcUrl,
    tokens: tokens.map(({ mint, creator }) => ({ mint, creator })),
  });

  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    const cmd = JSON.parse(line) as { run?: { slots: number; slotMs: number }; stop?: true };
    if (cmd.stop) break;
    if (!cmd.run) continue;
    const started = performance.now();
    let genMs = 0;
    let lastGenMs = 0;
    for (let s = 0; s < cmd.run.slots; s++) {
      // Idle first, generate last, yielding often: the endpoint shares this event loop.
      const wait = cmd.run.slotMs - lastGenMs;
      await sleep(Math.max(wait, 0));
      const genStart = performance.now();
      // Transfers batched into transactions, so generating 1000 vault changes takes a fraction of a slot.
      for (let i = 0; i < tokens.length; i += TRANSFERS_PER_TX) {
        const ixs = tokens.slice(i, i + TRANSFERS_PER_TX).map((t) =>
          SystemProgram.transfer({
            fromPubkey: chain.node.faucet.publicKey,
            toPubkey: t.vault,
            lamports: 1_000n + BigInt(s),
          }),
        );
        const r = chain.node.submitInstructions(ixs, chain.node.faucet);
        if (r.err) throw new Error(`transfer failed: ${JSON.stringify(r.err)}`);
        // Yield between transactions so the endpoint keeps sending the previous slot meanwhile.
        await new Promise((resolve) => setImmediate(resolve));
      }
      lastGenMs = performance.now() - genStart;
      genMs += lastGenMs;
      chain.node.advanceSlots(1);
    }
    say({ done: true, ms: performance.now() - started, genMsPerSlot: genMs / cmd.run.slots });
  }
  await chain.stop();
  process.exit(0);
}

const i = process.argv.indexOf("--vaults");
await chainProcess(Number(process.argv[i + 1] ?? 1000));
