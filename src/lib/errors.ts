/**
 * The one error model (after `@solana/kit`'s `SolanaError`): one class, a code from one table, a
 * context object and the `cause` it wraps. Services throw `AppError`; only the HTTP edge
 * (`src/http/errors.ts`) turns a code into a status, so nothing below the routes knows about HTTP.
 *
 * The `message` of a code whose kind is public is the sentence a user reads in SPEC's `{error}`
 * envelope; the message of an internal code goes only to the log.
 */

/**
 * Every code, with what it means to a caller. `kind` decides the HTTP status at the edge:
 * input → 400, auth → 401, forbidden → 403, missing → 404, conflict → 409, gone → 410,
 * tooLarge → 413, unsupported → 415, limited → 429, upstream → 502, unavailable → 503,
 * internal → 500 (message hidden).
 * Append codes to the section of the feature that throws them.
 */
export const ERROR_CODES = {
  // shared
  INVALID_INPUT: "input",
  SIGN_IN_REQUIRED: "auth",
  FORBIDDEN: "forbidden",
  NOT_FOUND: "missing",
  CONFLICT: "conflict",
  GONE: "gone",
  PAYLOAD_TOO_LARGE: "tooLarge",
  RATE_LIMITED: "limited",
  UPSTREAM_FAILED: "upstream",
  UNAVAILABLE: "unavailable",
  INTERNAL: "internal",
  CONFIG_INVALID: "internal",
  // chain
  CHAIN_UNAVAILABLE: "unavailable",
  // What the adapters throw: their text is for the log, so one that reaches the edge uncaught stays
  // the 500 it always was; a route that owes the client a 502/503 catches `isChainUnavailable` and
  // throws its own sentence.
  CHAIN_TIMEOUT: "internal",
  CHAIN_RATE_LIMITED: "internal",
  CHAIN_PROVIDER_FAILED: "internal",
  CHAIN_BAD_RESPONSE: "internal",
  CHAIN_REJECTED: "internal",
  LAUNCH_PROGRAM_FAILED: "internal",
  CHAIN_KEY_INVALID: "internal",
  LOCAL_RPC_ERROR: "internal",
  // rpc.ts's own markers inside web3.js's fetch, turned into the codes above before they leave it
  CHAIN_HTTP_STATUS: "internal",
  CHAIN_REQUEST_TIMEOUT: "internal",
  // ledger
  LEDGER_INVARIANT: "internal",
  /** a memo of the service's own form that does not decode (chain/command-key.ts) */
  COMMAND_KEY_MALFORMED: "internal",
  /** a treasury transaction's command key disagrees with the rows the database holds (src/reconcile) */
  RECONCILE_MISMATCH: "internal",
  // payouts, sweeps, burns, jobs, proof, liabilities, history, stats
  PAYOUT_IN_FLIGHT: "conflict",
  INSUFFICIENT_BALANCE: "input",
  LEASE_LOST: "internal",
  LIABILITY_TREE_INVALID: "internal",
  // accounts, auth, payouts
  CLAIMS_PAUSED: "unavailable",
  HANDLE_HELD_ELSEWHERE: "conflict",
  HANDLE_OWNER_UNKNOWN: "unavailable",
  IDP_UNAVAILABLE: "upstream",
  IDP_GRANT_REFUSED: "input",
  // launches, tokens, market
  LAUNCHES_DISABLED: "unavailable",
  LAUNCHES_PAUSED: "unavailable",
  LAUNCH_INPUT_INVALID: "input",
  LAUNCH_TRANSACTION_REJECTED: "input",
  LAUNCH_MINT_USED: "conflict",
  LAUNCH_INTENT_NOT_FOUND: "missing",
  LAUNCH_WINDOW_EXPIRED: "gone",
  LAUNCH_STEP_CONFLICT: "conflict",
  LAUNCH_SIGNATURE_MISMATCH: "auth",
  LAUNCH_METADATA_UNSTORABLE: "unavailable",
  LAUNCH_CHAIN_UNREACHABLE: "upstream",
  LAUNCH_UPLOAD_FAILED: "upstream",
  LAUNCH_UPLOAD_ALLOWANCE_USED: "limited",
  LAUNCH_IMAGE_UNSUPPORTED: "unsupported",
  LAUNCH_IMAGE_TOO_LARGE: "tooLarge",
  LAUNCH_HANDLE_UNKNOWN: "input",
  LAUNCH_HANDLES_UNAVAILABLE: "unavailable",
  LAUNCH_OBJECT_NOT_FOUND: "missing",
  RPC_REQUEST_INVALID: "input",
  RPC_ORIGIN_REFUSED: "forbidden",
  RPC_PROVIDER_FAILED: "upstream",
  PLATFORM_TOKEN_INVALID: "input",
  TOKEN_INPUT_INVALID: "input",
  TOKEN_NOT_FOUND: "missing",
  MARKET_UNAVAILABLE: "unavailable",
  // admin, webhooks, liabilities
  ADMIN_INPUT: "input",
  ADMIN_NOT_FOUND: "missing",
  WEBHOOK_INPUT: "input",
  WEBHOOK_DESTINATION_REFUSED: "input",
  // workers: a worker thread that did not answer in time
  WORKER_UNANSWERED: "internal",
} as const satisfies Record<string, ErrorKind>;

export type ErrorKind =
  | "input"
  | "auth"
  | "forbidden"
  | "missing"
  | "conflict"
  | "gone"
  | "tooLarge"
  | "unsupported"
  | "limited"
  | "upstream"
  | "unavailable"
  | "internal";

export type ErrorCode = keyof typeof ERROR_CODES;

/** What a failure carries besides its sentence; `retryAfterSeconds` becomes `retry-after` at the edge. */
export type ErrorContext = { readonly retryAfterSeconds?: number } & Readonly<Record<string, unknown>>;

export class AppError<C extends ErrorCode = ErrorCode> extends Error {
  override readonly name = "AppError";
  readonly code: C;
  readonly context: ErrorContext;

  constructor(code: C, message: string, context: ErrorContext = {}, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.context = context;
  }

  get kind(): ErrorKind {
    return ERROR_CODES[this.code];
  }
}

/** Narrows to an AppError, of one of `codes` when given (kit's `isSolanaError(e, code)`). */
export function isAppError<C extends ErrorCode>(error: unknown, ...codes: C[]): error is AppError<C> {
  if (!(error instanceof AppError)) return false;
  return codes.length === 0 || (codes as ErrorCode[]).includes(error.code);
}
