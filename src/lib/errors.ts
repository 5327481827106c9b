/**
 * The one error model (after `@solana/kit`'s `SolanaError`): one class, a code from one table, a
 * context object and the `cause` it wraps. Services throw `AppError`; only the HTTP edge
 * (`src/http/errors.ts`) turns a code into a status, so nothing below the routes knows about HTTP.
 *
 * A code with a template in ERROR_MESSAGES is thrown with its context alone (`new AppError(code,
 * context)`): the sentence is the template with each `$name` filled from the context, whose shape
 * ErrorContextOfCode types, so one code always says one thing. A code without a template (the
 * folders not yet converted, and the assertion codes such as LEDGER_INVARIANT whose text is the
 * assertion that failed) is thrown with its own sentence as the second argument.
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
  /** a route behind a secret answers a caller without it as if the route did not exist */
  ROUTE_HIDDEN: "missing",
  MINT_INVALID: "input",
  HANDLE_INVALID: "input",
  QUERY_INTEGER_INVALID: "input",
  MINT_NOT_LAUNCHED: "missing",
  HANDLE_NOT_NAMED: "missing",
  SERVICE_STOPPING: "unavailable",
  TREASURY_UNREADABLE: "unavailable",
  REASON_REQUIRED: "input",
  REASON_TOO_LONG: "input",
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
  /** two bodies registered for one job (a wiring fault of the composition root) */
  JOB_ALREADY_REGISTERED: "internal",
  /** the web client or its styles did not bundle at start */
  WEB_BUILD_FAILED: "internal",
  // the OpenAPI document cannot be built from the routes' schemas
  OPENAPI_TITLE_TAKEN: "internal",
  OPENAPI_UNION_MEMBER_UNNAMED: "internal",
  OPENAPI_CACHE_UNDOCUMENTED: "internal",
  /** every microsecond slot of one millisecond already holds a feed event or webhook delivery */
  EVENT_SLOTS_EXHAUSTED: "internal",
  // backups
  BACKUP_NOT_FOUND: "internal",
  BACKUP_CHECKSUM_MISMATCH: "internal",
  BACKUP_INTEGRITY_FAILED: "internal",
  BACKUP_UPLOAD_TIMEOUT: "internal",
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
  /** account data that is not the account it should be (src/chain/pump/layout.ts) */
  CHAIN_ACCOUNT_MALFORMED: "internal",
  /** the indexer's stream endpoint did not answer in time */
  INDEXER_UNANSWERED: "internal",
  /** the indexer's stream went quiet for longer than it may */
  INDEXER_STREAM_SILENT: "internal",
  // rpc.ts's own markers inside web3.js's fetch, turned into the codes above before they leave it
  CHAIN_HTTP_STATUS: "internal",
  CHAIN_REQUEST_TIMEOUT: "internal",
  // ledger
  LEDGER_INVARIANT: "internal",
  /** a memo of the service's own form that does not decode (chain/command-key.ts) */
  COMMAND_KEY_MALFORMED: "internal",
  /** a treasury transaction's command key disagrees with the rows the database holds (src/reconcile) */
  RECONCILE_MISMATCH: "internal",
  // jobs, ledger feed, proof of liabilities
  JOB_RUNNING: "conflict",
  JOB_NOT_AVAILABLE: "unavailable",
  CRON_RUN_NOT_FOUND: "missing",
  FEED_BEFORE_INVALID: "input",
  LIABILITY_AT_INVALID: "input",
  LIABILITY_SNAPSHOT_NOT_FOUND: "missing",
  LIABILITY_LEAF_NOT_FOUND: "missing",
  // custody
  WITHDRAWAL_AMOUNT_INVALID: "input",
  WITHDRAWAL_BELOW_RENT: "input",
  WITHDRAWAL_OVER_LIMIT: "input",
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
  TOKEN_CURSOR_INVALID: "input",
  TOKEN_SEARCH_INVALID: "input",
  TOKEN_IMAGE_NOT_FOUND: "missing",
  // the market data source failed (src/market/adapter.ts); its text is for the log
  MARKET_UNREACHABLE: "unavailable",
  MARKET_HTTP_STATUS: "unavailable",
  MARKET_NOT_JSON: "unavailable",
  MARKET_BATCHES_FAILED: "unavailable",
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

/**
 * The sentence of each converted code (kit's messages table): `$name` is replaced by the context's
 * `name`. Public codes' sentences are SPEC's, byte for byte; internal ones go to the log only.
 */
export const ERROR_MESSAGES = {
  // shared
  ROUTE_HIDDEN: "Not found.",
  MINT_INVALID: "The mint is not a base58 address.",
  HANDLE_INVALID: "The handle must be 1 to 15 letters, digits or underscores.",
  QUERY_INTEGER_INVALID: "The query parameter '$name' must be an integer from $minimum to $maximum.",
  MINT_NOT_LAUNCHED: "No token with that mint was launched here.",
  HANDLE_NOT_NAMED: "No token launched here names this handle yet.",
  SERVICE_STOPPING: "The service is shutting down.",
  TREASURY_UNREADABLE: "The treasury balance cannot be read right now; try again later.",
  REASON_REQUIRED: "A reason is required.",
  REASON_TOO_LONG: "The reason is longer than $maximum characters.",
  JOB_ALREADY_REGISTERED: "job $job already has a body",
  WEB_BUILD_FAILED: "$part failed: $logs",
  OPENAPI_TITLE_TAKEN: "two different schemas are titled $title",
  OPENAPI_UNION_MEMBER_UNNAMED: "a member of a union told apart by $property is not a named schema",
  OPENAPI_CACHE_UNDOCUMENTED: "no Cache-Control is documented for $path",
  EVENT_SLOTS_EXHAUSTED: "too many $events in one millisecond",
  BACKUP_NOT_FOUND: "there is no backup generation under $url",
  BACKUP_CHECKSUM_MISMATCH: "refused $url: its bytes do not match the checksum in its name (damaged in the store)",
  BACKUP_INTEGRITY_FAILED: "integrity check failed: $result",
  BACKUP_UPLOAD_TIMEOUT: "the upload took longer than $timeoutMs ms",
  // chain
  INDEXER_UNANSWERED: "$awaited within $timeoutMs ms",
  INDEXER_STREAM_SILENT: "no message for $staleMs ms",
  // jobs, ledger feed, proof of liabilities
  JOB_RUNNING: "That job is running already; try again when it finishes.",
  JOB_NOT_AVAILABLE: "That job is not available on this deployment yet.",
  CRON_RUN_NOT_FOUND: "No such run; runs are kept in memory until the service restarts.",
  LEASE_LOST: "lease of $job was lost",
  FEED_BEFORE_INVALID: "The 'before' parameter must be an ISO 8601 time, as given in nextBefore.",
  LIABILITY_AT_INVALID: "The query parameter 'at' must be an ISO 8601 time.",
  LIABILITY_SNAPSHOT_NOT_FOUND: "No liability snapshot was taken at or before that time.",
  LIABILITY_LEAF_NOT_FOUND: "Your account was owed nothing at that snapshot, so it has no leaf in it.",
  // custody
  WITHDRAWAL_AMOUNT_INVALID: "lamports must be a positive whole number of lamports.",
  WITHDRAWAL_BELOW_RENT:
    "A withdrawal must be at least $minimumLamports lamports (a new wallet's rent-exempt minimum).",
  WITHDRAWAL_OVER_LIMIT:
    "At most $mostLamports lamports can be withdrawn now: the platform's balance, and the treasury's surplus over what is owed less the reserve for fees and rent.",
  // accounts, tokens, market
  HANDLE_HELD_ELSEWHERE:
    "This handle is still pinned to the account that held it before; sign in with the account that holds it now.",
  HANDLE_OWNER_UNKNOWN:
    "The identity provider could not be asked who holds this handle now; nothing was changed. Try again later.",
  TOKEN_CURSOR_INVALID: "The cursor is not valid for this sort; start again without it.",
  TOKEN_SEARCH_INVALID: "The search must not contain control characters.",
  TOKEN_IMAGE_NOT_FOUND: "There is no stored image for that token.",
  MARKET_UNREACHABLE: "market data unreachable ($failure)",
  MARKET_HTTP_STATUS: "market data answered HTTP $status",
  MARKET_NOT_JSON: "market data answered something that is not JSON",
  MARKET_BATCHES_FAILED: "$failed market data batches failed",
} as const satisfies Partial<Record<ErrorCode, string>>;

/** The context of each code whose template names one (kit's `SolanaErrorContext`). */
export interface ErrorContextOfCode {
  REASON_TOO_LONG: { maximum: number };
  WITHDRAWAL_BELOW_RENT: { minimumLamports: bigint };
  WITHDRAWAL_OVER_LIMIT: { mostLamports: bigint };
  QUERY_INTEGER_INVALID: { name: string; minimum: number; maximum: number };
  JOB_ALREADY_REGISTERED: { job: string };
  WEB_BUILD_FAILED: { part: "web bundle" | "styles"; logs: string };
  OPENAPI_TITLE_TAKEN: { title: string };
  OPENAPI_UNION_MEMBER_UNNAMED: { property: string };
  OPENAPI_CACHE_UNDOCUMENTED: { path: string };
  EVENT_SLOTS_EXHAUSTED: { events: "feed events" | "webhook deliveries" };
  BACKUP_NOT_FOUND: { url: string };
  BACKUP_CHECKSUM_MISMATCH: { url: string };
  BACKUP_INTEGRITY_FAILED: { result: string };
  INDEXER_UNANSWERED: { awaited: string; timeoutMs: number };
  INDEXER_STREAM_SILENT: { staleMs: number };
  BACKUP_UPLOAD_TIMEOUT: { timeoutMs: number };
  MARKET_BATCHES_FAILED: { failed: number };
  LEASE_LOST: { job: string };
  /** why the sign-in found the handle held elsewhere, for the log */
  HANDLE_HELD_ELSEWHERE: { reason: string };
  /** the name of the fetch's failure (TimeoutError, TypeError, ...) */
  MARKET_UNREACHABLE: { failure: string };
  MARKET_HTTP_STATUS: { status: number };
}

export type TemplatedCode = keyof typeof ERROR_MESSAGES;

/** What a failure carries besides its sentence; `retryAfterSeconds` becomes `retry-after` at the edge. */
export type ErrorContext = { readonly retryAfterSeconds?: number } & Readonly<Record<string, unknown>>;

/** The context an error of `C` carries: its typed shape when the table gives one. */
export type ContextOf<C extends ErrorCode> = C extends keyof ErrorContextOfCode
  ? Readonly<ErrorContextOfCode[C]> & ErrorContext
  : ErrorContext;

export interface AppErrorOptions {
  cause?: unknown;
}

/**
 * What follows the code: a templated code takes its context (required when the template names
 * some), any other code its own sentence first. A code known only as `ErrorCode` (rebuilt from
 * another error, or from a worker's answer) may pass the sentence it already has.
 */
export type AppErrorArgs<C extends ErrorCode> = C extends TemplatedCode
  ? C extends keyof ErrorContextOfCode
    ? [context: ContextOf<C>, options?: AppErrorOptions]
    : [context?: ErrorContext, options?: AppErrorOptions]
  : [message: string, context?: ContextOf<C>, options?: AppErrorOptions];

const VARIABLE = /\$([A-Za-z_][A-Za-z0-9_]*)/g;

/** The sentence of `code`: its template with every `$name` the context holds filled in. */
export function messageOf(code: TemplatedCode, context: ErrorContext = {}): string {
  return ERROR_MESSAGES[code].replace(VARIABLE, (whole, name: string) =>
    Object.hasOwn(context, name) ? String(context[name]) : whole,
  );
}

function isTemplated(code: ErrorCode): code is TemplatedCode {
  return Object.hasOwn(ERROR_MESSAGES, code);
}

export class AppError<C extends ErrorCode = ErrorCode> extends Error {
  override readonly name = "AppError";
  readonly code: C;
  readonly context: ContextOf<C>;

  constructor(code: C, ...args: AppErrorArgs<C>) {
    const [first, second, third] = args as [string | ErrorContext | undefined, unknown, unknown];
    const own = typeof first === "string";
    const context = ((own ? second : first) ?? {}) as ContextOf<C>;
    const options = ((own ? third : second) ?? {}) as AppErrorOptions;
    const message = own ? first : isTemplated(code) ? messageOf(code, context) : code;
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
