#!/usr/bin/env bun
/**
 * `localnet`: the local chain as a command, in place of `solana-test-validator`. Serves JSON-RPC,
 * PubSub (WebSocket) and Yellowstone gRPC on loopback until interrupted; with --state, the chain
 * continues where the last run left it.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { Keypair } from "@solana/web3.js";
import { DEFAULT_SLOT_MS, startLocalChain, takeGenesisFlags } from "../src/index";

const USAGE = `Usage: localnet [options]

A one-node Solana chain (LiteSVM) behind agave's JSON-RPC, PubSub and Yellowstone gRPC.

Options:
  --rpc-port <port>     JSON-RPC port (default 8899; 0 = any free port)
  --ws-port <port>      PubSub WebSocket port (default: the JSON-RPC port + 1)
  --grpc-port <port>    Yellowstone gRPC port (default 10000; 0 = any free port)
  --slot-ms <ms>        slot time in milliseconds (default ${DEFAULT_SLOT_MS}; 0 = the clock stands still)
  --state <dir>         keep the chain in <dir> and continue it on the next start
  --reset               with --state: forget the saved chain and start fresh
  --keypair <file>      fund this Solana CLI keypair file (a JSON array of 64 bytes) as the treasury
  --quiet               print the URLs only, not the chain's log
  --loose-confirmed     confirmed reads see the open slot too (the library's default), not only
                        closed slots as agave's do
  --allow-host <host>   answer requests whose Host header names <host> (a proxy's or a LAN name);
                        repeatable, "*" = any. Only loopback names are answered otherwise
  --allow-origin <url>  answer browser pages from this origin (e.g. https://app.example), with
                        CORS; repeatable, "*" = any. Only loopback origins are answered otherwise
  -h, --help            this text

Loaded at genesis, as solana-test-validator does (with --state: only when the state is fresh):
  --bpf-program <ADDRESS_OR_KEYPAIR> <PROGRAM.so>
                        a program (BPFLoaderUpgradeable, upgrade authority 1111..1111: not
                        upgradeable); repeatable
  --upgradeable-program <ADDRESS_OR_KEYPAIR> <PROGRAM.so> <UPGRADE_AUTHORITY|none>
                        a program the authority (an address or a keypair file) may upgrade;
                        repeatable
  --account <ADDRESS|-> <FILE.json>
                        an account as \`solana account --output json\` dumps it ("-": at the
                        file's pubkey); repeatable
  --account-dir <DIR>   every *.json account file in <DIR>; repeatable
`;

function portOf(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) fail(`--${name} must be a port number (0-65535)`);
  return port;
}

function fail(message: string): never {
  process.stderr.write(`localnet: ${message}\n\n${USAGE}`);
  process.exit(2);
}

let args: ReturnType<typeof parse>;
let genesis: ReturnType<typeof takeGenesisFlags>;
try {
  genesis = takeGenesisFlags(process.argv.slice(2));
} catch (e) {
  fail((e as Error).message);
}
function parse() {
  return parseArgs({
    args: genesis.rest,
    options: {
      "rpc-port": { type: "string" },
      "ws-port": { type: "string" },
      "grpc-port": { type: "string" },
      "slot-ms": { type: "string" },
      state: { type: "string" },
      reset: { type: "boolean" },
      keypair: { type: "string" },
      quiet: { type: "boolean" },
      "loose-confirmed": { type: "boolean" },
      "allow-host": { type: "string", multiple: true },
      "allow-origin": { type: "string", multiple: true },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
}
try {
  args = parse();
} catch (e) {
  fail((e as Error).message);
}
const { values } = args;
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (values.reset && !values.state) fail("--reset needs --state <dir>");
const slotMs = values["slot-ms"] === undefined ? DEFAULT_SLOT_MS : Number(values["slot-ms"]);
if (!Number.isInteger(slotMs) || slotMs < 0) fail("--slot-ms must be a whole number of milliseconds");

let treasury: Keypair | undefined;
if (values.keypair) {
  try {
    treasury = Keypair.fromSecretKey(Uint8Array.from(JSON.parse(readFileSync(values.keypair, "utf8")) as number[]));
  } catch {
    fail(`--keypair ${values.keypair}: not a keypair file (a JSON array of 64 bytes)`);
  }
}

const rpcPort = portOf(values["rpc-port"], 8899, "rpc-port");
const chain = await startLocalChain({
  rpcPort,
  wsPort: values["ws-port"] === undefined ? undefined : portOf(values["ws-port"], 0, "ws-port"),
  grpcPort: portOf(values["grpc-port"], 10_000, "grpc-port"),
  slotMs,
  treasury,
  stateDir: values.state,
  // a drop-in validator answers confirmed reads as agave does (the library's callers opt in)
  strictConfirmed: !values["loose-confirmed"],
  reset: values.reset === true,
  allowedHosts: values["allow-host"],
  allowedOrigins: values["allow-origin"],
  ...genesis.loads,
  log: values.quiet ? undefined : (m) => process.stderr.write(`${m}\n`),
}).catch((e: unknown) => fail(`could not start: ${(e as Error).message}`));

// One line each, stable, for scripts (and the tests) to read.
process.stdout.write(
  [
    `JSON-RPC URL: ${chain.rpcUrl}`,
    `WebSocket URL: ${chain.wsUrl}`,
    `Yellowstone gRPC URL: ${chain.grpcUrl}`,
    `Treasury: ${chain.treasury.publicKey.toBase58()}`,
    `Slot: ${chain.node.getSlot()}${values.state ? ` (state in ${values.state})` : ""}`,
    "",
  ].join("\n"),
);

// agave says so too when its ledger exists; without --quiet the chain's log has said it
if (values.quiet && chain.restoredFromSlot !== null && genesis.rest.length < process.argv.length - 2)
  process.stderr.write(`localnet: programs and accounts ignored: the chain in ${values.state} began already\n`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await chain.stop();
  process.exit(0);
};
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());
