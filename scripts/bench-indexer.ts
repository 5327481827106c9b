/**
 * How fast the indexer turns chain updates into stored vault readings.
 *
 *   bun run bench:indexer [--vaults 1000] [--slots 40] [--slot-ms 400]
 *
 * The local chain runs in a child process (as a provider would: its work does not share the
 * indexer's event loop) and changes every token's curve vault in every slot. The indexer, in this
 * process, subscribes over Yellowstone gRPC exactly as the service does and stores readings in a
 * real SQLite database. Printed:
 *  - delay from a slot's update (the stream message's createdAt, stamped by the endpoint when it
 *    sends the confirmed slot) to the reading committed in the database: median and p99, per vault;
 *  - vault updates per second handled at the offered rate, then in a saturation phase where the
 *    chain closes slots as fast as it can generate them.
 */
import { Keypair, SystemProgram } from "@solana/web3.js";
import bs58 from "bs58";
import { rmSync } from "node:fs";
import { createInterface } from "node:readline";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(v) || v < 0) throw new Error(`--${name} must be a non-negative integer`);
  return v;
}

const VAULTS = arg("vaults", 1000);
const SLOTS = arg("slots", 40);
const SLOT_MS = arg("slot-ms", 400);
const SATURATION_SLOTS = arg("saturation-slots", 20);
const TRANSFERS_PER_TX = 20;

if (process.argv.includes("--chain")) await chainProcess();
else await main();

/** The child: a local chain whose every watched vault changes in every slot. */
async function chainProcess(): Promise<void> {
  const { startLocalChain } = await import("../src/chain/localnet/index.ts");
  const seed = Uint8Array.from(Buffer.from(process.env.BENCH_PROGRAM_SEED!, "hex"));
  const chain = await startLocalChain({ rpcPort: 0, grpcPort: 0, slotMs: 0, programSeed: seed });
  const tokens: { mint: string; creator: string; vault: Keypair["publicKey"] }[] = [];
  for (let i = 0; i < VAULTS; i++) {
    const creator = Keypair.generate().publicKey.toBase58();
    const created = chain.launch.createToken({ name: `Bench ${i}`, symbol: `B${i}`, uri: `local://bench/${i}`, creator });
    if (created.err) throw new Error(`create failed: ${JSON.stringify(created.err)}`);
    tokens.push({ mint: created.mint, creator, vault: chain.programKeys.curveVault(creator).publicKey });
  }
  chain.node.advanceSlots(1);
  const say = (o: object) => process.stdout.write(`${JSON.stringify(o)}\n`);
  say({ ready: true, rpcUrl: chain.rpcUrl, grpcUrl: chain.grpcUrl, tokens: tokens.map(({ mint, creator }) => ({ mint, creator })) });

  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    const cmd = JSON.parse(line) as { run?: { slots: number; slotMs: number }; stop?: true };
    if (cmd.stop) break;
    if (!cmd.run) continue;
    const started = performance.now();
    let genMs = 0;
    let lastGenMs = 0;
    for (let s = 0; s < cmd.run.slots; s++) {
      // Idle first, generate last: the endpoint shares this event loop, and it needs the time
      // right after a slot closes to send that slot's updates.
      const wait = cmd.run.slotMs - lastGenMs;
      await Bun.sleep(wait > 0 ? wait : 0);
      const genStart = performance.now();
      // Transfers batched into transactions, so generating 1000 vault changes takes a fraction of a slot.
      for (let i = 0; i < tokens.length; i += TRANSFERS_PER_TX) {
        const ixs = tokens.slice(i, i + TRANSFERS_PER_TX).map((t) =>
          SystemProgram.transfer({ fromPubkey: chain.node.faucet.publicKey, toPubkey: t.vault, lamports: 1_000n + BigInt(s) }),
        );
        const r = chain.node.submitInstructions(ixs, chain.node.faucet);
        if (r.err) throw new Error(`transfer failed: ${JSON.stringify(r.err)}`);
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

async function main(): Promise<void> {
  const { testConfig } = await import("../src/config.ts");
  const { buildService } = await import("../src/service.ts");
  const { createRpcChain } = await import("../src/chain/rpc.ts");
  const { LocalLaunchProgram, localProgram } = await import("../src/chain/localnet/index.ts");
  const { recordConfirmedLaunch } = await import("../src/tokens/launch-record.ts");
  const { startIndexer } = await import("../indexer/index.ts");
  const { setLogSilent } = await import("../src/lib/log.ts");
  setLogSilent(true);

  const seed = crypto.getRandomValues(new Uint8Array(32));
  const child = Bun.spawn([process.execPath, import.meta.path, "--chain", "--vaults", String(VAULTS)], {
    env: { ...process.env, BENCH_PROGRAM_SEED: Buffer.from(seed).toString("hex") },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  const messages: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  void (async () => {
    let buf = "";
    for await (const chunk of child.stdout) {
      buf += new TextDecoder().decode(chunk);
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.startsWith("{")) messages.push(JSON.parse(line));
        for (const w of waiters.splice(0)) w();
      }
    }
  })();
  const next = async (key: string) => {
    for (;;) {
      const i = messages.findIndex((m) => key in m);
      if (i >= 0) return messages.splice(i, 1)[0]! as any;
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  const send = (o: object) => {
    child.stdin.write(`${JSON.stringify(o)}\n`);
    child.stdin.flush();
  };

  process.stdout.write(`creating ${VAULTS} tokens on the local chain...\n`);
  const ready = await next("ready");
  const config = testConfig({ SWEEP_MIN_LAMPORTS: "1" });
  const rpc = createRpcChain({ rpcUrl: ready.rpcUrl, timeoutMs: 10_000, retries: 3, allowNodeCosigners: true });
  const programConfig = { creatorFeeBps: 30, bondThresholdLamports: 85_000_000_000n };
  const keys = new localProgram.LocalProgramKeys(seed);
  const program = (reader: typeof rpc.reader) => new LocalLaunchProgram(keys, programConfig, reader);
  const treasury = Keypair.generate();
  const services = {
    reader: rpc.reader,
    sender: rpc.sender,
    launchProgram: program(rpc.reader),
    treasury,
    creatorKeypair: () => treasury,
    creatorAddress: () => treasury.publicKey,
  };
  const service = buildService(config, { chain: services });
  const now = Date.now();
  ready.tokens.forEach((t: { mint: string; creator: string }, i: number) => {
    recordConfirmedLaunch(
      service.ctx.db,
      {
        mint: t.mint, name: `Bench ${i}`, symbol: `B${i}`, description: "", website: null, twitter: null, telegram: null,
        metadataUri: `local://bench/${i}`, imageUri: null, creatorIndex: i + 1, creator: t.creator,
        creatorVault: services.launchProgram.vaultAddresses(t).curveVault, deployer: treasury.publicKey.toBase58(),
        launchSignature: bs58Signature(i), launchedAtMs: now, platformBps: 1000, recipients: [{ handle: `h${i}`, bps: 10_000 }],
      },
      now,
    );
  });

  let delays: number[] = [];
  let stored = 0;
  const indexer = startIndexer(service.ctx, { services, local: null }, {
    grpcUrl: ready.grpcUrl,
    launchProgramOver: program,
    onReadingsStored: (d) => {
      stored += d.length;
      for (const x of d) delays.push(x);
    },
  });
  const deadline = Date.now() + 60_000;
  while (!indexer.state().connected || indexer.state().lastUpdateAt === null) {
    if (Date.now() > deadline) throw new Error("the indexer did not connect");
    await Bun.sleep(20);
  }
  await indexer.idle();

  const phase = async (label: string, slots: number, slotMs: number) => {
    delays = [];
    stored = 0;
    const t0 = performance.now();
    send({ run: { slots, slotMs } });
    const done = await next("done");
    const expected = slots * VAULTS;
    // Wait for the tail: every vault of the last slot stored.
    const tail = Date.now() + 30_000;
    while (stored < expected && Date.now() < tail) await Bun.sleep(5);
    await indexer.idle();
    const elapsedS = (performance.now() - t0) / 1000;
    const sorted = [...delays].sort((a, b) => a - b);
    const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
    const state = indexer.state();
    process.stdout.write(
      `${label}: ${slots} slots x ${VAULTS} vaults, chain ${(done.ms / slots).toFixed(0)} ms/slot (generation ${done.genMsPerSlot.toFixed(0)} ms)\n` +
        `  update -> database delay: median ${pct(50).toFixed(0)} ms, p99 ${pct(99).toFixed(0)} ms, max ${sorted.at(-1)?.toFixed(0)} ms (${sorted.length} readings)\n` +
        `  handled: ${(stored / elapsedS).toFixed(0)} vault updates/s (${stored} of ${expected}); lag at end ${state.lagSlots} slots\n`,
    );
  };

  await phase(`steady (${SLOT_MS} ms slots)`, SLOTS, SLOT_MS);
  if (SATURATION_SLOTS > 0) await phase("saturation (slots back to back)", SATURATION_SLOTS, 0);

  send({ stop: true });
  await indexer.stop();
  await service.close();
  await child.exited;
  rmSync(config.dataDir, { recursive: true, force: true });
  process.exit(0);
}

function bs58Signature(i: number): string {
  // A distinct placeholder per token: the launch signature column is unique.
  const bytes = new Uint8Array(64);
  new DataView(bytes.buffer).setUint32(0, i + 1);
  return bs58.encode(bytes);
}
