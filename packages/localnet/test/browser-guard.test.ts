/**
 * The chain answers browsers only from loopback or listed origins, and only requests naming a
 * loopback or listed host: a page elsewhere cannot airdrop, switch faults on or open the PubSub
 * (a "simple" text/plain POST needs no preflight), and a DNS-rebinding page (its own name, resolved
 * to 127.0.0.1) reads nothing. Allowed origins get CORS, preflights included; clients that send no
 * Origin (web3.js, kit, the service) are unaffected.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Connection, Keypair } from "@solana/web3.js";
import type { LocalChain, LocalChainOptions } from "../src/index";
import { type ChainProcess, startChainProcess } from "./agave-process";
import { startTestChain } from "./helpers";

const chains: LocalChain[] = [];
const processes: ChainProcess[] = [];
const sockets: WebSocket[] = [];

afterEach(async () => {
  for (const ws of sockets.splice(0)) ws.close();
  for (const c of chains.splice(0)) await c.stop();
  for (const p of processes.splice(0)) await p.stop();
});

async function start(opts: Partial<LocalChainOptions> = {}): Promise<LocalChain> {
  const { chain } = await startTestChain(opts);
  chains.push(chain);
  return chain;
}

function rpcBody(method: string, params: unknown[] = []): string {
  return JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });
}

/** What a page's `fetch(url, { method: "POST", body })` sends: text/plain, its Origin. */
function post(url: string, body: string, headers: Record<string, string>): Promise<Response> {
  return fetch(url, { method: "POST", headers: { "content-type": "text/plain;charset=UTF-8", ...headers }, body });
}

/** The outcome of opening a PubSub socket with these headers: "open", or "refused". */
async function openWith(url: string, headers: Record<string, string>): Promise<"open" | "refused"> {
  const ws = new WebSocket(url, { headers } as unknown as string[]);
  sockets.push(ws);
  return new Promise((resolve) => {
    ws.onopen = () => resolve("open");
    ws.onerror = () => resolve("refused");
    ws.onclose = () => resolve("refused");
  });
}

describe("pages on other origins", () => {
  test("a text/plain POST from evil.example cannot airdrop or add a fault rule: 403, nothing done", async () => {
    const chain = await start();
    const victim = Keypair.generate().publicKey;
    const airdrop = await post(chain.rpcUrl, rpcBody("requestAirdrop", [victim.toBase58(), 1_000_000_000_000]), {
      origin: "http://evil.example",
    });
    expect(airdrop.status).toBe(403);
    expect(airdrop.headers.get("access-control-allow-origin")).toBeNull();
    const fault = await post(chain.rpcUrl, rpcBody("localnet_fault", [{ kind: "rpcError", count: 5, as: "503" }]), {
      origin: "https://evil.example",
    });
    expect(fault.status).toBe(403);
    // A preflight from there is refused as well.
    const preflight = await fetch(chain.rpcUrl, {
      method: "OPTIONS",
      headers: { origin: "http://evil.example", "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(403);

    chain.node.advanceSlots(1);
    const connection = new Connection(chain.rpcUrl, "processed");
    expect(await connection.getBalance(victim)).toBe(0);
    const rules = await (await fetch(chain.rpcUrl, { method: "POST", body: rpcBody("localnet_faults") })).json();
    expect(rules.result.rules).toEqual([]);
  });

  test("a foreign Host (DNS rebinding) is refused: JSON-RPC, health and the PubSub upgrade", async () => {
    const chain = await start();
    const rebound = await post(chain.rpcUrl, rpcBody("getBalance", [Keypair.generate().publicKey.toBase58()]), {
      host: "evil.example:8899",
    });
    expect(rebound.status).toBe(403);
    expect((await fetch(`${chain.rpcUrl}/health`, { headers: { host: "evil.example" } })).status).toBe(403);
    expect(await openWith(chain.wsUrl, { host: "evil.example" })).toBe("refused");
    // loopback names are answered
    for (const host of ["localhost:8899", "127.0.0.1", "[::1]:8899", "app.localhost"]) {
      const answer = await post(chain.rpcUrl, rpcBody("getHealth"), { host });
      expect({ host, status: answer.status }).toEqual({ host, status: 200 });
    }
  });

  test("the PubSub refuses a socket from another origin and accepts a loopback one", async () => {
    const chain = await start();
    expect(await openWith(chain.wsUrl, { origin: "https://evil.example" })).toBe("refused");
    expect(await openWith(chain.wsUrl, { origin: "http://localhost:5173" })).toBe("open");
  });
});

describe("loopback and listed origins", () => {
  test("a loopback page gets CORS: preflight answered with what it asked, the answer names its origin", async () => {
    const chain = await start();
    const origin = "http://localhost:5173";
    const preflight = await fetch(chain.rpcUrl, {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type, solana-client",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe(origin);
    expect(preflight.headers.get("access-control-allow-headers")).toBe("content-type, solana-client");
    expect(preflight.headers.get("access-control-allow-methods")).toContain("POST");

    const answer = await fetch(chain.rpcUrl, {
      method: "POST",
      headers: { origin, "content-type": "application/json", "solana-client": "js/1.0.0" },
      body: rpcBody("getHealth"),
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("access-control-allow-origin")).toBe(origin);
    expect((await answer.json()).result).toBe("ok");
  });

  test("listed origins and hosts are answered; others still refused", async () => {
    const chain = await start({
      allowedOrigins: ["https://app.example", "chrome-extension://abcdefghijklmnop"],
      allowedHosts: ["devbox.lan"],
    });
    for (const origin of ["https://app.example", "chrome-extension://abcdefghijklmnop"]) {
      const answer = await post(chain.rpcUrl, rpcBody("getHealth"), { origin });
      expect({ origin, status: answer.status, cors: answer.headers.get("access-control-allow-origin") }).toEqual({
        origin,
        status: 200,
        cors: origin,
      });
    }
    for (const origin of ["https://app.example.evil", "http://app.example", "chrome-extension://other", "null"]) {
      const answer = await post(chain.rpcUrl, rpcBody("getHealth"), { origin });
      expect({ origin, status: answer.status }).toEqual({ origin, status: 403 });
    }
    expect((await post(chain.rpcUrl, rpcBody("getHealth"), { host: "devbox.lan:8899" })).status).toBe(200);
    expect((await post(chain.rpcUrl, rpcBody("getHealth"), { host: "other.lan" })).status).toBe(403);
    expect(await openWith(chain.wsUrl, { origin: "https://app.example", host: "devbox.lan" })).toBe("open");
  });

  test("the command takes --allow-host and --allow-origin", async () => {
    const chain = await startChainProcess([
      "--slot-ms",
      "0",
      "--allow-host",
      "devbox.lan",
      "--allow-origin",
      "https://app.example",
    ]);
    processes.push(chain);
    const listed = await post(chain.rpcUrl, rpcBody("getHealth"), {
      host: "devbox.lan",
      origin: "https://app.example",
    });
    expect(listed.status).toBe(200);
    expect(listed.headers.get("access-control-allow-origin")).toBe("https://app.example");
    expect((await post(chain.rpcUrl, rpcBody("getHealth"), { origin: "http://evil.example" })).status).toBe(403);
    expect((await post(chain.rpcUrl, rpcBody("getHealth"), { host: "evil.example" })).status).toBe(403);
    // clients without an Origin are unaffected
    expect(await chain.call("getHealth")).toMatchObject({ result: "ok" });
  });
});
