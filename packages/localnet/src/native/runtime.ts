/**
 * Programs the node executes natively, as agave executes its builtins: pump, pump_amm and
 * pump_fees at their real ids, whose binaries cannot be loaded offline. A transaction naming one
 * of them runs instruction by instruction: a native program's instruction runs here, any other
 * (System, SPL Token, Token-2022, Associated Token, Memo, Compute Budget) runs in LiteSVM as a
 * transaction of its own, with signatures already checked. A native program's CPIs into LiteSVM's
 * programs run the same way; its CPIs into another native program run here. Every account the
 * transaction names is copied before the first instruction and written back on any failure, so the
 * whole is atomic: all or nothing, the fee charged either way.
 *
 * What a native program sees (`InvokeContext`) follows the runtime's rules: it writes only
 * accounts the transaction marks writable, changes the data of or debits only accounts it owns,
 * leaves the instruction's lamports balanced, signs a CPI only for its own PDAs (seeds checked),
 * and cannot raise a CPI account's privileges. Events are Anchor's: a self-CPI with the event
 * authority as its one account, whose data is the event tag, the event's discriminator and body.
 * As in agave, an account may be left below rent within the transaction; at its end every account
 * it wrote must be rent-exempt, empty, or rent-paying as before and no larger (the rent-state rule),
 * else the whole fails with `InsufficientFundsForRent`.
 */
import { PublicKey, type TransactionInstruction } from "@solana/web3.js";
import type { SolanaTxError } from "../errors";
import { findProgramAddress } from "./pda";

export interface NativeAccount {
  lamports: bigint;
  owner: PublicKey;
  executable: boolean;
  data: Uint8Array;
}

export interface NativeAccountMeta {
  pubkey: PublicKey;
  isSigner: boolean;
  isWritable: boolean;
}

/** A program's refusal: `InstructionError [index, { Custom: code }]`, as a program's `err!` is. */
export class ProgramError extends Error {
  constructor(
    readonly code: number,
    /** the IDL's error name, e.g. "SlippageExceeded" (Anchor logs it) */
    readonly errorName: string,
    message: string,
  ) {
    super(message);
  }
}

/** A runtime refusal (not a program's code): `InstructionError [index, kind]`, e.g. "PrivilegeEscalation". */
class RuntimeError extends Error {
  constructor(
    readonly kind: string | Record<string, unknown>,
    message: string,
  ) {
    super(message);
  }
}

/** sha256("anchor:event")[..8] little-endian: the first bytes of every Anchor event CPI. */
export const EVENT_IX_TAG = Uint8Array.from([0xe4, 0x45, 0xa5, 0x2e, 0x51, 0xcb, 0x9a, 0x1d]);

export interface InvokeContext {
  readonly programId: PublicKey;
  /** The instruction's accounts, with the privileges the transaction (or the calling program) gave them. */
  readonly accounts: readonly NativeAccountMeta[];
  readonly data: Uint8Array;
  /** The Clock sysvar as the transaction sees it. */
  readonly clock: { slot: bigint; unixTimestamp: bigint };
  /** 1 for a top-level instruction, 2 for a CPI from one, … */
  readonly stackHeight: number;
  /**
   * Which version of the programs the chain runs: "current", or "v3", pump's announced next version
   * (the `programLayout` fault rule), under which the emulation behaves as that version would.
   */
  readonly programVersion: "current" | "v3";
  /** Current state of any account the transaction names (null: does not exist). */
  get(address: PublicKey): NativeAccount | null;
  /** Writes an account whole, under the runtime's rules (see the module's comment). */
  set(address: PublicKey, account: NativeAccount): void;
  /**
   * Moves lamports from an account this program owns to any writable one; crediting an address
   * that does not exist makes it a System account with no data (rent checked at the transaction's end).
   */
  moveLamports(from: PublicKey, to: PublicKey, lamports: bigint): void;
  /**
   * A CPI. `signerSeeds`: the seeds of each of this program's PDAs that sign it (bump included),
   * checked as `create_program_address` checks them. Throws on the callee's failure (a CPI's
   * failure fails the transaction; no program can catch it).
   */
  invoke(ix: TransactionInstruction, signerSeeds?: readonly (readonly Uint8Array[])[]): void;
  /** An Anchor event: a self-CPI carrying `eventBytes` (discriminator and body) and its `Program data:` log. */
  emitEvent(eventBytes: Uint8Array): void;
  /** `sol_log_data`: "Program data: " and each field in base64 (Anchor's `emit!`, no CPI). */
  logData(...fields: Uint8Array[]): void;
  /** "Program log: …" */
  log(message: string): void;
  setReturnData(data: Uint8Array): void;
  /** Charges compute units; over the transaction's limit the instruction fails as agave's would. */
  consume(units: number): void;
  minimumBalanceForRentExemption(dataLen: number): bigint;
}

export interface NativeProgram {
  readonly programId: PublicKey;
  /** What logs and the README call it. */
  readonly name: string;
  /** Accounts the program has at genesis, as mainnet has them (its program account excluded). */
  genesisAccounts(): { address: PublicKey; account: NativeAccount }[];
  /** Runs one instruction; throws `ProgramError` (or `RuntimeError`) to fail it. */
  process(ctx: InvokeContext): void;
}

/** What the runtime needs of the node: LiteSVM's accounts and a way to run one instruction there. */
export interface NativeHost {
  getAccount(address: PublicKey): NativeAccount | null;
  /** Writes an account whole; null deletes it (zero lamports). */
  setAccount(address: PublicKey, account: NativeAccount | null): void;
  /** Runs `ix` in LiteSVM alone (signatures not checked, no fee kept), `payer` paying nothing. */
  runInSvm(ix: TransactionInstruction, payer: PublicKey): SvmInstructionResult;
  clock(): { slot: bigint; unixTimestamp: bigint };
  minimumBalanceForRentExemption(dataLen: number): bigint;
  programVersion(): "current" | "v3";
}

export interface SvmInstructionResult {
  /** null on success; the instruction's error (the `InstructionError`'s second element) otherwise */
  err: unknown | null;
  /** a failure that is not an instruction's (e.g. an account not found), as a transaction error */
  txErr?: SolanaTxError;
  logs: string[];
  /** CPIs the instruction made, by key (not index), depth as LiteSVM reports it (2 = its own CPIs) */
  inner: { programId: PublicKey; accounts: PublicKey[]; data: Uint8Array; stackHeight: number }[];
  computeUnits: bigint;
}

export interface InnerRecord {
  programId: PublicKey;
  accounts: PublicKey[];
  data: Uint8Array;
  stackHeight: number;
}

export interface NativeRunResult {
  err: SolanaTxError | null;
  logs: string[];
  /** per top-level instruction, its inner instructions (empty lists kept) */
  inner: InnerRecord[][];
  computeUnits: bigint;
  returnData: { programId: PublicKey; data: Uint8Array } | null;
}

const COMPUTE_BUDGET_PROGRAM = "ComputeBudget111111111111111111111111111111";
/** Agave's CPI depth limit: top level is 1, at most 4 more (MAX_INSTRUCTION_STACK_DEPTH 5). */
const STACK_DEPTH_MAX = 5;
/** Instructions, CPIs included, one transaction may run (agave's instruction trace limit). */
const TRACE_LENGTH_MAX = 64;
const RETURN_DATA_BYTES_MAX = 1024;
/** Agave exempts the incinerator from the rent-state rule: lamports sent there are burnt. */
const INCINERATOR = "1nc1nerator11111111111111111111111111111111";
const LOG_LINES_MAX = 10_000;

/** One transaction as the runtime runs it: its keys and privileges, instructions by key index. */
export interface NativeTransaction {
  keys: readonly PublicKey[];
  writable: readonly boolean[];
  signer: readonly boolean[];
  instructions: readonly { programIndex: number; accountIndexes: readonly number[]; data: Uint8Array }[];
  computeUnitLimit: bigint;
}

/** A CPI's failure carried up to the top-level instruction, which reports it as its own. */
class InstructionFailure extends Error {
  constructor(readonly instructionErr: unknown) {
    super("instruction failed");
  }
}

/** A failure that is not one instruction's (LiteSVM refused to run it at all). */
class TransactionFailure extends Error {
  constructor(readonly transactionErr: SolanaTxError) {
    super("transaction failed");
  }
}

/** Anchor's event authority of `programId`: PDA ["__event_authority"]. */
export function eventAuthorityOf(programId: PublicKey): PublicKey {
  return findProgramAddress([Buffer.from("__event_authority")], programId)[0];
}

function sameKey(a: PublicKey, b: PublicKey): boolean {
  return a.equals(b);
}

function cloneAccount(a: NativeAccount): NativeAccount {
  return { lamports: a.lamports, owner: a.owner, executable: a.executable, data: Uint8Array.from(a.data) };
}

const SYSTEM_PROGRAM = new PublicKey("11111111111111111111111111111111");

/** What an address that does not exist reads as to the runtime: System's, empty, no lamports. */
function emptyAccount(): NativeAccount {
  return { lamports: 0n, owner: SYSTEM_PROGRAM, executable: false, data: new Uint8Array(0) };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Runs a transaction that names a native program. The caller has checked signatures and charged
 * the fee; on failure every account the transaction names is as it was before the first
 * instruction (the fee stays charged).
 */
export function runNativeTransaction(
  host: NativeHost,
  programs: ReadonlyMap<string, NativeProgram>,
  tx: NativeTransaction,
): NativeRunResult {
  const run = new TransactionRun(host, programs, tx);
  const snapshot = new Map<string, { key: PublicKey; account: NativeAccount | null }>();
  for (const key of tx.keys) {
    const id = key.toBase58();
    if (!snapshot.has(id)) {
      const acc = host.getAccount(key);
      snapshot.set(id, { key, account: acc ? cloneAccount(acc) : null });
    }
  }
  const inner: InnerRecord[][] = tx.instructions.map(() => []);
  const fail = (err: SolanaTxError): NativeRunResult => {
    for (const { key, account } of snapshot.values()) host.setAccount(key, account);
    return { err, logs: run.logs, inner, computeUnits: run.unitsUsed, returnData: null };
  };
  for (let i = 0; i < tx.instructions.length; i++) {
    const failure = run.topLevel(i, inner[i]!);
    if (failure !== null)
      return fail("transaction" in failure ? failure.transaction : { InstructionError: [i, failure.instruction] });
  }
  const rentPaying = rentStateViolation(host, tx, (key) => snapshot.get(key.toBase58())?.account ?? null);
  if (rentPaying !== null) return fail({ InsufficientFundsForRent: { account_index: rentPaying } });
  return { err: null, logs: run.logs, inner, computeUnits: run.unitsUsed, returnData: run.returnData };
}

type RentState = { kind: "uninitialized" } | { kind: "exempt" } | { kind: "paying"; lamports: bigint; dataLen: number };

function rentStateOf(host: NativeHost, account: NativeAccount | null): RentState {
  if (!account || account.lamports === 0n) return { kind: "uninitialized" };
  if (account.lamports >= host.minimumBalanceForRentExemption(account.data.length)) return { kind: "exempt" };
  return { kind: "paying", lamports: account.lamports, dataLen: account.data.length };
}

/**
 * Agave's rent-state rule (`RentState::transition_allowed_from`), checked once the instructions
 * have run: a writable account may end empty or rent-exempt, or rent-paying only if it was so
 * before with the same data length and no more lamports. The index of the first that breaks it,
 * else null.
 */
function rentStateViolation(
  host: NativeHost,
  tx: NativeTransaction,
  before: (key: PublicKey) => NativeAccount | null,
): number | null {
  for (let i = 0; i < tx.keys.length; i++) {
    const key = tx.keys[i]!;
    if (!tx.writable[i] || key.toBase58() === INCINERATOR) continue;
    const post = rentStateOf(host, host.getAccount(key));
    if (post.kind !== "paying") continue;
    const pre = rentStateOf(host, before(key));
    if (pre.kind !== "paying" || pre.dataLen !== post.dataLen || post.lamports > pre.lamports) return i;
  }
  return null;
}

class TransactionRun {
  readonly logs: string[] = [];
  unitsUsed = 0n;
  returnData: { programId: PublicKey; data: Uint8Array } | null = null;
  private traceLength = 0;
  private readonly payer: PublicKey;

  constructor(
    readonly host: NativeHost,
    readonly programs: ReadonlyMap<string, NativeProgram>,
    readonly tx: NativeTransaction,
  ) {
    this.payer = tx.keys[0]!;
  }

  log(line: string): void {
    if (this.logs.length < LOG_LINES_MAX) this.logs.push(line);
    else if (this.logs.length === LOG_LINES_MAX) this.logs.push("Log truncated");
  }

  indexOf(key: PublicKey): number {
    return this.tx.keys.findIndex((k) => sameKey(k, key));
  }

  consume(units: bigint): void {
    this.unitsUsed += units;
    if (this.unitsUsed > this.tx.computeUnitLimit) {
      this.unitsUsed = this.tx.computeUnitLimit;
      throw new RuntimeError("ComputationalBudgetExceeded", "exceeded CUs meter at BPF instruction");
    }
  }

  countTrace(): void {
    this.traceLength++;
    if (this.traceLength > TRACE_LENGTH_MAX)
      throw new RuntimeError("MaxInstructionTraceLengthExceeded", "Max instruction trace length exceeded");
  }

  /**
   * Runs top-level instruction `i`; null when it succeeded, else its error (the InstructionError's
   * inner value) or a transaction-level one (e.g. an account LiteSVM could not load).
   */
  topLevel(i: number, inner: InnerRecord[]): { instruction: unknown } | { transaction: SolanaTxError } | null {
    const ix = this.tx.instructions[i]!;
    const programId = this.tx.keys[ix.programIndex]!;
    const id = programId.toBase58();
    const metas: NativeAccountMeta[] = ix.accountIndexes.map((k) => ({
      pubkey: this.tx.keys[k]!,
      isSigner: this.tx.signer[k] ?? false,
      isWritable: this.tx.writable[k] ?? false,
    }));
    try {
      this.countTrace();
      if (id === COMPUTE_BUDGET_PROGRAM) {
        // Read by the node before execution (limit and price); executing it costs its 150 units.
        this.log(`Program ${id} invoke [1]`);
        this.consume(150n);
        this.log(`Program ${id} success`);
        return null;
      }
      const program = this.programs.get(id);
      if (program) {
        new Frame(this, program, metas, ix.data, 1, inner).run();
        return null;
      }
      this.runInSvm({ programId, keys: metas, data: Buffer.from(ix.data) } as TransactionInstruction, 0, inner);
      return null;
    } catch (e) {
      if (e instanceof TransactionFailure) return { transaction: e.transactionErr };
      if (e instanceof InstructionFailure) return { instruction: e.instructionErr };
      if (e instanceof ProgramError) return { instruction: { Custom: e.code } };
      if (e instanceof RuntimeError) return { instruction: e.kind };
      throw e;
    }
  }

  /** Runs a non-native instruction in LiteSVM at `depth` (0 = top level) and records its CPIs. */
  runInSvm(ix: TransactionInstruction, depth: number, inner: InnerRecord[]): void {
    const r = this.host.runInSvm(ix, this.payer);
    for (const line of r.logs) this.log(depth === 0 ? line : deepenLog(line, depth));
    for (const ii of r.inner) {
      this.countTrace();
      inner.push({ ...ii, stackHeight: ii.stackHeight + depth });
    }
    this.unitsUsed += r.computeUnits;
    if (r.txErr !== undefined) throw new TransactionFailure(r.txErr);
    if (r.err !== null) throw new InstructionFailure(r.err);
    if (this.unitsUsed > this.tx.computeUnitLimit) {
      this.unitsUsed = this.tx.computeUnitLimit;
      throw new RuntimeError("ComputationalBudgetExceeded", "exceeded CUs meter");
    }
  }
}

/** LiteSVM's log of an instruction run alone, as it reads under a CPI `depth` deep. */
function deepenLog(line: string, depth: number): string {
  const m = /^Program (\w+) invoke \[(\d+)\]$/.exec(line);
  return m ? `Program ${m[1]} invoke [${Number(m[2]) + depth}]` : line;
}

/** One native instruction running, top level or CPI. */
class Frame implements InvokeContext {
  readonly clock: { slot: bigint; unixTimestamp: bigint };
  readonly programVersion: "current" | "v3";
  readonly programId: PublicKey;
  private readonly id: string;
  private unitsAtStart = 0n;

  constructor(
    private readonly tr: TransactionRun,
    private readonly program: NativeProgram,
    readonly accounts: readonly NativeAccountMeta[],
    readonly data: Uint8Array,
    readonly stackHeight: number,
    private readonly inner: InnerRecord[],
  ) {
    this.programId = program.programId;
    this.id = this.programId.toBase58();
    this.clock = tr.host.clock();
    this.programVersion = tr.host.programVersion();
  }

  run(): void {
    const host = this.tr.host;
    this.tr.log(`Program ${this.id} invoke [${this.stackHeight}]`);
    this.unitsAtStart = this.tr.unitsUsed;
    const budgetAtStart = this.tr.tx.computeUnitLimit - this.tr.unitsUsed;
    const distinct = new Map<string, PublicKey>();
    for (const m of this.accounts) distinct.set(m.pubkey.toBase58(), m.pubkey);
    const lamportsOf = (): bigint => {
      let total = 0n;
      for (const key of distinct.values()) total += host.getAccount(key)?.lamports ?? 0n;
      return total;
    };
    const before = lamportsOf();
    try {
      this.program.process(this);
      if (lamportsOf() !== before) throw new RuntimeError("UnbalancedInstruction", "sum of account balances changed");
    } catch (e) {
      if (e instanceof ProgramError && !anchorLogged.has(e)) {
        anchorLogged.add(e);
        this.tr.log(
          `Program log: AnchorError occurred. Error Code: ${e.errorName}. Error Number: ${e.code}. Error Message: ${e.message}.`,
        );
      }
      this.tr.log(
        `Program ${this.id} consumed ${this.tr.unitsUsed - this.unitsAtStart} of ${budgetAtStart} compute units`,
      );
      this.tr.log(`Program ${this.id} failed: ${failureText(e)}`);
      throw e;
    }
    this.tr.log(
      `Program ${this.id} consumed ${this.tr.unitsUsed - this.unitsAtStart} of ${budgetAtStart} compute units`,
    );
    this.tr.log(`Program ${this.id} success`);
  }

  private metaOf(address: PublicKey): NativeAccountMeta {
    const m = this.accounts.find((a) => sameKey(a.pubkey, address));
    if (!m) throw new RuntimeError("MissingAccount", `account ${address.toBase58()} not passed to the instruction`);
    return m;
  }

  get(address: PublicKey): NativeAccount | null {
    this.metaOf(address);
    const acc = this.tr.host.getAccount(address);
    return acc ? cloneAccount(acc) : null;
  }

  set(address: PublicKey, account: NativeAccount): void {
    const meta = this.metaOf(address);
    // An address that does not exist is, to a program, System's empty account with no lamports.
    const pre = this.tr.host.getAccount(address) ?? emptyAccount();
    if (account.lamports < 0n) throw new RuntimeError("InsufficientFunds", "negative lamports");
    const changed =
      account.lamports !== pre.lamports ||
      !account.owner.equals(pre.owner) ||
      account.executable !== pre.executable ||
      !sameBytes(account.data, pre.data);
    if (!changed) return;
    if (!meta.isWritable) throw new RuntimeError("ReadonlyLamportChange", "account not writable");
    if (!pre.owner.equals(this.programId)) {
      // Anyone may credit a writable account; only its owner changes anything else.
      if (account.lamports < pre.lamports)
        throw new RuntimeError("ExternalAccountLamportSpend", "debit of an account it does not own");
      if (!sameBytes(account.data, pre.data))
        throw new RuntimeError("ExternalAccountDataModified", "data of an account it does not own");
      if (!account.owner.equals(pre.owner))
        throw new RuntimeError("ModifiedProgramId", "owner of an account it does not own");
    }
    if (account.executable !== pre.executable) throw new RuntimeError("ExecutableModified", "executable flag");
    this.tr.host.setAccount(address, { ...account, data: Uint8Array.from(account.data) });
  }

  moveLamports(from: PublicKey, to: PublicKey, lamports: bigint): void {
    if (lamports < 0n) throw new RuntimeError("InvalidArgument", "negative amount");
    if (lamports === 0n) return;
    const source = this.get(from);
    if (!source || source.lamports < lamports) throw new RuntimeError("InsufficientFunds", "insufficient lamports");
    this.set(from, { ...source, lamports: source.lamports - lamports });
    const target = this.get(to) ?? emptyAccount();
    this.set(to, { ...target, lamports: target.lamports + lamports });
  }

  invoke(ix: TransactionInstruction, signerSeeds: readonly (readonly Uint8Array[])[] = []): void {
    if (this.stackHeight >= STACK_DEPTH_MAX) throw new RuntimeError("CallDepth", "CPI too deep");
    const pdaSigners = signerSeeds.map((seeds) => {
      try {
        return PublicKey.createProgramAddressSync(
          seeds.map((s) => Buffer.from(s)),
          this.programId,
        );
      } catch {
        throw new RuntimeError("InvalidSeeds", "signer seeds are not a program address");
      }
    });
    this.tr.indexOf(ix.programId) >= 0 || failMissing(ix.programId);
    const metas: NativeAccountMeta[] = ix.keys.map((k) => {
      const caller = this.metaOf(k.pubkey);
      const pdaSigned = pdaSigners.some((p) => p.equals(k.pubkey));
      if (k.isSigner && !caller.isSigner && !pdaSigned)
        throw new RuntimeError("PrivilegeEscalation", `${k.pubkey.toBase58()}'s signer privilege escalated`);
      if (k.isWritable && !caller.isWritable)
        throw new RuntimeError("PrivilegeEscalation", `${k.pubkey.toBase58()}'s writable privilege escalated`);
      return { pubkey: k.pubkey, isSigner: k.isSigner, isWritable: k.isWritable };
    });
    this.tr.countTrace();
    this.inner.push({
      programId: ix.programId,
      accounts: metas.map((m) => m.pubkey),
      data: Uint8Array.from(ix.data),
      stackHeight: this.stackHeight + 1,
    });
    const callee = this.tr.programs.get(ix.programId.toBase58());
    if (callee) {
      new Frame(this.tr, callee, metas, Uint8Array.from(ix.data), this.stackHeight + 1, this.inner).run();
      return;
    }
    if (isSystemTransfer(ix)) {
      this.systemTransfer(metas, ix.data);
      return;
    }
    this.tr.runInSvm(
      { programId: ix.programId, keys: metas, data: Buffer.from(ix.data) } as TransactionInstruction,
      this.stackHeight,
      this.inner,
    );
  }

  /**
   * The System program's Transfer, done here: the programs' most common CPI, which as a
   * transaction of its own in LiteSVM (a message compiled, the fee credited back) cost the most.
   * The same rules as the System program's (a signer
   * `from` that holds no data and has the lamports), the same logs and units; whether the accounts
   * end rent-exempt is checked at the end of the transaction, as agave checks it.
   */
  private systemTransfer(metas: readonly NativeAccountMeta[], data: Uint8Array): void {
    const host = this.tr.host;
    const depth = this.stackHeight + 1;
    // Typed on the name: a call then narrows, as TypeScript asks of assertion-like functions.
    const fail: (err: unknown, why: string) => never = (err, why) => {
      if (why) this.tr.log(`Program log: ${why}`);
      this.tr.log(`Program ${SYSTEM_PROGRAM.toBase58()} failed: ${failureText(new InstructionFailure(err))}`);
      throw new InstructionFailure(err);
    };
    this.tr.log(`Program ${SYSTEM_PROGRAM.toBase58()} invoke [${depth}]`);
    this.tr.consume(SYSTEM_INSTRUCTION_UNITS);
    const [from, to] = metas;
    if (!from || !to) fail("NotEnoughAccountKeys", "");
    if (!from.isSigner)
      fail("MissingRequiredSignature", `Transfer: \`from\` account ${from.pubkey.toBase58()} must sign`);
    if (!from.isWritable || !to.isWritable) fail("ReadonlyLamportChange", "");
    const lamports = Buffer.from(data).readBigUInt64LE(4);
    const source = host.getAccount(from.pubkey);
    if (source && (source.data.length > 0 || !source.owner.equals(SYSTEM_PROGRAM)))
      fail("InvalidArgument", "Transfer: `from` must not carry data");
    const have = source?.lamports ?? 0n;
    if (have < lamports) fail({ Custom: 1 }, `Transfer: insufficient lamports ${have}, need ${lamports}`);
    if (lamports > 0n && !from.pubkey.equals(to.pubkey)) {
      host.setAccount(from.pubkey, { ...(source as NativeAccount), lamports: have - lamports });
      const target = host.getAccount(to.pubkey) ?? {
        lamports: 0n,
        owner: SYSTEM_PROGRAM,
        executable: false,
        data: new Uint8Array(0),
      };
      host.setAccount(to.pubkey, { ...target, lamports: target.lamports + lamports });
    }
    this.tr.log(`Program ${SYSTEM_PROGRAM.toBase58()} success`);
  }

  emitEvent(eventBytes: Uint8Array): void {
    const authority = eventAuthorityOf(this.programId);
    this.metaOf(authority);
    if (this.stackHeight >= STACK_DEPTH_MAX) throw new RuntimeError("CallDepth", "CPI too deep");
    this.tr.countTrace();
    const data = new Uint8Array(EVENT_IX_TAG.length + eventBytes.length);
    data.set(EVENT_IX_TAG, 0);
    data.set(eventBytes, EVENT_IX_TAG.length);
    this.inner.push({ programId: this.programId, accounts: [authority], data, stackHeight: this.stackHeight + 1 });
    const budget = this.tr.tx.computeUnitLimit - this.tr.unitsUsed;
    this.tr.log(`Program ${this.id} invoke [${this.stackHeight + 1}]`);
    this.tr.consume(EVENT_CPI_UNITS);
    this.tr.log(`Program ${this.id} consumed ${EVENT_CPI_UNITS} of ${budget} compute units`);
    this.tr.log(`Program ${this.id} success`);
    this.logData(eventBytes);
  }

  logData(...fields: Uint8Array[]): void {
    this.tr.log(`Program data: ${fields.map((f) => Buffer.from(f).toString("base64")).join(" ")}`);
  }

  log(message: string): void {
    this.tr.log(`Program log: ${message}`);
  }

  setReturnData(data: Uint8Array): void {
    if (data.length > RETURN_DATA_BYTES_MAX) throw new RuntimeError("ReturnDataTooLarge", "return data too large");
    this.tr.returnData = { programId: this.programId, data: Uint8Array.from(data) };
    this.tr.log(`Program return: ${this.id} ${Buffer.from(data).toString("base64")}`);
  }

  consume(units: number): void {
    this.tr.consume(BigInt(units));
  }

  minimumBalanceForRentExemption(dataLen: number): bigint {
    return this.tr.host.minimumBalanceForRentExemption(dataLen);
  }
}

/** Program errors already logged by the frame that threw them (the frames it unwinds through only say "failed"). */
const anchorLogged = new WeakSet<ProgramError>();

/** What agave charges a System program instruction (its builtin cost). */
const SYSTEM_INSTRUCTION_UNITS = 150n;

/** The System program's Transfer (instruction 2: u32 tag, u64 lamports). */
function isSystemTransfer(ix: TransactionInstruction): boolean {
  return (
    ix.programId.equals(SYSTEM_PROGRAM) &&
    ix.data.length === 12 &&
    ix.data[0] === 2 &&
    ix.data[1] === 0 &&
    ix.data[2] === 0 &&
    ix.data[3] === 0
  );
}

/** An Anchor event CPI's cost on mainnet (the self-CPI's own units, as agave reports them). */
const EVENT_CPI_UNITS = 2_000n;

function failMissing(programId: PublicKey): never {
  throw new RuntimeError("MissingAccount", `program ${programId.toBase58()} not in the transaction`);
}

function failureText(e: unknown): string {
  if (e instanceof ProgramError) return `custom program error: 0x${e.code.toString(16)}`;
  if (e instanceof RuntimeError) return typeof e.kind === "string" ? e.message : JSON.stringify(e.kind);
  if (e instanceof InstructionFailure) {
    const err = e.instructionErr;
    if (typeof err === "object" && err && "Custom" in err)
      return `custom program error: 0x${Number((err as { Custom: number }).Custom).toString(16)}`;
    return typeof err === "string" ? err : JSON.stringify(err);
  }
  if (e instanceof TransactionFailure) return JSON.stringify(e.transactionErr);
  throw e;
}
