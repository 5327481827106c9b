/**
 * How fast the indexer turns chain updates into stored vault readings.
 *
 *   bun run bench:indexer [--vaults 1000] [--slots 40] [--slot-ms 400] [--saturation-slots 30]
 *
 * The local chain runs in a child process (as a provider would: its work does not share the
 * indexer's event loop) and changes every token's curve vault in every slot. The indexer, in this
 * process, subscribes over Yellowstone gRPC exactly as the service does and stores readings in a
 * real SQLite database. Printed:
 *  - delay from a slot's update (the stream message's createdAt, stamped by the endpoint when it
 *    sends the confirmed slot) to the reading committed in the database: median and p99, per vault;
 *  - vault updates per second handled at the offered rate;
 *  - the indexer's ceiling: updates fed to it back to back (same cache, adapter and database
 *    writer, without the gRPC hop), updates per second and delay.
 */
import { Keypair } from "@solana/web3.js";
import bs58 from "bs58";
import { rmSync } from "node:fs";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(v) || v < 0) throw new Error(`--${name} must be a non-negative integer`);
  return v;
}

const VAULTS = arg("vaults", 1000);
const SLOTS = arg("slots", 40);
const SLOT_MS = arg("slot-ms", 400);
const SATURATION_SLOTS = arg("saturation-slots", 30);

await main();

async function main(): Promise<void> {
  const m = await loadModules();
  m.setLogSilent(true);

  const seed = crypto.getRandomValues(new Uint8Array(32));
  const chain = spawnChain(seed);
  process.stdout.write(`creating ${VAULTS} tokens on the local chain...\n`);
  const ready = await chain.next("ready");
  const world = openService(m, ready, seed);
  const stored: StoredReadings = { delays: [], lastAt: 0 };
  const indexer = await startStreamingIndexer(m, world, ready, stored);
  await measureStream(indexer, chain, stored);
  await indexer.stop();
  if (SATURATION_SLOTS > 0) await measureCeiling(world, ready);

  chain.send({ stop: true });
  await world.service.close();
  await chain.child.exited;
  rmSync(world.config.dataDir, { recursive: true, force: true });
  process.exit(0);
}

async function loadModules() {
  const { testConfig } = await import("../src/config.ts");
  const { buildService } = await import("../src/service.ts");
  const { createRpcChain } = await import("../src/chain/rpc.ts");
  const { localProgram } = await import("@fee-ledger/localnet");
  const { localLaunchProgram } = await import("../src/chain/setup.ts");
  const { recordConfirmedLaunch } = await import("../src/tokens/index.ts");
  const { startIndexer } = await import("../indexer/index.ts");
  const { setLogSilent } = await import("../src/lib/log.ts");
  return {
    testConfig,
    buildService,
    createRpcChain,
    localProgram,
    localLaunchProgram,
    recordConfirmedLaunch,
    startIndexer,
    setLogSilent,
  };
}

type Modules = Awaited<ReturnType<typeof loadModules>>;
// biome-ignore lint/suspicious/noExplicitAny: each reply of the bench's chain child has its own shape, read by the caller that asked
type ChildReply = any;
type BenchWorld = ReturnType<typeof openService>;
type Indexer = ReturnType<Modules["startIndexer"]>;
/** The readings the indexer reports stored: their delays, and when the last was stored. */
interface StoredReadings {
  delays: number[];
  lastAt: number;
}

/** The chain's child process, and its line protocol: JSON requests in, JSON replies out by key. */
function spawnChain(seed: Uint8Array) {
  const child = Bun.spawn(
    [process.execPath, new URL("./bench-indexer-chain.ts", import.meta.url).pathname, "--vaults", String(VAULTS)],
    {
      env: { ...process.env, BENCH_PROGRAM_SEED: Buffer.from(seed).toString("hex") },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "inherit",
    },
  );
  const messages: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  void (async () => {
    let buf = "";
    for await (const chunk of child.stdout as unknown as AsyncIterable<Uint8Array>) {
      buf += new TextDecoder().decode(chunk);
      for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.startsWith("{")) messages.push(JSON.parse(line));
        for (const w of waiters.splice(0)) w();
      }
    }
  })();
  const next = async (key: string): Promise<ChildReply> => {
    for (;;) {
      const i = messages.findIndex((m) => key in m);
      if (i >= 0) return messages.splice(i, 1)[0]!;
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  const send = (o: object) => {
    child.stdin.write(`${JSON.stringify(o)}\n`);
    child.stdin.flush();
  };
  return { child, next, send };
}

/** The service over the child's chain, with every token the child made recorded as launched. */
function openService(m: Modules, ready: ChildReply, seed: Uint8Array) {
  const config = m.testConfig({ SWEEP_MIN_LAMPORTS: "1" });
  const rpc = m.createRpcChain({ rpcUrl: ready.rpcUrl, timeoutMs: 10_000, retries: 3, allowNodeCosigners: true });
  const programConfig = { creatorFeeBps: 30, bondThresholdLamports: 85_000_000_000n };
  const keys = new m.localProgram.LocalProgramKeys(seed);
  const program = (reader: typeof rpc.reader) => m.localLaunchProgram({ programKeys: keys, programConfig }, reader);
  const treasury = Keypair.generate();
  const services = {
    reader: rpc.reader,
    sender: rpc.sender,
    launchProgram: program(rpc.reader),
    treasury,
    creatorKeypair: () => treasury,
    creatorAddress: () => treasury.publicKey,
  };
  const service = m.buildService(config, { chain: services });
  const now = Date.now();
  ready.tokens.forEach((t: { mint: string; creator: string }, i: number) => {
    m.recordConfirmedLaunch(
      service.ctx.db,
      {
        mint: t.mint,
        name: `Bench ${i}`,
        symbol: `B${i}`,
        description: "",
        website: null,
        twitter: null,
        telegram: null,
        metadataUri: `local://bench/${i}`,
        imageUri: null,
        creatorIndex: i + 1,
        creator: t.creator,
        creatorVault: services.launchProgram.vaultAddresses(t).curveVault,
        deployer: treasury.publicKey.toBase58(),
        launchSignature: bs58Signature(i),
        launchedAtMs: now,
        platformBps: 1000,
        recipients: [{ handle: `h${i}`, bps: 10_000 }],
      },
      now,
    );
  });
  return { config, rpc, program, services, service };
}

async function startStreamingIndexer(
  m: Modules,
  world: BenchWorld,
  ready: ChildReply,
  stored: StoredReadings,
): Promise<Indexer> {
  const indexer = m.startIndexer(
    world.service.ctx,
    { services: world.services, local: null },
    {
      grpcUrl: ready.grpcUrl,
      launchProgramOver: world.program,
      // Every token this bench made trades: all of them are watched, whatever the deployment's default.
      watchMax: VAULTS,
      onReadingsStored: (d) => {
        for (const x of d) stored.delays.push(x);
        stored.lastAt = performance.now();
      },
    },
  );
  const deadline = Date.now() + 60_000;
  while (!indexer.state().connected || indexer.state().lastUpdateAt === null) {
    if (Date.now() > deadline) throw new Error("the indexer did not connect");
    await Bun.sleep(20);
  }
  await indexer.idle();
  return indexer;
}

function summary(delaysMs: number[]): string {
  const sorted = [...delaysMs].sort((x, y) => x - y);
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
  return `median ${pct(50).toFixed(0)} ms, p99 ${pct(99).toFixed(0)} ms, max ${(sorted.at(-1) ?? NaN).toFixed(0)} ms (${sorted.length} readings)`;
}

/** Phase 1: the whole path, chain -> Yellowstone gRPC -> indexer -> SQLite, every vault every slot. */
async function measureStream(
  indexer: Indexer,
  chain: ReturnType<typeof spawnChain>,
  stored: StoredReadings,
): Promise<void> {
  stored.delays = [];
  const before = indexer.stats().accountUpdates;
  const reconnectsBefore = indexer.state().reconnects;
  const t0 = performance.now();
  chain.send({ run: { slots: SLOTS, slotMs: SLOT_MS } });
  const done = await chain.next("done");
  const expected = SLOTS * VAULTS;
  // Updates the stream lost to a reconnect are read over RPC by the catch-up instead, so the
  // count may stop short of `expected`: wait a bounded time for the tail, not forever.
  const tail = Date.now() + 10_000;
  while (indexer.stats().accountUpdates - before < expected && Date.now() < tail) await Bun.sleep(5);
  if (process.env.BENCH_DEBUG) console.error(JSON.stringify(indexer.state()), indexer.stats());
  await indexer.idle();
  const handled = indexer.stats().accountUpdates - before;
  const elapsedS = (stored.lastAt - t0) / 1000;
  process.stdout.write(
    `stream: ${SLOTS} slots x ${VAULTS} vaults, every vault changing every slot; chain ${(done.ms / SLOTS).toFixed(0)} ms/slot (target ${SLOT_MS})\n` +
      `  slot update -> database: ${summary(stored.delays)}\n` +
      `  handled ${handled} of ${expected} vault updates from the stream, ${(handled / elapsedS).toFixed(0)} updates/s (the offered rate, first update to last reading); ` +
      `${indexer.state().reconnects - reconnectsBefore} reconnects; lag at end ${indexer.state().lagSlots} slots\n`,
  );
  // A reconnect means the stream could not keep up: say why, as the indexer saw it.
  const reconnects = indexer.state().reconnects - reconnectsBefore;
  if (reconnects > 0) process.stdout.write(`  last stream error: ${indexer.state().lastError ?? "none recorded"}\n`);
}

/**
 * Phase 2: the indexer's own ceiling. Updates are fed as fast as it takes them, in bursts
 * of one slot's worth, through the same cache, adapter and writer (no gRPC decoding).
 */
async function measureCeiling(world: BenchWorld, ready: ChildReply): Promise<void> {
  const { service, services, program, rpc } = world;
  const { IndexerCore } = await import("../indexer/index.ts");
  const { acquireLease, assertLeaseHeld } = await import("../src/jobs/index.ts");
  const lease = acquireLease(service.ctx.db, "indexer", "bench", 600_000)!;
  const satDelays: number[] = [];
  const core = new IndexerCore({
    ctx: service.ctx,
    chain: services,
    launchProgramOver: program,
    job: { lease, signal: new AbortController().signal, assertHeld: () => assertLeaseHeld(service.ctx.db, lease) },
    onReadingsStored: (d) => satDelays.push(...d),
  });
  await core.syncWatched();
  await core.catchUp(0n);
  await core.idle();
  satDelays.length = 0;
  const vaults = ready.tokens.map(
    (t: { mint: string; creator: string }) => services.launchProgram.vaultAddresses(t).curveVault as string,
  );
  const snapshots = await rpc.reader.getAccounts(vaults);
  const startUpdates = core.accountUpdates;
  const s0 = performance.now();
  for (let round = 1; round <= SATURATION_SLOTS; round++) {
    const slot = 10_000_000n + BigInt(round);
    for (let i = 0; i < vaults.length; i++) {
      const snap = snapshots.get(vaults[i]!)!;
      core.onAccount(vaults[i]!, { ...snap, lamports: snap.lamports + BigInt(round) }, slot, BigInt(i + 1), Date.now());
      if (i % 100 === 99) await new Promise((r) => setImmediate(r));
    }
  }
  await core.idle();
  const satS = (performance.now() - s0) / 1000;
  const fed = core.accountUpdates - startUpdates;
  process.stdout.write(
    `ceiling: ${SATURATION_SLOTS} bursts x ${VAULTS} vault updates fed back to back\n` +
      `  ${(fed / satS).toFixed(0)} updates/s handled; update -> database ${summary(satDelays)}\n`,
  );
  core.stop();
}

function bs58Signature(i: number): string {
  // A distinct placeholder per token: the launch signature column is unique.
  const bytes = new Uint8Array(64);
  new DataView(bytes.buffer).setUint32(0, i + 1);
  return bs58.encode(bytes);
}
