/**
 * One's own programs and accounts at genesis, as `solana-test-validator` loads them
 * (agave's `validator/src/bin/solana-test-validator.rs` and `test-validator/src/lib.rs`):
 *
 * - `--bpf-program <ADDRESS_OR_KEYPAIR> <PROGRAM.so>`: a BPFLoaderUpgradeable program whose
 *   ProgramData names the upgrade authority `Pubkey::default()` (11111111111111111111111111111111,
 *   which no one can sign for: upgrades disabled), at ProgramData slot 0.
 * - `--upgradeable-program <ADDRESS_OR_KEYPAIR> <PROGRAM.so> <UPGRADE_AUTHORITY|none>`: the same
 *   with that authority (an address or a keypair file); `none` is `Pubkey::default()` as there.
 * - `--account <ADDRESS|-> <FILE.json>`: an account as `solana account --output json` dumps it
 *   (`-`: at the `pubkey` the file names); `--account-dir <DIR>`: every `*.json` file in it.
 *
 * Agave gathers them into one genesis map: account files first (later ones win), then programs,
 * which replace any account at their addresses. Everything is read and checked before the chain
 * starts, also when a saved chain will ignore it (agave reads the files before it finds its ledger).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import * as zlib from "node:zlib";
import { Keypair, PublicKey } from "@solana/web3.js";
import bs58 from "bs58";
import { upgradeableProgramAccounts } from "./upgradeable";

/** The address agave writes as the authority of a program no one may upgrade. */
export const NO_UPGRADE_AUTHORITY = new PublicKey("11111111111111111111111111111111");

export interface GenesisProgram {
  /** the program's address, or a keypair file whose public key it is */
  address: PublicKey | string;
  /** the ELF: a path to the `.so`, or its bytes */
  program: string | Uint8Array;
}

export interface GenesisUpgradeableProgram extends GenesisProgram {
  /** an address, a keypair file, or "none" (11111111111111111111111111111111, as agave) */
  upgradeAuthority: PublicKey | string;
}

export interface GenesisAccountFile {
  /** where the account goes; absent or "-": the `pubkey` the file names */
  address?: PublicKey | string;
  /** a `solana account --output json` file: as given, else under tests/fixtures (as agave looks) */
  file: string;
}

/** What `startLocalChain` loads at genesis; a chain continued from its saved state ignores it. */
export interface GenesisLoads {
  bpfPrograms?: GenesisProgram[];
  upgradeablePrograms?: GenesisUpgradeableProgram[];
  accounts?: GenesisAccountFile[];
  accountDirs?: string[];
}

interface GenesisAccount {
  lamports: bigint;
  data: Uint8Array;
  owner: PublicKey;
  executable: boolean;
}

/** The accounts to write, keyed by address (base58), each with what it came from for errors. */
type GenesisWrites = Map<string, { address: PublicKey; account: GenesisAccount; from: string }>;

export interface GenesisNode {
  setAccount(address: PublicKey, account: GenesisAccount): void;
  minimumBalanceForRentExemption(dataLen: number): bigint;
}

function hasGenesisLoads(loads: GenesisLoads): boolean {
  return (
    (loads.bpfPrograms?.length ?? 0) +
      (loads.upgradeablePrograms?.length ?? 0) +
      (loads.accounts?.length ?? 0) +
      (loads.accountDirs?.length ?? 0) >
    0
  );
}

/** Reads and checks every file; throws an Error naming the flag's value that is wrong. */
function readGenesisLoads(loads: GenesisLoads, rentExemptLamports: (dataLen: number) => bigint): GenesisWrites {
  const writes: GenesisWrites = new Map();
  const put = (address: PublicKey, account: GenesisAccount, from: string) => {
    const key = address.toBase58();
    writes.delete(key); // a later load replaces an earlier one, and is written in its place in order
    writes.set(key, { address, account, from });
  };
  const files = [...(loads.accounts ?? []), ...accountDirFiles(loads.accountDirs ?? [])];
  for (const { address, file } of files) {
    const dumped = readAccountFile(file);
    const at = address === undefined || address === "-" ? dumped.pubkey : accountAddressOf(address);
    if (!at) throw new Error(`${file}: \`pubkey\` is not an address (give the address before the file)`);
    put(at, dumped.account, `account file ${file}`);
  }
  const programs = [
    ...(loads.bpfPrograms ?? []).map((p) => ({ ...p, authority: NO_UPGRADE_AUTHORITY, flag: "--bpf-program" })),
    ...(loads.upgradeablePrograms ?? []).map((p) => ({
      ...p,
      authority: authorityOf(p.upgradeAuthority),
      flag: "--upgradeable-program",
    })),
  ];
  for (const p of programs) {
    const program = addressOf(p.address, "program address");
    const elf = elfOf(p.program);
    const from = `${p.flag} ${program.toBase58()}${typeof p.program === "string" ? ` ${p.program}` : ""}`;
    for (const { address, account } of upgradeableProgramAccounts(program, {
      elf,
      authority: p.authority,
      slot: 0n, // agave's genesis deploys at slot 0
      rentExemptLamports,
    })) {
      put(address, account, from);
    }
  }
  return writes;
}

/**
 * Writes the loads into the node. Data accounts go first, programs after: LiteSVM loads a program
 * as its account is written, from its ProgramData (which must be there already), and refuses an
 * ELF it cannot load, which agave would only refuse when the program is called.
 */
function writeGenesisLoads(node: GenesisNode, writes: GenesisWrites): void {
  const ordered = [...writes.values()].sort((a, b) => Number(a.account.executable) - Number(b.account.executable));
  for (const { address, account, from } of ordered) {
    try {
      node.setAccount(address, account);
    } catch (e) {
      throw new Error(`${from}: ${address.toBase58()} could not be loaded (${(e as Error).message})`);
    }
  }
}

/** A base58 address, else a keypair file (a JSON array of 64 bytes) whose public key it is, as agave reads both. */
function addressOf(value: PublicKey | string, what: string): PublicKey {
  if (typeof value !== "string") return value;
  const parsed = parseAddress(value);
  if (parsed) return parsed;
  try {
    const secret = JSON.parse(readFileSync(value, "utf8")) as number[];
    return Keypair.fromSecretKey(Uint8Array.from(secret)).publicKey;
  } catch {
    throw new Error(`invalid ${what} ${value}: neither an address nor a keypair file`);
  }
}

function accountAddressOf(value: PublicKey | string): PublicKey {
  if (typeof value !== "string") return value;
  const parsed = parseAddress(value);
  if (!parsed) throw new Error(`invalid address ${value}`);
  return parsed;
}

function authorityOf(value: PublicKey | string): PublicKey {
  return value === "none" ? NO_UPGRADE_AUTHORITY : addressOf(value, "upgrade authority");
}

function parseAddress(value: string): PublicKey | null {
  try {
    const bytes = bs58.decode(value);
    return bytes.length === 32 ? new PublicKey(bytes) : null;
  } catch {
    return null;
  }
}

function elfOf(program: string | Uint8Array): Uint8Array {
  if (typeof program !== "string") return program;
  if (!existsSync(program)) throw new Error(`program file does not exist: ${program}`);
  return new Uint8Array(readFileSync(program));
}

/** Every `*.json` file of the folders, in name order (agave's order is a hash set's: unspecified). */
function accountDirFiles(dirs: string[]): GenesisAccountFile[] {
  const files: GenesisAccountFile[] = [];
  for (const dir of dirs) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch (e) {
      throw new Error(`cannot read directory ${dir}: ${(e as Error).message}`);
    }
    for (const name of names.filter((n) => n.endsWith(".json")).sort()) {
      const file = join(dir, name);
      if (statSync(file).isFile()) files.push({ file });
    }
  }
  return files;
}

function locate(file: string): string {
  if (existsSync(file)) return file;
  const fixture = join("tests", "fixtures", file);
  if (!isAbsolute(file) && existsSync(fixture)) return fixture;
  throw new Error(`unable to locate ${file}`);
}

/** A `solana account --output json` dump: `{"pubkey", "account": {lamports, data, owner, executable, rentEpoch, space}}`. */
function readAccountFile(file: string): { pubkey: PublicKey | null; account: GenesisAccount } {
  const path = locate(file);
  let dump: unknown;
  try {
    dump = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new Error(`unable to deserialize ${path}: ${(e as Error).message}`);
  }
  try {
    return parseAccountDump(dump);
  } catch (e) {
    throw new Error(`unable to deserialize ${path}: ${(e as Error).message}`);
  }
}

/** `pubkey` is read only when no address is given (null when it is not one), as agave reads it. */
function parseAccountDump(dump: unknown): { pubkey: PublicKey | null; account: GenesisAccount } {
  const { pubkey, account } = (dump ?? {}) as { pubkey?: unknown; account?: Record<string, unknown> };
  if (typeof account !== "object" || account === null) throw new Error("no `account` object");
  const { lamports, owner, executable } = account;
  // JSON numbers are doubles: past 2^53 the file's figure is not the one read (and the chain keeps balances below it).
  if (typeof lamports !== "number" || !Number.isSafeInteger(lamports) || lamports < 0)
    throw new Error("`lamports` must be a whole number of lamports from 0 to 2^53");
  const ownerKey = typeof owner === "string" ? parseAddress(owner) : null;
  if (!ownerKey) throw new Error("`owner` is not an address");
  if (typeof executable !== "boolean") throw new Error("`executable` must be true or false");
  return {
    pubkey: typeof pubkey === "string" ? parseAddress(pubkey) : null,
    account: { lamports: BigInt(lamports), data: accountData(account.data), owner: ownerKey, executable },
  };
}

/** agave's UiAccountData::decode: a bare base58 string, or [blob, "base58" | "base64" | "base64+zstd"]. */
function accountData(data: unknown): Uint8Array {
  if (typeof data === "string") return decodeBase58(data);
  if (!Array.isArray(data) || data.length !== 2 || typeof data[0] !== "string")
    throw new Error(
      '`data` must be ["<blob>", "<encoding>"] (a jsonParsed dump cannot be loaded: dump with --output json)',
    );
  const [blob, encoding] = data as [string, unknown];
  if (encoding === "base58") return decodeBase58(blob);
  if (encoding === "base64") return decodeBase64(blob);
  if (encoding === "base64+zstd") return zstdDecompress(decodeBase64(blob));
  throw new Error(`unsupported data encoding ${JSON.stringify(encoding)} (base58, base64 or base64+zstd)`);
}

function decodeBase58(text: string): Uint8Array {
  try {
    return bs58.decode(text);
  } catch {
    throw new Error("`data` is not base58");
  }
}

function decodeBase64(text: string): Uint8Array {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) throw new Error("`data` is not base64");
  return new Uint8Array(Buffer.from(text, "base64"));
}

function zstdDecompress(bytes: Uint8Array): Uint8Array {
  const decompress = (zlib as { zstdDecompressSync?: (b: Uint8Array) => Uint8Array }).zstdDecompressSync;
  if (!decompress) throw new Error("base64+zstd data needs a runtime with zstd (Bun, or Node 22.15 and later)");
  try {
    return new Uint8Array(decompress(bytes));
  } catch {
    throw new Error("`data` is not zstd-compressed");
  }
}

const GENESIS_FLAGS: Record<string, number> = {
  "--bpf-program": 2,
  "--upgradeable-program": 3,
  "--account": 2,
  "--account-dir": 1,
};

/**
 * Takes agave's genesis flags out of a command line (they take two or three values, which
 * `node:util`'s parseArgs cannot read), leaving the other arguments in order.
 */
export function takeGenesisFlags(argv: string[]): { rest: string[]; loads: GenesisLoads } {
  const rest: string[] = [];
  const loads: Required<GenesisLoads> = { bpfPrograms: [], upgradeablePrograms: [], accounts: [], accountDirs: [] };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const arity = GENESIS_FLAGS[flag];
    if (arity === undefined) {
      rest.push(flag);
      continue;
    }
    const values = argv.slice(i + 1, i + 1 + arity);
    if (values.length < arity) throw new Error(`${flag} needs ${GENESIS_FLAG_VALUES[flag]}`);
    i += arity;
    const [a, b, c] = values as [string, string, string];
    if (flag === "--bpf-program") loads.bpfPrograms.push({ address: a, program: b });
    else if (flag === "--upgradeable-program")
      loads.upgradeablePrograms.push({ address: a, program: b, upgradeAuthority: c });
    else if (flag === "--account") loads.accounts.push({ address: a, file: b });
    else loads.accountDirs.push(a);
  }
  return { rest, loads };
}

const GENESIS_FLAG_VALUES: Record<string, string> = {
  "--bpf-program": "<ADDRESS_OR_KEYPAIR> <PROGRAM.so>",
  "--upgradeable-program": "<ADDRESS_OR_KEYPAIR> <PROGRAM.so> <UPGRADE_AUTHORITY|none>",
  "--account": "<ADDRESS|-> <FILE.json>",
  "--account-dir": "<DIR>",
};

/**
 * Loads `loads` into a fresh chain. A chain continued from its saved state began already: the
 * files are still read and checked (a typo fails the start), then ignored, as agave ignores these
 * flags once its ledger exists.
 */
export function loadAtGenesis(
  node: GenesisNode,
  loads: GenesisLoads,
  restored: boolean,
  log: (msg: string) => void,
): void {
  if (!hasGenesisLoads(loads)) return;
  const writes = readGenesisLoads(loads, (dataLen) => node.minimumBalanceForRentExemption(dataLen));
  if (restored) {
    log("local chain: programs and accounts to load at genesis ignored: the saved chain began already (--reset)");
    return;
  }
  writeGenesisLoads(node, writes);
  const programs = [...writes.values()].filter((w) => w.account.executable).map((w) => w.address.toBase58());
  log(`local chain: ${writes.size} accounts loaded at genesis, programs: ${programs.join(", ") || "none"}`);
}
