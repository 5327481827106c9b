/**
 * The package's command started as a separate process, as a project using it in place of
 * solana-test-validator starts it: the tests reach it only through the URLs it prints.
 */
import { join } from "node:path";

export interface ChainProcess {
  rpcUrl: string;
  wsUrl: string;
  grpcUrl: string;
  treasury: string;
  /** one JSON-RPC call, raw: the answer's `result` or `error` as the node wrote them */
  call(method: string, params?: unknown[]): Promise<{ result?: any; error?: { code: number; message: string } }>;
  /** raw body in, parsed answer out (for what clients refuse to send) */
  post(body: string): Promise<any>;
  /** moves the clock (localnet_advanceSlots); the process must run with --slot-ms 0 to stand still otherwise */
  advance(slots: number): Promise<number>;
  stop(): Promise<void>;
}

const BIN = join(import.meta.dir, "..", "bin", "localnet.ts");

export async function startChainProcess(args: string[] = []): Promise<ChainProcess> {
  const proc = Bun.spawn([process.execPath, BIN, "--rpc-port", "0", "--grpc-port", "0", "--quiet", ...args], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const reader = proc.stdout.getReader();
  let text = "";
  const deadline = Date.now() + 30_000;
  while (!/^Slot: /m.test(text)) {
    if (Date.now() > deadline) throw new Error(`localnet did not start: ${text}`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`localnet exited: ${text}${await new Response(proc.stderr).text()}`);
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const line = (label: string) => {
    const m = new RegExp(`^${label}: (\\S+)`, "m").exec(text);
    if (!m) throw new Error(`localnet printed no ${label}: ${text}`);
    return m[1]!;
  };
  const rpcUrl = line("JSON-RPC URL");
  const post = async (body: string) => {
    const res = await fetch(rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body });
    return res.json();
  };
  const call = (method: string, params: unknown[] = []) =>
    post(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }));
  return {
    rpcUrl,
    wsUrl: line("WebSocket URL"),
    grpcUrl: line("Yellowstone gRPC URL"),
    treasury: line("Treasury"),
    call,
    post,
    advance: async (slots) => {
      const r = await call("localnet_advanceSlots", [slots]);
      if (r.error) throw new Error(r.error.message);
      return r.result;
    },
    stop: async () => {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

/** Polls until `fn` answers something truthy; never a fixed sleep. */
export async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, ms = 20_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
