/**
 * Benchmark of the live ledger stream: a service process (the real app, its SSE hub, the
 * in-process commit notifier) writes ledger events at a fixed rate while N clients hold
 * `/api/ledger/stream` open. For each event and stream, the delay from the event's commit to its
 * arrival at the client. Two phases in the same run: a baseline of 10 streams, then the target
 * (1,000 streams at 100 events/s by default). Prints p50/p99/max delivery delay, events missed,
 * and the server's RSS before and at the peak.
 *
 *   bun run bench:stream [-- --streams 1000 --rate 100 --seconds 10 --port 31900]
 *
 * Clients and server share the machine (the clients run in this process, the server in a child),
 * so the baseline phase is the yardstick for the noise of the box.
 */
import { spawn } from "bun";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const args = process.argv.slice(2);

async function* chunks(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    yield value;
  }
}
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : fallback;
};

// ------------------------------------------------------------------ server mode (child process)
if (args.includes("--server")) {
  const { testConfig } = await import("../src/config");
  const { buildService } = await import("../src/service");
  const { recordConfirmedLaunch } = await import("../src/tokens");
  const { base58Of, rng } = await import("./seed");
  const port = Number(arg("--port", "31900"));
  const config = testConfig({
    DATA_DIR: arg("--dir", ""),
    PORT: String(port),
    RATE_LIMIT: "0",
    TRUST_PROXY: "x-forwarded-for",
  });
  const service = buildService(config);
  const server = service.app.listen({ port, hostname: "127.0.0.1" });
  const random = rng(7);
  let index = 0;
  let peakRss = process.memoryUsage().rss;
  setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
  const say = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
  say({ ready: true, rss: process.memoryUsage().rss });
  for await (const chunk of chunks(Bun.stdin.stream())) {
    for (const line of new TextDecoder().decode(chunk).split("\n").filter(Boolean)) {
      const command = JSON.parse(line) as { write?: { rate: number; seconds: number }; rss?: true; stop?: true };
      if (command.rss) {
        peakRss = Math.max(peakRss, process.memoryUsage().rss);
        say({
          rss: process.memoryUsage().rss,
          peakRss,
          cpuMs: Math.round((process.cpuUsage().user + process.cpuUsage().system) / 1000),
        });
      }
      if (command.stop) {
        await server.server?.stop(true);
        await service.close();
        process.exit(0);
      }
      if (command.write) {
        const { rate, seconds } = command.write;
        const total = rate * seconds;
        const startedMs = Date.now();
        const commitMs: number[] = [];
        for (let i = 0; i < total; i++) {
          const due = startedMs + (i * 1000) / rate;
          const wait = due - Date.now();
          if (wait > 0) await Bun.sleep(wait);
          // `at` of a launch event is its block time: here the commit time, so a client can time it.
          const mint = base58Of(random, 32);
          const commitStarted = performance.now();
          recordConfirmedLaunch(
            service.ctx.db,
            {
              mint,
              name: `Bench ${index}`,
              symbol: `B${index % 100_000}`,
              description: "bench",
              website: null,
              twitter: null,
              telegram: null,
              metadataUri: `ipfs://bench-${mint}`,
              imageUri: null,
              creatorIndex: ++index,
              creator: base58Of(random, 32),
              creatorVault: base58Of(random, 32),
              deployer: base58Of(random, 32),
              launchSignature: base58Of(random, 64),
              launchedAtMs: Date.now(),
              platformBps: 1000,
              recipients: [{ handle: "bench", bps: 10_000 }],
            },
            Date.now(),
          );
          commitMs.push(performance.now() - commitStarted);
        }
        commitMs.sort((a, b) => a - b);
        const p99 = commitMs[Math.floor(commitMs.length * 0.99)] ?? 0;
        say({ wrote: total, ms: Date.now() - startedMs, commitP99Ms: Math.round(p99) });
      }
    }
  }
}

// ------------------------------------------------------------------ driver
// Bun's fetch holds at most 256 requests open at once unless told otherwise; a stream never ends.
if (!process.env.BUN_CONFIG_MAX_HTTP_REQUESTS) {
  const self = spawn([process.execPath, "run", import.meta.path, ...args], {
    env: { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: "65336" },
    stdio: ["inherit", "inherit", "inherit"],
  });
  process.exit(await self.exited);
}
const streams = Number(arg("--streams", "1000"));
const rate = Number(arg("--rate", "100"));
const seconds = Number(arg("--seconds", "10"));
const port = Number(arg("--port", "31900"));
const dir = join(tmpdir(), `cfl-bench-stream-${process.pid}`);

const child = spawn([process.execPath, "run", import.meta.path, "--server", "--port", String(port), "--dir", dir], {
  stdin: "pipe",
  stdout: "pipe",
  stderr: "inherit",
});
const lines: object[] = [];
const waiters: (() => void)[] = [];
void (async () => {
  let buffer = "";
  for await (const chunk of chunks(child.stdout as ReadableStream<Uint8Array>)) {
    buffer += new TextDecoder().decode(chunk);
    for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
      lines.push(JSON.parse(buffer.slice(0, nl)));
      buffer = buffer.slice(nl + 1);
      for (const w of waiters.splice(0)) w();
    }
  }
})();
async function nextLine<T>(key: string): Promise<T> {
  for (;;) {
    const i = lines.findIndex((l) => key in l);
    if (i >= 0) return lines.splice(i, 1)[0] as T;
    await new Promise<void>((resolve) => waiters.push(resolve));
  }
}
const send = (command: object) => {
  child.stdin.write(`${JSON.stringify(command)}\n`);
  child.stdin.flush();
};

interface Client {
  controller: AbortController;
  delaysMs: number[];
  received: number;
}

async function openStreams(n: number, offset: number): Promise<Client[]> {
  const clients: Client[] = [];
  const opening: Promise<void>[] = [];
  for (let i = 0; i < n; i++) {
    const client: Client = { controller: new AbortController(), delaysMs: [], received: 0 };
    clients.push(client);
    // One client IP per stream, as a crowd of browsers: the per-IP limit is 5.
    const ip = `10.${((offset + i) >> 16) & 255}.${((offset + i) >> 8) & 255}.${(offset + i) & 255}`;
    opening.push(
      fetch(`http://127.0.0.1:${port}/api/ledger/stream`, {
        headers: { "x-forwarded-for": ip },
        signal: client.controller.signal,
      }).then(async (response) => {
        if (response.status !== 200) throw new Error(`stream refused: ${response.status}`);
        void consume(response, client);
      }),
    );
    if (opening.length % 100 === 0) await Promise.all(opening.slice(-100));
  }
  await Promise.all(opening);
  return clients;
}

async function consume(response: Response, client: Client): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for await (const chunk of chunks(response.body as ReadableStream<Uint8Array>)) {
      const nowMs = Date.now();
      buffer += decoder.decode(chunk, { stream: true });
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        // Cheaper than JSON.parse per frame: the client side must not be the bottleneck measured.
        const i = frame.indexOf('"at":"');
        if (i < 0) continue;
        const at = Date.parse(frame.slice(i + 6, frame.indexOf('"', i + 6)));
        client.delaysMs.push(nowMs - at);
        client.received += 1;
      }
    }
  } catch {
    // aborted at the end of the phase
  }
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

async function phase(n: number, offset: number) {
  const clients = await openStreams(n, offset);
  await Bun.sleep(500);
  send({ rss: true });
  const before = await nextLine<{ rss: number; cpuMs: number }>("rss");
  const clientCpuBefore = process.cpuUsage();
  send({ write: { rate, seconds } });
  const wrote = await nextLine<{ wrote: number; ms: number; commitP99Ms: number }>("wrote");
  await Bun.sleep(1_500);
  send({ rss: true });
  const after = await nextLine<{ rss: number; peakRss: number; cpuMs: number }>("rss");
  const clientCpu = process.cpuUsage(clientCpuBefore);
  for (const c of clients) c.controller.abort();
  const all = clients.flatMap((c) => c.delaysMs).sort((a, b) => a - b);
  const missed = clients.reduce((sum, c) => sum + (wrote.wrote - c.received), 0);
  await Bun.sleep(500);
  return {
    streams: n,
    events: wrote.wrote,
    writeSeconds: wrote.ms / 1000,
    // the delay is counted from before the write transaction: its own time (fsync) is part of it
    commitP99Ms: wrote.commitP99Ms,
    deliveries: all.length,
    missed,
    p50Ms: percentile(all, 50),
    p99Ms: percentile(all, 99),
    maxMs: all[all.length - 1] ?? NaN,
    // CPU seconds spent while the events were written and read: the box is shared, so this shows
    // whether the server or the clients (this process) were the busy side
    serverCpuSeconds: (after.cpuMs - before.cpuMs) / 1000,
    clientCpuSeconds: Math.round((clientCpu.user + clientCpu.system) / 1000) / 1000,
    rssBeforeMb: Math.round(before.rss / 1e6),
    rssPeakMb: Math.round(after.peakRss / 1e6),
  };
}

try {
  await nextLine("ready");
  const baseline = await phase(10, 0);
  const target = await phase(streams, 10_000);
  console.log(JSON.stringify({ rate, seconds, baseline, target }, null, 2));
  console.log(
    `\n${target.streams} streams, ${rate} events/s: p99 ${target.p99Ms} ms (baseline ${baseline.streams} streams: ${baseline.p99Ms} ms), ` +
      `missed ${target.missed}, server RSS ${target.rssBeforeMb} MB idle -> ${target.rssPeakMb} MB peak`,
  );
  const ok = target.missed === 0 && target.p99Ms < 1_000;
  console.log(ok ? "target met: every event on every stream, p99 under 1 s" : "TARGET MISSED");
  send({ stop: true });
  await child.exited;
  process.exitCode = ok ? 0 : 1;
} finally {
  child.kill();
  rmSync(dir, { recursive: true, force: true });
}
