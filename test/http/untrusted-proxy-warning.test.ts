/**
 * Behind a proxy on another host, TRUST_PROXY's header arrives from a peer outside TRUSTED_PROXIES
 * (loopback by default): it is ignored, so every client shares the proxy's rate limit. The service
 * says so once in its log (a warning naming the peer), not once per request.
 */
import { afterEach, expect, test } from "bun:test";
import { setLogLevel, setLogSilent } from "../../src/lib/log";
import { testService, type TestService } from "../helpers/service";
import { listen } from "../helpers/socket";

let svc: TestService | null = null;
let stopServer: (() => void) | null = null;
afterEach(async () => {
  stopServer?.();
  stopServer = null;
  await svc?.cleanup();
  svc = null;
});

/** The service's log lines written while `work` runs (the test runner's log is silent otherwise). */
async function logLinesOf(work: () => Promise<void>): Promise<{ level: string; msg: string; peer?: string }[]> {
  const text: string[] = [];
  const out = process.stdout.write;
  const err = process.stderr.write;
  const capture = (chunk: string | Uint8Array) => {
    text.push(typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk));
    return true;
  };
  process.stdout.write = capture as typeof process.stdout.write;
  process.stderr.write = capture as typeof process.stderr.write;
  setLogSilent(false);
  setLogLevel("info");
  try {
    await work();
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
    setLogSilent(true);
  }
  return text
    .join("")
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line));
}

const fromUntrusted = (line: { msg: string }) => line.msg.includes("outside TRUSTED_PROXIES");

test("forwarded headers from a peer outside TRUSTED_PROXIES: one warning naming the peer, not one per request", async () => {
  // The test's loopback socket stands for a proxy on another host: not in TRUSTED_PROXIES.
  svc = testService({ TRUST_PROXY: "x-forwarded-for", TRUSTED_PROXIES: "10.0.0.0/8" });
  const server = listen(svc);
  stopServer = server.stop;
  const base = `http://127.0.0.1:${server.port}/api/stats`;

  const quiet = await logLinesOf(async () => {
    expect((await fetch(base)).status).toBe(200);
  });
  expect(quiet.filter(fromUntrusted)).toEqual([]);

  const lines = await logLinesOf(async () => {
    for (let i = 1; i <= 5; i++)
      expect((await fetch(base, { headers: { "x-forwarded-for": `198.51.100.${i}` } })).status).toBe(200);
  });
  const warnings = lines.filter(fromUntrusted);
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatchObject({ level: "warn", peer: "127.0.0.1" });
});

test("no warning when the peer is a trusted proxy", async () => {
  svc = testService({ TRUST_PROXY: "x-forwarded-for" });
  const server = listen(svc);
  stopServer = server.stop;
  const lines = await logLinesOf(async () => {
    for (let i = 1; i <= 3; i++)
      expect(
        (
          await fetch(`http://127.0.0.1:${server.port}/api/stats`, {
            headers: { "x-forwarded-for": `198.51.100.${i}` },
          })
        ).status,
      ).toBe(200);
  });
  expect(lines.filter(fromUntrusted)).toEqual([]);
});
