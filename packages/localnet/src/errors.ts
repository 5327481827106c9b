/**
 * Transaction errors in the three shapes the local chain must speak: what litesvm hands back
 * (napi class instances), what Solana JSON-RPC returns (the serde JSON of `TransactionError`),
 * and what Yellowstone puts on the wire (bincode of `TransactionError`, which the napi client's
 * `txErrDecode` reads back). One internal form, the JSON one, sits in the middle.
 */

/** Solana's JSON form: a bare variant name, or a one-key object for variants with fields. */
export type SolanaTxError = string | { [variant: string]: unknown };

// Bincode variant indexes of `solana_transaction_error::TransactionError`, in declaration order.
const TX_ERROR_VARIANTS = [
  "AccountInUse",
  "AccountLoadedTwice",
  "AccountNotFound",
  "ProgramAccountNotFound",
  "InsufficientFundsForFee",
  "InvalidAccountForFee",
  "AlreadyProcessed",
  "BlockhashNotFound",
  "InstructionError",
  "CallChainTooDeep",
  "MissingSignatureForFee",
  "InvalidAccountIndex",
  "SignatureFailure",
  "InvalidProgramForExecution",
  "SanitizeFailure",
  "ClusterMaintenance",
  "AccountBorrowOutstanding",
  "WouldExceedMaxBlockCostLimit",
  "UnsupportedVersion",
  "InvalidWritableAccount",
  "WouldExceedMaxAccountCostLimit",
  "WouldExceedAccountDataBlockLimit",
  "TooManyAccountLocks",
  "AddressLookupTableNotFound",
  "InvalidAddressLookupTableOwner",
  "InvalidAddressLookupTableData",
  "InvalidAddressLookupTableIndex",
  "InvalidRentPayingAccount",
  "WouldExceedMaxVoteCostLimit",
  "WouldExceedAccountDataTotalLimit",
  "DuplicateInstruction",
  "InsufficientFundsForRent",
  "MaxLoadedAccountsDataSizeExceeded",
  "InvalidLoadedAccountsDataSizeLimit",
  "ResanitizationNeeded",
  "ProgramExecutionTemporarilyRestricted",
  "UnbalancedTransaction",
  "ProgramCacheHitMaxLimit",
  "CommitCancelled",
] as const;

// litesvm's fieldless enum leaves out the variants that carry data, so its numbering differs.
const LITESVM_TX_FIELDLESS = [
  "AccountInUse",
  "AccountLoadedTwice",
  "AccountNotFound",
  "ProgramAccountNotFound",
  "InsufficientFundsForFee",
  "InvalidAccountForFee",
  "AlreadyProcessed",
  "BlockhashNotFound",
  "CallChainTooDeep",
  "MissingSignatureForFee",
  "InvalidAccountIndex",
  "SignatureFailure",
  "InvalidProgramForExecution",
  "SanitizeFailure",
  "ClusterMaintenance",
  "AccountBorrowOutstanding",
  "WouldExceedMaxBlockCostLimit",
  "UnsupportedVersion",
  "InvalidWritableAccount",
  "WouldExceedMaxAccountCostLimit",
  "WouldExceedAccountDataBlockLimit",
  "TooManyAccountLocks",
  "AddressLookupTableNotFound",
  "InvalidAddressLookupTableOwner",
  "InvalidAddressLookupTableData",
  "InvalidAddressLookupTableIndex",
  "InvalidRentPayingAccount",
  "WouldExceedMaxVoteCostLimit",
  "WouldExceedAccountDataTotalLimit",
  "MaxLoadedAccountsDataSizeExceeded",
  "InvalidLoadedAccountsDataSizeLimit",
  "ResanitizationNeeded",
  "UnbalancedTransaction",
  "ProgramCacheHitMaxLimit",
  "CommitCancelled",
] as const;

// Bincode variant indexes of `InstructionError`; Custom(u32) is 25 and BorshIoError carries a string.
const IX_ERROR_VARIANTS = [
  "GenericError",
  "InvalidArgument",
  "InvalidInstructionData",
  "InvalidAccountData",
  "AccountDataTooSmall",
  "InsufficientFunds",
  "IncorrectProgramId",
  "MissingRequiredSignature",
  "AccountAlreadyInitialized",
  "UninitializedAccount",
  "UnbalancedInstruction",
  "ModifiedProgramId",
  "ExternalAccountLamportSpend",
  "ExternalAccountDataModified",
  "ReadonlyLamportChange",
  "ReadonlyDataModified",
  "DuplicateAccountIndex",
  "ExecutableModified",
  "RentEpochModified",
  "NotEnoughAccountKeys",
  "AccountDataSizeChanged",
  "AccountNotExecutable",
  "AccountBorrowFailed",
  "AccountBorrowOutstanding",
  "DuplicateAccountOutOfSync",
  "Custom",
  "InvalidError",
  "ExecutableDataModified",
  "ExecutableLamportChange",
  "ExecutableAccountNotRentExempt",
  "UnsupportedProgramId",
  "CallDepth",
  "MissingAccount",
  "ReentrancyNotAllowed",
  "MaxSeedLengthExceeded",
  "InvalidSeeds",
  "InvalidRealloc",
  "ComputationalBudgetExceeded",
  "PrivilegeEscalation",
  "ProgramEnvironmentSetupFailure",
  "ProgramFailedToComplete",
  "ProgramFailedToCompile",
  "Immutable",
  "IncorrectAuthority",
  "BorshIoError",
  "AccountNotRentExempt",
  "InvalidAccountOwner",
  "ArithmeticOverflow",
  "UnsupportedSysvar",
  "IllegalOwner",
  "MaxAccountsDataAllocationsExceeded",
  "MaxAccountsExceeded",
  "MaxInstructionTraceLengthExceeded",
  "BuiltinProgramsMustConsumeComputeUnits",
] as const;

// litesvm's InstructionErrorFieldless numbering skips Custom and BorshIoError.
const LITESVM_IX_FIELDLESS = IX_ERROR_VARIANTS.filter((v) => v !== "Custom" && v !== "BorshIoError");

interface LitesvmErrorObject {
  constructor?: { name?: string };
  err?: () => number | { code?: unknown; msg?: unknown } | null | undefined;
  index?: number;
  accountIndex?: number;
}

/** Converts a litesvm error object (FailedTransactionMetadata.err()) to Solana's JSON form. */
export function fromLitesvmError(err: unknown): SolanaTxError {
  if (typeof err === "number") return LITESVM_TX_FIELDLESS[err] ?? "InvalidError";
  // litesvm's error classes, told apart by name: each carries the fields its variant needs.
  const e = (err ?? {}) as LitesvmErrorObject;
  const ctor = e.constructor?.name ?? "";
  if (ctor.includes("InstructionError")) {
    const inner = e.err?.();
    let ixErr: unknown;
    if (typeof inner === "number") ixErr = LITESVM_IX_FIELDLESS[inner] ?? "GenericError";
    else if (inner && typeof inner.code === "number") ixErr = { Custom: inner.code };
    else if (inner && typeof inner.msg === "string") ixErr = { BorshIoError: inner.msg };
    else ixErr = "GenericError";
    return { InstructionError: [e.index, ixErr] };
  }
  if (ctor.includes("DuplicateInstruction")) return { DuplicateInstruction: e.index };
  if (ctor.includes("InsufficientFundsForRent")) return { InsufficientFundsForRent: { account_index: e.accountIndex } };
  if (ctor.includes("ProgramExecutionTemporarilyRestricted")) {
    return { ProgramExecutionTemporarilyRestricted: { account_index: e.accountIndex } };
  }
  return "InvalidError";
}

/**
 * Whether a transaction with this error was committed (fee charged, recorded in a block) rather
 * than refused before execution. Only errors raised while running instructions land.
 */
export function errorLands(err: SolanaTxError): boolean {
  if (typeof err === "string") return err === "InvalidRentPayingAccount" || err === "UnbalancedTransaction";
  return (
    "InstructionError" in err || "InsufficientFundsForRent" in err || "ProgramExecutionTemporarilyRestricted" in err
  );
}

/** Bincode of `TransactionError`, as carried in Yellowstone's `TransactionError.err` bytes. */
export function toBincode(err: SolanaTxError): Uint8Array {
  const out: number[] = [];
  const u32 = (n: number) => out.push(n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff);
  if (typeof err === "string") {
    u32(Math.max(0, TX_ERROR_VARIANTS.indexOf(err as never)));
    return Uint8Array.from(out);
  }
  const [variant, value] = Object.entries(err)[0] ?? ["InvalidError", null];
  u32(Math.max(0, TX_ERROR_VARIANTS.indexOf(variant as never)));
  if (variant === "InstructionError") {
    const [index, ixErr] = value as [number, unknown];
    out.push(index & 0xff);
    if (typeof ixErr === "string") u32(Math.max(0, IX_ERROR_VARIANTS.indexOf(ixErr as never)));
    else if (ixErr && typeof ixErr === "object" && "Custom" in ixErr) {
      u32(25);
      u32(Number((ixErr as { Custom: number }).Custom));
    } else if (ixErr && typeof ixErr === "object" && "BorshIoError" in ixErr) {
      u32(IX_ERROR_VARIANTS.indexOf("BorshIoError"));
      const bytes = new TextEncoder().encode(String((ixErr as { BorshIoError: string }).BorshIoError));
      u32(bytes.length);
      u32(0); // bincode string length is u64
      out.push(...bytes);
    } else u32(0);
  } else if (variant === "DuplicateInstruction") {
    out.push(Number(value) & 0xff);
  } else if (variant === "InsufficientFundsForRent" || variant === "ProgramExecutionTemporarilyRestricted") {
    out.push(Number((value as { account_index: number }).account_index) & 0xff);
  }
  return Uint8Array.from(out);
}
