/**
 * The chain ports: the only seam between the service and a chain. Jobs, routes and the indexer
 * use these interfaces and nothing else, so the `pump` adapter (mainnet/devnet through an RPC URL)
 * and the `local` adapter (the embedded LiteSVM node) are interchangeable by configuration.
 *
 * Amounts are bigint lamports (or token base units); addresses are base58 strings at the edges.
 * Failures are `AppError`s with the chain codes of errors.ts (`isChainUnavailable`: retry later).
 */
import type { Keypair, PublicKey, TransactionInstruction, VersionedTransaction } from "@solana/web3.js";
import type { CommandKey } from "./command-key";

export interface AccountSnapshot {
  lamports: bigint;
  owner: string;
  executable: boolean;
  data: Uint8Array;
}

export interface SignatureState {
  slot: bigint;
  /** null when the transaction succeeded; a short description of the on-chain error otherwise */
  err: string | null;
  confirmationStatus: "processed" | "confirmed" | "finalized" | null;
  /** blocks confirmed on top of it, while not finalized; absent where the reader does not say */
  confirmations?: number | null;
}

/** A confirmed transaction as read back from the chain, in the shape the decoders need. */
export interface ConfirmedTransaction {
  signature: string;
  slot: bigint;
  blockTime: Date | null;
  err: string | null;
  /** the fee it paid (network and priority); absent where the node did not say */
  feeLamports?: bigint;
  /** static account keys followed by loaded addresses, in message order */
  accountKeys: string[];
  preBalances: bigint[];
  postBalances: bigint[];
  instructions: CompiledInstructionView[];
  /** inner instructions, flattened, each tagged with the index of its top-level instruction */
  innerInstructions: (CompiledInstructionView & { outerIndex: number })[];
  logMessages: string[];
  /** token balances before/after, for accounts that held tokens; absent when the node gave none */
  preTokenBalances?: TokenBalanceView[];
  postTokenBalances?: TokenBalanceView[];
}

export interface TokenBalanceView {
  /** index into `accountKeys` */
  accountIndex: number;
  mint: string;
  owner: string | null;
  /** base units */
  amount: bigint;
}

export interface CompiledInstructionView {
  programId: string;
  accounts: string[];
  data: Uint8Array;
}

export interface ChainReader {
  /** Balances in batches (getMultipleAccounts, up to 100 keys a call). A missing account is 0n. */
  getBalances(addresses: readonly string[]): Promise<Map<string, bigint>>;
  /** Accounts in batches. A missing account maps to null. */
  getAccounts(addresses: readonly string[]): Promise<Map<string, AccountSnapshot | null>>;
  /**
   * Balances (at most 100 addresses) as a node at `minContextSlot` or later sees them, with the slot
   * it answered at: what a listing of history up to that slot can be compared with. A node behind
   * it refuses (unavailable, ask again). Absent on readers that cannot say.
   */
  getBalancesAt?(
    addresses: readonly string[],
    minContextSlot: bigint,
  ): Promise<{ slot: bigint; balances: Map<string, bigint> }>;
  /** null when the node does not know the signature (yet). */
  getTransaction(signature: string): Promise<ConfirmedTransaction | null>;
  /**
   * An address's transactions, newest first, at most `limit` (1 to 1,000) older than `before`
   * (getSignaturesForAddress at confirmed). Absent on readers that cannot page history.
   */
  signaturesForAddress?(
    address: string,
    options: { before?: string; limit: number },
  ): Promise<{ signature: string; slot: bigint; err: string | null }[]>;
  /** searchHistory = true asks the node to look beyond its recent status cache. */
  getSignatureStatuses(
    signatures: readonly string[],
    searchHistory: boolean,
  ): Promise<Map<string, SignatureState | null>>;
  getBlockHeight(): Promise<bigint>;
  /** `slot`: the answer's context slot, where the reader knows it */
  getLatestBlockhash(): Promise<{ blockhash: string; lastValidBlockHeight: bigint; slot?: bigint }>;
  /**
   * Runs `instructions` in a simulation (fee payer `payer`, signatures not checked, the node's
   * blockhash) and returns the transaction's return data: how a program's view instruction is
   * read. null when the simulation failed or returned nothing. Absent on readers that cannot
   * simulate; whatever depends on it is then skipped, never guessed.
   */
  simulateReturnData?(
    instructions: readonly TransactionInstruction[],
    payer: string,
  ): Promise<{ programId: string; data: Uint8Array } | null>;
}

/** A signed transaction that has not been sent. Its signature is known before it leaves the process. */
export interface PreparedTransaction {
  signature: string;
  lastValidBlockHeight: bigint;
  /** the exact bytes to send; resending the same bytes is harmless */
  wire: Uint8Array;
  /**
   * The context slot of the blockhash answer it was built on: it cannot land before this slot, so
   * only a history that reaches back to it can prove it absent. Absent where the sender cannot tell.
   */
  sentFromSlot?: bigint;
  /** its SetComputeUnitLimit and SetComputeUnitPrice, where the sender added them */
  computeUnitLimit?: number;
  computeUnitPriceMicroLamports?: bigint;
}

/** Which money job signs a transaction: fee steps, metrics and the rebroadcast journal name it. */
export type TransactionJob = "sweep" | "payouts" | "burn-buy" | "burn" | "anchor" | "withdrawal";

export interface PrepareOptions {
  /**
   * What the transaction is: the sender appends it as the last instruction, a Memo signed by the
   * payer (src/chain/memo.ts `commandKeyMemo`), so the treasury's history on chain is a journal of
   * the service's money commands. A transaction too large with it is refused like any oversize one.
   */
  commandKey: CommandKey;
  job?: TransactionJob;
  /** 0 for a first attempt; n for the n-th replacement of a provably expired one (its price steps up) */
  attempt?: number;
  /** the least compute-unit limit to ask for (an earlier attempt's limit proved too low) */
  computeUnitFloor?: number;
  /** transactions prepared together (one run's batches): what they may ask the node once */
  share?: PrepareShare;
}

/**
 * Transactions prepared together share one latest blockhash while it is younger than `maxAgeMs`,
 * and one market price per group of them, asked once instead of once per transaction (a provider
 * bills each ask). Each of `groups` is every account some of the transactions write, the payer's
 * included, at most 128 (the most the node takes): its price is asked for all of them at once,
 * which is what a transaction locking all of them would pay, so it lands any one of them. A
 * transaction writing an account outside every group asks for its own price. The object is the
 * share's identity: make one per run of transactions (landing.ts `prepareShareFor`).
 */
export interface PrepareShare {
  readonly maxAgeMs: number;
  readonly groups: readonly (readonly string[])[];
}

export type TransactionOutcome =
  | { kind: "confirmed"; slot: bigint; blockTime: Date | null }
  | { kind: "failed"; slot: bigint; error: string }
  | { kind: "pending" }
  /** the chain could not be asked (rate limited, timed out, node behind): not an outcome, ask again later */
  | { kind: "unknown"; reason: string }
  /** block height is past lastValidBlockHeight and a history search finds nothing: it can never land */
  | { kind: "expired" };

export interface ChainSender {
  /**
   * Builds and signs; sends nothing. The caller saves `signature` and `lastValidBlockHeight` before
   * `send`. The sender adds the compute budget (a unit limit sized by simulation, a price from the
   * recent fees of the accounts it writes); ComputeBudget instructions given are replaced (a limit
   * given is the fallback when the transaction cannot be simulated). The command key's memo comes
   * last, so the given instructions keep their indexes after the budget's two.
   */
  prepare(
    instructions: readonly TransactionInstruction[],
    payer: Keypair,
    extraSigners: readonly Keypair[],
    options: PrepareOptions,
  ): Promise<PreparedTransaction>;
  /**
   * Sends exactly the prepared bytes (skipPreflight, no node retries) to every send endpoint. Safe
   * to call again with the same bytes: that is the rebroadcast.
   */
  send(tx: Pick<PreparedTransaction, "signature" | "wire">): Promise<void>;
  /**
   * The outcome of a saved transaction. `confirmed` and `failed` only once finalized; `expired`
   * only when provably never landing (the history searched reaches back to `sentFromSlot`; 0n when
   * unknown: all history); `unknown` when the chain could not be asked or cannot prove absence.
   * `blockTime: false`: the caller reads the transaction itself (which carries its block's time),
   * so a confirmation's `blockTime` is not asked (one billed request fewer) and may be null.
   */
  outcome(
    signature: string,
    lastValidBlockHeight: bigint,
    sentFromSlot?: bigint,
    options?: OutcomeOptions,
  ): Promise<TransactionOutcome>;
  /**
   * Asks the statuses of several saved transactions at once (one batch from one node), for the
   * `outcome` of each asked in the next few seconds to use instead of asking again. Optional: a
   * sender without it is asked per transaction.
   */
  prefetchOutcomes?(signatures: readonly string[]): Promise<void>;
}

interface OutcomeOptions {
  /** ask the confirmed block's time (default true) */
  blockTime?: boolean;
}

/** A token as the launch program sees it: the mint and the creator address the service derived for it. */
export interface TokenRef {
  mint: string;
  creator: string;
  /**
   * Both creator vaults as recorded at launch (`vaultAddresses` of this program then). The local
   * program's readings read these instead of deriving them again (absent or null: derived); pump's
   * derive them with the curve and pool addresses they need anyway. Only the detail's refresh
   * passes them: the sweep, which moves the money, reads the vaults its instructions derive.
   */
  vaults?: { curveVault: string; poolVault: string } | null;
}

export interface VaultAddresses {
  /** bonding-curve creator vault (lamports above rent are unswept fees) */
  curveVault: string;
  /** swap-venue creator vault token account (its token amount of wrapped SOL is unswept fees) */
  poolVault: string;
  /** the launch program's per-token state (bonding curve), for the bonded flag */
  bondingCurve: string;
}

export interface VaultReading {
  mint: string;
  curveLamports: bigint;
  poolLamports: bigint;
  /** balance already sitting in the creator address (fees somebody else collected) */
  creatorLamports: bigint;
  bonded: boolean;
  /**
   * The token's creator as the launch program reads it now. null: still the derived creator key,
   * so `curveLamports`/`poolLamports` are all its fees; absent: the adapter did not look.
   */
  feeSharing?: FeeSharingReading | null;
  /**
   * Set when an account of this token does not have a layout the adapter knows (the launch
   * program changed): the figures above are then not to be trusted, and the token must be set
   * aside rather than swept or credited on a guess. Absent or null: every layout was known.
   */
  programChanged?: string | null;
}

/**
 * A token whose launch-program creator is no longer its derived key (pump.fun moved it to the
 * coin's fee-sharing config, or someone with the authority set another creator). New fees accrue
 * to that creator's vaults; the derived key's own vaults keep only what accrued before the switch.
 */
export interface FeeSharingReading {
  /** the creator the launch program now pays */
  currentCreator: string;
  /** true when that creator is the coin's sharing config (payouts only through distribution) */
  isSharingConfig: boolean;
  /** the config's shareholders in its order (empty when not a sharing config) */
  shareholders: { address: string; shareBps: number }[];
  /** the derived creator key's share, in basis points; 0 when it is not a shareholder */
  serviceShareBps: number;
  /** fees waiting in the current creator's vaults (both venues) for distribution */
  distributableLamports: bigint;
  /** the part of them still in the swap venue's vault (moved to the curve's vault before distribution) */
  poolDistributableLamports: bigint;
  /**
   * the part of them the derived creator key receives from this run's distribution (0 when
   * blocked or skipped): AMM fees only at or above the WSOL account's rent, and nothing below the
   * program's minimum distributable amount
   */
  shareLamports: bigint;
  /** null while the service's share can be distributed; otherwise why the token stopped accruing */
  blockedReason: string | null;
  /**
   * Why this run plans no distribution (or only part of one) although the token is not blocked:
   * fees too small for the program to move yet. The token is still swept; the fees wait.
   */
  skippedReason?: string | null;
  /** the program's minimum distributable amount as read for this reading (null: could not be read) */
  minimumDistributableLamports?: bigint | null;
}

/** What one confirmed sweep transaction moved, per token creator address. */
export interface SweepEffect {
  creator: string;
  /** sum of decoded collect events for this creator (curve + pool), each counted once */
  collectedLamports: bigint;
  /** lamports that left the creator address for the treasury in this transaction */
  movedToTreasuryLamports: bigint;
}

export interface VerifiedCreate {
  mint: string;
  creator: string;
  uri: string;
  name: string;
  symbol: string;
  deployer: string;
  slot: bigint;
  blockTime: Date | null;
}

export interface BurnBuyPlan {
  instructions: TransactionInstruction[];
  /** tokens the buy is expected to deliver at least (slippage bound) */
  minTokenOut: bigint;
  /** how far this buy moves the price it pays, from the fresh quote (src/chain/impact.ts) */
  priceImpactBps: number;
}

/** A launch-program instruction of a transaction, as far as a launch is concerned. */
export type LaunchOp = {
  kind: "create" | "buy" | "other";
  mint: string | null;
  /** for a buy: the most SOL it may spend, when the instruction says (null otherwise) */
  maxSolLamports?: bigint | null;
};

export interface LaunchProgram {
  readonly kind: "pump" | "local";
  readonly programId: string;
  /** The upgradeable programs whose instructions this adapter builds: their ProgramData is watched. */
  readonly programs: readonly WatchedProgram[];
  /** Pure PDA derivation, no I/O. */
  vaultAddresses(token: TokenRef): VaultAddresses;
  /** Batched readings of both vaults, the creator address and the bonded flag. */
  readVaults(tokens: readonly TokenRef[]): Promise<VaultReading[]>;
  /**
   * Instructions that collect both vaults of each token into its creator address and then move
   * `creatorLamportsToMove` of it to the treasury. The creator keys sign; the treasury pays.
   */
  sweepInstructions(
    items: readonly { token: TokenRef; reading: VaultReading }[],
    treasury: PublicKey,
  ): TransactionInstruction[];
  /** Decode what a confirmed sweep transaction collected and moved, per creator. */
  decodeSweep(tx: ConfirmedTransaction, creators: readonly string[]): SweepEffect[];
  /**
   * Verify that `signature` created `expected.mint` on this program with our creator and uri.
   * `coinRefused`: it did, but as a kind of coin the service refuses (its creator fees would not
   * reach the recipients); the mint exists now, so no other transaction can create it.
   */
  verifyCreate(tx: ConfirmedTransaction, expected: { mint: string; creator: string; uri: string }): VerifyCreateResult;
  /** Buy `lamports` worth of the token for `buyer`, on the curve or the pool, bounded by slippage. */
  buildBurnBuy(token: TokenRef, buyer: PublicKey, lamports: bigint, slippageBps: number): Promise<BurnBuyPlan>;
  /** Burn `amount` base units held by `owner` on the mint's own token program. */
  buildBurn(mint: string, owner: PublicKey, amount: bigint): Promise<TransactionInstruction[]>;
  /** Token amount a confirmed buy delivered to `owner` (post - pre of its token account). */
  decodeBoughtAmount(tx: ConfirmedTransaction, mint: string, owner: string): bigint;
  /**
   * Pure, no I/O: the accounts a buy of `mint` by `buyer` creates with rent the buyer pays (its
   * token account; pump's user volume accumulator). A buy's spend is the buyer's decrease less
   * its fee and the rent of those it created.
   */
  buyRentAccounts(mint: string, buyer: string): string[];
  /** The launch program's creator fee in basis points, read live. */
  creatorFeeBps(): Promise<number>;
  /** A Memo instruction carrying `text`, naming `signer` (who must sign the transaction). */
  buildMemo(text: string, signer: PublicKey): TransactionInstruction;
  /** The memos of a confirmed transaction's top-level instructions, with the signers each names. */
  decodeMemos(tx: ConfirmedTransaction): { text: string; signers: string[] }[];
  /**
   * The create transaction(s) for the launch page's wallet to sign and send: the deployer pays and
   * signs together with the mint keypair; the service signs nothing. One instruction list per
   * transaction, signed and sent in this order; [0] creates, a first buy follows when asked for.
   */
  buildCreate(params: CreateParams): Promise<TransactionInstruction[][]>;
  /**
   * Pure, no I/O: this program's instructions in a (not yet sent) transaction and what each does
   * (create or buy of which mint, or something else). Program ids and the mint are read from the
   * static keys only: an address from a lookup table is not resolved (unknown). Instructions of
   * other programs are left out.
   */
  launchOps(tx: VersionedTransaction): LaunchOp[];
}

/** An upgradeable program the service builds instructions for, and the jobs that build them. */
export interface WatchedProgram {
  name: string;
  address: string;
  builtBy: readonly ("sweep" | "burns" | "launches")[];
}

export type VerifyCreateResult =
  | { ok: true; create: VerifiedCreate }
  | { ok: false; reason: string; coinRefused?: true };

/** A launch as the launch page's wallet creates it. */
export interface CreateParams {
  mint: string;
  creator: string;
  deployer: string;
  name: string;
  symbol: string;
  uri: string;
  /** SOL paid into the curve by the first buy; the creator fee comes on top; 0n for none */
  firstBuyLamports: bigint;
}
