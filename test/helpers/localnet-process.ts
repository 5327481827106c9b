/**
 * `npx localnet` (packages/localnet/bin/localnet.ts) as its own process, the chain a production
 * configuration (`CHAIN=pump`) points `RPC_URL` at: every port chosen by the system, the treasury
 * funded from a Solana CLI keypair file, only its URLs printed.
 */
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");

export interface LocalnetProcess {
  child: Bun.Subprocess<"ignore", "pipe", "pipe">;
  /** Its URLs once it has printed them; rejects with its stderr if it exits first. */
  ready: Promise<{ rpcUrl: string; wsUrl: string }>;
}

/** Hands a child's output to `into` as it comes (a service's log lines, localnet's URLs). */
export function collect(stream: ReadableStream<Uint8Array>, into: (text: string) => void): void {
  const decoder = new TextDecoder();
  void (async () => {
    for await (const chunk of stream) into(decoder.decode(chunk, { stream: true }));
  })();
}

/** Starts `npx localnet` in `cwd`; the caller stops it (`child.kill()`), also when `ready` rejects. */
export function startLocalnetProcess(options: { cwd: string; keypairFile: string }): LocalnetProcess {
  const child = Bun.spawn(
    [
      process.execPath,
      join(ROOT, "packages", "localnet", "bin", "localnet.ts"),
      "--rpc-port",
      "0",
      "--ws-port",
      "0",
      "--grpc-port",
      "0",
      "--keypair",
      options.keypairFile,
      "--quiet",
    ],
    { cwd: options.cwd, stdin: "ignore", stdout: "pipe", stderr: "pipe" },
  );
  let said = "";
  let stderr = "";
  collect(child.stderr, (text) => {
    stderr += text;
  });
  const exited = child.exited.then((code): never => {
    throw new Error(`localnet exited ${code}: ${stderr.slice(-2_000)}`);
  });
  const announced = new Promise<{ rpcUrl: string; wsUrl: string }>((resolve) =>
    collect(child.stdout, (text) => {
      said += text;
      const rpcUrl = /^JSON-RPC URL: (\S+)$/m.exec(said)?.[1];
      const wsUrl = /^WebSocket URL: (\S+)$/m.exec(said)?.[1];
      if (rpcUrl && wsUrl) resolve({ rpcUrl, wsUrl });
    }),
  );
  return { child, ready: Promise.race([announced, exited]) };
}
