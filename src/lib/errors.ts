/**
 * The one error model (after `@solana/kit`'s `SolanaError`): one class, a code from one table, a
 * context object and the `cause` it wraps. Services throw `AppError`; only the HTTP edge
 * (`src/http/errors.ts`) turns a code into a status, so nothing below the routes knows about HTTP.
 *
 * Each code is one row of ERRORS: its kind, its sentence and the type of its context. A code with
 * a sentence is thrown with its context alone (`new AppError(code, context)`): the sentence is the
 * template with each `$name` filled from the context, whose shape the row types, so one code always
 * says one thing. A code whose `message` is null (the assertion codes such as LEDGER_INVARIANT,
 * whose text is the assertion that failed) is thrown with its own sentence as the second argument.
 *
 * The `message` of a code whose kind is public is the sentence a user reads in SPEC's `{error}`
 * envelope, byte for byte; the message of an internal code goes only to the log.
 */

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

declare const CONTEXT: unique symbol;

/** The type of a code's context, as a row names it (kit's `SolanaErrorContext`); only the compiler reads it. */
interface Context<T> {
  readonly [CONTEXT]: T;
}

function ctx<T extends object>(): Context<T> {
  return undefined as unknown as Context<T>;
}

interface ErrorRow {
  readonly kind: ErrorKind;
  /** the template (`$name` is the context's `name`), or null when the thrower gives the sentence */
  readonly message: string | null;
  /** present when the template names variables: the context they come from */
  readonly context?: Context<object>;
}

/** The draft's text fields (src/launches/draft.ts). */
type LaunchTextField = "name" | "symbol" | "description";

/**
 * Every code, with what it means to a caller. `kind` decides the HTTP status at the edge:
 * input → 400, auth → 401, forbidden → 403, missing → 404, conflict → 409, gone → 410,
 * tooLarge → 413, unsupported → 415, limited → 429, upstream → 502, unavailable → 503,
 * internal → 500 (message hidden).
 * Append codes to the section of the feature that throws them.
 */
const ERRORS = {
  // shared
  /** a route behind a secret answers a caller without it as if the route did not exist */
  ROUTE_HIDDEN: { kind: "missing", message: "Not found." },
  MINT_INVALID: { kind: "input", message: "The mint is not a base58 address." },
  HANDLE_INVALID: { kind: "input", message: "The handle must be 1 to 15 letters, digits or underscores." },
  QUERY_INTEGER_INVALID: {
    kind: "input",
    message: "The query parameter '$name' must be an integer from $minimum to $maximum.",
    context: ctx<{ name: string; minimum: number; maximum: number }>(),
  },
  /** a query parameter a route takes once, given more than once */
  QUERY_REPEATED: {
    kind: "input",
    message: "The query parameter '$name' is given more than once.",
    context: ctx<{ name: string }>(),
  },
  MINT_NOT_LAUNCHED: { kind: "missing", message: "No token with that mint was launched here." },
  HANDLE_NOT_NAMED: { kind: "missing", message: "No token launched here names this handle yet." },
  SERVICE_STOPPING: { kind: "unavailable", message: "The service is shutting down." },
  TREASURY_UNREADABLE: {
    kind: "unavailable",
    message: "The treasury balance cannot be read right now; try again later.",
  },
  REASON_REQUIRED: { kind: "input", message: "A reason is required." },
  REASON_TOO_LONG: {
    kind: "input",
    message: "The reason is longer than $maximum characters.",
    context: ctx<{ maximum: number }>(),
  },
  REASON_NOT_STRING: { kind: "input", message: "The reason must be a string." },
  BODY_NOT_OBJECT: { kind: "input", message: "The body must be a JSON object." },
  BODY_NOT_JSON_OBJECT: { kind: "input", message: "Send the request body as a JSON object." },
  BODY_UNREADABLE: { kind: "input", message: "The request body could not be read; send a JSON object." },
  BODY_TOO_LARGE: { kind: "tooLarge", message: "The request body is too large." },
  /** a state-changing request from another site's page */
  CROSS_SITE_REFUSED: { kind: "forbidden", message: "Requests from another site are refused." },
  LIMIT_INVALID: {
    kind: "input",
    message: "limit must be a whole number from 1 to $maximum.",
    context: ctx<{ maximum: number }>(),
  },
  MINT_NOT_BASE58: { kind: "input", message: "The mint must be a base58 address." },
  MINT_NOT_STRING: { kind: "input", message: "The mint must be a string." },
  MINT_REQUIRED: { kind: "input", message: "A mint is required." },
  LAMPORTS_NOT_DECIMAL: { kind: "input", message: "lamports must be a decimal string of whole lamports." },
  LAMPORTS_REQUIRED: { kind: "input", message: "lamports is required." },
  /** a lamport setting outside 0..i64 reached the settings store (its callers check first) */
  SETTING_LAMPORTS_INVALID: { kind: "internal", message: "lamports out of range" },
  // a value a column cannot hold exactly (db/columns.ts)
  DB_LAMPORTS_NOT_BIGINT: { kind: "internal", message: "lamport column needs a bigint" },
  DB_INTEGER_INEXACT: { kind: "internal", message: "integer outside the exact number range" },
  DB_INTEGER_UNSAFE: { kind: "internal", message: "integer column needs a safe integer" },
  /** a caller's refusal with its own sentence (the worker channel's tests throw it across a thread) */
  INVALID_INPUT: { kind: "input", message: null },
  INTERNAL: { kind: "internal", message: null },
  CONFIG_INVALID: { kind: "internal", message: null },
  /** the port the service would listen on is taken (another process would split its traffic) */
  START_PORT_UNAVAILABLE: {
    kind: "internal",
    message: "port $port on $hostname $reason (PORT, HOST)",
    context: ctx<{ port: number; hostname: string; reason: string }>(),
  },
  /** the database holds migrations this build does not know: a newer version ran on it */
  DATABASE_FROM_NEWER_VERSION: {
    kind: "internal",
    message:
      "the database $path has $unknown migration(s) this build does not know (it knows up to $lastKnown): a newer version ran on it; start that version, or restore a backup made by this one",
    context: ctx<{ path: string; unknown: number; lastKnown: string }>(),
  },
  /** two bodies registered for one job (a wiring fault of the composition root) */
  JOB_ALREADY_REGISTERED: { kind: "internal", message: "job $job already has a body", context: ctx<{ job: string }>() },
  /** the web client or its styles did not bundle at start */
  WEB_BUILD_FAILED: {
    kind: "internal",
    message: "$part failed: $logs",
    context: ctx<{ part: "web bundle" | "styles"; logs: string }>(),
  },
  // the OpenAPI document cannot be built from the routes' schemas
  OPENAPI_TITLE_TAKEN: {
    kind: "internal",
    message: "two different schemas are titled $title",
    context: ctx<{ title: string }>(),
  },
  OPENAPI_UNION_MEMBER_UNNAMED: {
    kind: "internal",
    message: "a member of a union told apart by $property is not a named schema",
    context: ctx<{ property: string }>(),
  },
  OPENAPI_CACHE_UNDOCUMENTED: {
    kind: "internal",
    message: "no Cache-Control is documented for $path",
    context: ctx<{ path: string }>(),
  },
  /** every microsecond slot of one millisecond already holds a feed event or webhook delivery */
  EVENT_SLOTS_EXHAUSTED: {
    kind: "internal",
    message: "too many $events in one millisecond",
    context: ctx<{ events: "feed events" | "webhook deliveries" }>(),
  },
  // backups
  BACKUP_NOT_FOUND: {
    kind: "internal",
    message: "there is no backup generation under $url",
    context: ctx<{ url: string }>(),
  },
  BACKUP_CHECKSUM_MISMATCH: {
    kind: "internal",
    message: "refused $url: its bytes do not match the checksum in its name (damaged in the store)",
    context: ctx<{ url: string }>(),
  },
  BACKUP_INTEGRITY_FAILED: {
    kind: "internal",
    message: "integrity check failed: $result",
    context: ctx<{ result: string }>(),
  },
  BACKUP_UPLOAD_TIMEOUT: {
    kind: "internal",
    message: "the upload took longer than $timeoutMs ms",
    context: ctx<{ timeoutMs: number }>(),
  },
  /**
   * the object store failed an action; the text names the action and the store's code only
   * (`storeCode`: the store's own error code when it is a plain identifier, else "error")
   */
  BACKUP_STORE_FAILED: {
    kind: "internal",
    message: "$action failed ($storeCode)",
    context: ctx<{ action: string; storeCode: string }>(),
  },
  /** an off-site object that does not open with BACKUP_KEY_FILE's key; `advice`: "" or what to do instead */
  BACKUP_NOT_AUTHENTIC: {
    kind: "internal",
    message:
      "refused $url: it does not open with the key in BACKUP_KEY_FILE (planted, sealed with another key or none, renamed, or damaged)$advice",
    context: ctx<{ url: string; advice: string }>(),
  },
  /** a file to restore whose tables, indexes, triggers or views are not what its migrations make */
  BACKUP_SCHEMA_DIFFERS: {
    kind: "internal",
    message: "refused $source: its schema is not the one the migrations make for its version ($difference)",
    context: ctx<{ source: string; difference: string }>(),
  },
  // chain: `$method` is the JSON-RPC method (or the step) asked, `$detail` what went wrong, the
  // node's own text scrubbed of URLs and keys where it says more than the code
  CHAIN_UNAVAILABLE: {
    kind: "unavailable",
    message: "$method: $detail",
    context: ctx<{ method: string; detail: string }>(),
  },
  // What the adapters throw: their text is for the log, so one that reaches the edge uncaught stays
  // the 500 it always was; a route that owes the client a 502/503 catches `isChainUnavailable` and
  // throws its own sentence.
  CHAIN_TIMEOUT: {
    kind: "internal",
    message: "$method: no answer within $timeoutMs ms",
    context: ctx<{ method: string; timeoutMs: number }>(),
  },
  CHAIN_RATE_LIMITED: {
    kind: "internal",
    message: "$method: rate limited (HTTP 429)",
    context: ctx<{ method: string }>(),
  },
  CHAIN_PROVIDER_FAILED: {
    kind: "internal",
    message: "$method: $detail",
    context: ctx<{ method: string; detail: string }>(),
  },
  CHAIN_BAD_RESPONSE: {
    kind: "internal",
    message: "$method: $detail",
    context: ctx<{ method: string; detail: string }>(),
  },
  /** `rpcCode`: the node's JSON-RPC error code, when it gave one */
  CHAIN_REJECTED: {
    kind: "internal",
    message: "$method: $detail",
    context: ctx<{ method: string; detail: string; rpcCode: number | null }>(),
  },
  // what a launch program adapter cannot build or decode (src/chain/pump, src/chain/local)
  /** the account looked for: "mint", "bonding curve", ... */
  LAUNCH_PROGRAM_ACCOUNT_MISSING: {
    kind: "internal",
    message: "$account not found",
    context: ctx<{ account: string }>(),
  },
  LAUNCH_PROGRAM_AMOUNT_NOT_POSITIVE: {
    kind: "internal",
    message: "$amount must be positive",
    context: ctx<{ amount: "buy amount" | "burn amount" }>(),
  },
  LAUNCH_PROGRAM_FIRST_BUY_NEGATIVE: { kind: "internal", message: "first buy must not be negative" },
  LAUNCH_PROGRAM_SLIPPAGE_INVALID: {
    kind: "internal",
    message: "slippageBps $slippageBps is out of range",
    context: ctx<{ slippageBps: number }>(),
  },
  LAUNCH_PROGRAM_BUY_TOO_SMALL: {
    kind: "internal",
    message: "$buy too small to deliver any token",
    context: ctx<{ buy: "buy" | "first buy" }>(),
  },
  LAUNCH_PROGRAM_POOL_MISSING: { kind: "internal", message: "token is complete but its pool does not exist yet" },
  LAUNCH_PROGRAM_AMM_BUY_MISSING: { kind: "internal", message: "the AMM buy instruction is missing" },
  LAUNCH_PROGRAM_MINT_NOT_TOKEN: { kind: "internal", message: "mint is not owned by a token program" },
  LAUNCH_PROGRAM_MINT_TOO_SHORT: { kind: "internal", message: "mint account too short" },
  LAUNCH_PROGRAM_NO_TOKEN_BALANCES: { kind: "internal", message: "transaction carries no token balances" },
  LAUNCH_PROGRAM_METADATA_TOO_LONG: { kind: "internal", message: "name ≤ 32, symbol ≤ 13 and uri ≤ 200 characters" },
  /** the setting named, never its value; `reason` continues the sentence ("is empty") */
  CHAIN_KEY_INVALID: {
    kind: "internal",
    message: "$setting $reason",
    context: ctx<{ setting: "master secret" | "treasury key" | "token index"; reason: string }>(),
  },
  // account data that is not the account it should be (src/chain/pump/layout.ts)
  CHAIN_ACCOUNT_MALFORMED: { kind: "internal", message: "not a $account account", context: ctx<{ account: string }>() },
  CHAIN_ACCOUNT_TOO_SHORT: {
    kind: "internal",
    message: "$account too short: $bytes bytes",
    context: ctx<{ account: string; bytes: number }>(),
  },
  CHAIN_DATA_TRUNCATED: { kind: "internal", message: "account data ends before the field read" },
  CHAIN_STRING_TOO_LONG: {
    kind: "internal",
    message: "string too long: $bytes bytes, at most $maxBytes",
    context: ctx<{ bytes: number; maxBytes: number }>(),
  },
  CHAIN_SHAREHOLDERS_TOO_MANY: {
    kind: "internal",
    message: "too many shareholders: $count, at most $maximum",
    context: ctx<{ count: number; maximum: number }>(),
  },
  /** a memo outside the memo program's size (rpc.ts refuses an oversize command key as CHAIN_REJECTED) */
  MEMO_SIZE_INVALID: {
    kind: "internal",
    message: "a memo is 1 to $maxBytes bytes",
    context: ctx<{ maxBytes: number }>(),
  },
  /** the indexer's stream endpoint did not answer in time */
  INDEXER_UNANSWERED: {
    kind: "internal",
    message: "$awaited within $timeoutMs ms",
    context: ctx<{ awaited: string; timeoutMs: number }>(),
  },
  /** the indexer's stream went quiet for longer than it may */
  INDEXER_STREAM_SILENT: {
    kind: "internal",
    message: "no message for $staleMs ms",
    context: ctx<{ staleMs: number }>(),
  },
  // rpc.ts's own markers inside web3.js's fetch, turned into the codes above before they leave it
  /** `retryAfterMs`: the provider's `retry-after`, when it sent one */
  CHAIN_HTTP_STATUS: {
    kind: "internal",
    message: "HTTP $status",
    context: ctx<{ status: number; retryAfterMs: number | null }>(),
  },
  CHAIN_REQUEST_TIMEOUT: { kind: "internal", message: "request timed out" },
  // ledger
  LEDGER_INVARIANT: { kind: "internal", message: null },
  /** a sweep split given inputs outside its contract (src/ledger/split.ts; its callers check first) */
  SPLIT_TOTAL_NEGATIVE: { kind: "internal", message: "sweep total must not be negative" },
  SPLIT_PLATFORM_BPS_INVALID: { kind: "internal", message: "platformBps must be an integer from 0 to 10000" },
  SPLIT_NO_RECIPIENTS: { kind: "internal", message: "a sweep needs at least one recipient" },
  SPLIT_RECIPIENT_BPS_INVALID: { kind: "internal", message: "recipient bps must be an integer from 1 to 10000" },
  SPLIT_BPS_SUM_INVALID: { kind: "internal", message: "recipient bps must sum to 10000" },
  /** a memo of the service's own form that does not decode (chain/command-key.ts) */
  COMMAND_KEY_MALFORMED: { kind: "internal", message: "a memo starts as a command key but does not decode as one" },
  // a command key the service itself would write wrong (its callers build them from rows)
  COMMAND_KEY_ID_INVALID: { kind: "internal", message: "a command key id is a non-negative integer" },
  COMMAND_KEY_USER_EMPTY: { kind: "internal", message: "a command key user id is not empty" },
  COMMAND_KEY_BURN_PART_INVALID: { kind: "internal", message: "a burn order part is positive" },
  // A treasury transaction's command key disagrees with the rows the database holds (src/reconcile,
  // src/burns/adopt.ts): the transaction is recorded as unknown (RECONCILE_MISMATCH_CODES).
  RECONCILE_PAYOUT_DIFFERS: {
    kind: "internal",
    message: "payout $payoutId of the database differs from the one the transaction paid",
    context: ctx<{ payoutId: bigint | number }>(),
  },
  RECONCILE_REPLACEMENT_DIFFERS: {
    kind: "internal",
    message: "payout $payoutId does not owe what payout $replacedId it replaces owed",
    context: ctx<{ payoutId: bigint | number; replacedId: bigint | number }>(),
  },
  RECONCILE_REPLACED_STATUS: {
    kind: "internal",
    message: "payout $payoutId, replaced on chain, is $status in the database",
    context: ctx<{ payoutId: bigint | number; status: string }>(),
  },
  RECONCILE_WITHDRAWAL_DIFFERS: {
    kind: "internal",
    message: "withdrawal $withdrawalId of the database differs from the one the transaction made",
    context: ctx<{ withdrawalId: bigint | number }>(),
  },
  RECONCILE_BURN_BUY_DIFFERS: {
    kind: "internal",
    message: "burn buy $buyId of the database is another transaction",
    context: ctx<{ buyId: number }>(),
  },
  RECONCILE_BURN_NOT_AWAITED: {
    kind: "internal",
    message: "burn buy $buyId is $status, not waiting for its burn",
    context: ctx<{ buyId: number; status: string }>(),
  },
  // the treasury's history cannot be read far enough yet; the reconciliation tries again
  RECONCILE_HISTORY_SHORT: {
    kind: "unavailable",
    message: "the treasury's history as listed does not reach its present balance yet",
  },
  RECONCILE_HISTORY_GAP: {
    kind: "unavailable",
    message: "the treasury's history as listed is not whole yet: $why",
    context: ctx<{ why: string }>(),
  },
  RECONCILE_HISTORY_UNREACHED: {
    kind: "unavailable",
    message: "the node's history of the treasury does not reach back to the last transaction the books know",
  },
  RECONCILE_HISTORY_TOO_LONG: {
    kind: "unavailable",
    message: "the treasury's history since the last known transaction is longer than $scannedMax signatures",
    context: ctx<{ scannedMax: number }>(),
  },
  // jobs, ledger feed, proof of liabilities
  JOB_RUNNING: { kind: "conflict", message: "That job is running already; try again when it finishes." },
  JOB_NOT_AVAILABLE: { kind: "unavailable", message: "That job is not available on this deployment yet." },
  CRON_RUN_NOT_FOUND: { kind: "missing", message: "No such run; runs are kept in memory until the service restarts." },
  FEED_BEFORE_INVALID: {
    kind: "input",
    message: "The 'before' parameter must be an ISO 8601 time, as given in nextBefore.",
  },
  LIABILITY_AT_INVALID: { kind: "input", message: "The query parameter 'at' must be an ISO 8601 time." },
  LIABILITY_SNAPSHOT_NOT_FOUND: { kind: "missing", message: "No liability snapshot was taken at or before that time." },
  LIABILITY_LEAF_NOT_FOUND: {
    kind: "missing",
    message: "Your account was owed nothing at that snapshot, so it has no leaf in it.",
  },
  // custody
  /** a list's page size outside its range (its routes check first) */
  LIST_LIMIT_INVALID: { kind: "internal", message: "limit out of range" },
  /** a balance snapshot given a negative balance (src/history) */
  SNAPSHOT_BALANCE_NEGATIVE: { kind: "internal", message: "a balance cannot be negative" },
  WITHDRAWAL_AMOUNT_INVALID: { kind: "input", message: "lamports must be a positive whole number of lamports." },
  WITHDRAWAL_BELOW_RENT: {
    kind: "input",
    message: "A withdrawal must be at least $minimumLamports lamports (a new wallet's rent-exempt minimum).",
    context: ctx<{ minimumLamports: bigint }>(),
  },
  WITHDRAWAL_OVER_LIMIT: {
    kind: "input",
    message:
      "At most $mostLamports lamports can be withdrawn now: the platform's balance, and the treasury's surplus over what is owed less the reserve for fees and rent.",
    context: ctx<{ mostLamports: bigint }>(),
  },
  // payouts, sweeps, burns, jobs, proof, liabilities, history, stats
  PAYOUT_IN_FLIGHT: {
    kind: "conflict",
    message: "A payout is already queued or in flight; wait until it is sent and confirmed.",
  },
  /** the amount asked (or the whole balance), against the balance and the minimum */
  INSUFFICIENT_BALANCE: {
    kind: "input",
    message:
      "$lamports lamports cannot be paid: the balance is $balanceLamports lamports and the minimum $minimumLamports lamports",
    context: ctx<{ lamports: bigint; balanceLamports: bigint; minimumLamports: bigint }>(),
  },
  LEASE_LOST: { kind: "internal", message: "lease of $job was lost", context: ctx<{ job: string }>() },
  LIABILITY_TREE_INVALID: { kind: "internal", message: null },
  // accounts, auth, payouts
  CLAIMS_PAUSED: {
    kind: "unavailable",
    message: "Claims are paused for now; your balance is untouched. Try again later.",
  },
  // a halt the service put itself in (src/custody/state.ts), one code per incident kind
  PAYOUTS_HELD_SHORTFALL: {
    kind: "unavailable",
    message:
      "Payouts are on hold while the operator checks the treasury: it held less than the books say is owed. Your balance is untouched.",
  },
  PAYOUTS_HELD_AUDIT: {
    kind: "unavailable",
    message: "Payouts are on hold while the operator checks the books. Your balance is untouched.",
  },
  PAYOUTS_HELD_OUTFLOW_HOUR: {
    kind: "unavailable",
    message:
      "Payouts are on hold: more than the hourly limit would have left the treasury, and the operator is checking. Your balance is untouched.",
  },
  PAYOUTS_HELD_OUTFLOW_DAY: {
    kind: "unavailable",
    message:
      "Payouts are on hold: more than the daily limit would have left the treasury, and the operator is checking. Your balance is untouched.",
  },
  PAYOUTS_HELD_RESERVE_LOW: { kind: "unavailable", message: "Payouts are on hold. Your balance is untouched." },
  PAYOUTS_HELD_RECONCILING: {
    kind: "unavailable",
    message:
      "Payouts are on hold for a few minutes while the service checks its books against the chain. Your balance is untouched.",
  },
  PAYOUTS_HELD_UNKNOWN_TRANSACTION: {
    kind: "unavailable",
    message:
      "Payouts are on hold while the operator checks a treasury transaction the service did not make. Your balance is untouched.",
  },
  ROUTING_PAUSED: {
    kind: "unavailable",
    message: "Payouts are paused for now; routing cannot change. Try again later.",
  },
  CLAIM_WALLET_REQUIRED: { kind: "input", message: "Name the wallet to pay." },
  CLAIM_AMOUNT_NOT_DECIMAL: {
    kind: "input",
    message: "The amount must be a whole number of lamports written as a decimal string.",
  },
  CLAIM_AMOUNT_ZERO: { kind: "input", message: "The amount must be more than zero." },
  CLAIM_NO_BALANCE: { kind: "input", message: "There is no balance to claim." },
  CLAIM_ABOVE_BALANCE: { kind: "input", message: "The amount is above the balance." },
  CLAIM_BELOW_MINIMUM: {
    kind: "input",
    message: "The amount is below the minimum claim of $minimumLamports lamports.",
    context: ctx<{ minimumLamports: bigint }>(),
  },
  CLAIM_NOT_AVAILABLE: { kind: "input", message: "The amount is not available to claim." },
  ROUTING_INVALID: { kind: "input", message: "The routing must be hold, autopay or burn." },
  DECLINED_NOT_BOOLEAN: { kind: "input", message: "declined must be true or false." },
  DECLINE_NEEDS_BURN: { kind: "input", message: "Declining publicly needs the burn routing." },
  AUTOPAY_NEEDS_WALLET: { kind: "input", message: "Autopay needs a wallet to pay." },
  ACCOUNT_CURSOR_INVALID: { kind: "input", message: "The cursor is not one this service issued." },
  WALLET_NOT_ADDRESS: { kind: "input", message: "The wallet is not a valid address." },
  WALLET_NOT_WALLET: { kind: "input", message: "That address is not a wallet; use the address of a wallet you hold." },
  /** the chain could not be asked about a payout wallet */
  WALLET_UNCHECKABLE: {
    kind: "unavailable",
    message: "The wallet could not be checked on chain just now; try again shortly.",
  },
  /** why the sign-in found the handle held elsewhere, for the log */
  HANDLE_HELD_ELSEWHERE: {
    kind: "conflict",
    message:
      "This handle is still pinned to the account that held it before; sign in with the account that holds it now.",
    context: ctx<{ reason: string }>(),
  },
  HANDLE_OWNER_UNKNOWN: {
    kind: "unavailable",
    message:
      "The identity provider could not be asked who holds this handle now; nothing was changed. Try again later.",
  },
  /** what the provider did wrong, for the log */
  IDP_UNAVAILABLE: {
    kind: "upstream",
    message: "The identity provider did not answer properly; try again later.",
    context: ctx<{ reason: string }>(),
  },
  IDP_GRANT_REFUSED: { kind: "input", message: "The identity provider refused the sign-in; start again." },
  IDP_NOT_SET_UP: {
    kind: "unavailable",
    message: "Sign-in with the identity provider is not set up on this deployment.",
  },
  SESSION_REQUIRED: { kind: "auth", message: "Sign in first; there is no session or it has expired." },
  RETURN_TO_INVALID: { kind: "input", message: "returnTo must be a path on this site." },
  SIGN_IN_EXPIRED: { kind: "input", message: "The sign-in took too long; start again." },
  /** why the sign-in's state did not open, for the log */
  SIGN_IN_UNVERIFIED: {
    kind: "input",
    message: "The sign-in could not be verified; start again from this site.",
    context: ctx<{ reason: string }>(),
  },
  /** dev login answers as an unknown route where it is off */
  DEV_LOGIN_OFF: { kind: "missing", message: "No such route." },
  // launches, tokens, market
  LAUNCHES_DISABLED: { kind: "unavailable", message: "Launches are not available on this deployment." },
  LAUNCHES_PAUSED: { kind: "unavailable", message: "Launches are paused; try again later." },
  LAUNCH_TRANSACTION_REJECTED: {
    kind: "input",
    message: "That transaction does not create this launch: $reason.",
    context: ctx<{ reason: string }>(),
  },
  LAUNCH_MINT_USED: { kind: "conflict", message: "That token address is already used; generate a new one." },
  LAUNCH_INTENT_NOT_FOUND: { kind: "missing", message: "No such launch intent; prepare the launch again." },
  LAUNCH_WINDOW_EXPIRED: { kind: "gone", message: "The signing window has expired; prepare the launch again." },
  LAUNCH_WINDOW_EXPIRED_UNSENT: {
    kind: "gone",
    message: "The signing window has expired and the transaction was not found; prepare the launch again.",
  },
  LAUNCH_SIGNATURE_MISMATCH: { kind: "auth", message: "The message signature does not match the wallet." },
  LAUNCH_METADATA_UNSTORABLE: { kind: "unavailable", message: "Launch metadata cannot be stored on this deployment." },
  LAUNCH_CHAIN_UNREACHABLE: { kind: "upstream", message: "The chain could not be reached; try again." },
  LAUNCH_PREPARE_UNREACHABLE: {
    kind: "upstream",
    message: "The chain could not be reached to prepare the transaction; try again.",
  },
  LAUNCH_PREPARE_FAILED: {
    kind: "unavailable",
    message: "The create transaction could not be prepared; try again later.",
  },
  LAUNCH_UPLOAD_FAILED: { kind: "upstream", message: "The IPFS upload failed; try again in a moment." },
  LAUNCH_UPLOAD_ALLOWANCE_USED: {
    kind: "limited",
    message: "The upload allowance of your address for today is used up; try again tomorrow.",
    context: ctx<{ retryAfterSeconds: number }>(),
  },
  LAUNCH_IMAGE_UNSUPPORTED: { kind: "unsupported", message: "The image must be a PNG, JPEG, GIF or WebP file." },
  LAUNCH_IMAGE_UNREADABLE: {
    kind: "unsupported",
    message: "The image could not be read as a PNG, JPEG, GIF or WebP file.",
  },
  LAUNCH_IMAGE_TOO_LARGE: {
    kind: "tooLarge",
    message: "The image is too large; the limit is $maxBytes bytes.",
    context: ctx<{ maxBytes: number }>(),
  },
  LAUNCH_IMAGE_TOO_MANY_PIXELS: {
    kind: "tooLarge",
    message: "The image has too many pixels; the limit is $maxPixels pixels.",
    context: ctx<{ maxPixels: number }>(),
  },
  LAUNCH_HANDLE_UNKNOWN: {
    kind: "input",
    message: "The handle @$handle does not exist on X.",
    context: ctx<{ handle: string }>(),
  },
  LAUNCH_HANDLES_UNREADABLE: {
    kind: "unavailable",
    message: "X answered with a user the service cannot read; try again.",
  },
  LAUNCH_HANDLES_UNAVAILABLE: {
    kind: "unavailable",
    message: "X could not say who holds the named handles; try again.",
  },
  LAUNCH_HANDLES_UNREACHABLE: {
    kind: "unavailable",
    message: "X could not be reached to check the named handles; try again.",
  },
  LAUNCH_OBJECT_NOT_FOUND: { kind: "missing", message: "No such object." },
  LAUNCH_OBJECT_ADDRESS_INVALID: { kind: "input", message: "Not an object address." },
  LAUNCH_PARTS_MISSING: { kind: "input", message: "Send multipart parts intent, signature and image." },
  LAUNCH_THUMBNAIL_NOT_FILE: { kind: "input", message: "The thumbnail part must be a file." },
  LAUNCH_WALLET_INVALID: { kind: "input", message: "The wallet is not a wallet address." },
  LAUNCH_MINT_INVALID: { kind: "input", message: "The mint is not a usable token address." },
  LAUNCH_MINT_IS_WALLET: { kind: "input", message: "The mint and the wallet must differ." },
  LAUNCH_DIGEST_INVALID: { kind: "input", message: "The digest must be the image's SHA-256 in hex." },
  LAUNCH_IMAGE_NOT_NAMED: { kind: "input", message: "The image is not the one named when the launch was prepared." },
  LAUNCH_SIGNATURE_INVALID: { kind: "input", message: "The signature is not a transaction signature." },
  LAUNCH_PAST_METADATA: { kind: "conflict", message: "This launch is past the metadata step." },
  LAUNCH_UPLOAD_FIRST: { kind: "conflict", message: "Upload the image and metadata before confirming." },
  LAUNCH_CONFIRMED_ELSEWHERE: { kind: "conflict", message: "This launch was confirmed with another transaction." },
  // the draft (src/launches/draft.ts)
  LAUNCH_FIELD_LENGTH: {
    kind: "input",
    message: "The $field must be $minimum to $maximum characters.",
    context: ctx<{ field: LaunchTextField; minimum: number; maximum: number }>(),
  },
  LAUNCH_FIELD_CONTROL: {
    kind: "input",
    message: "The $field contains control characters.",
    context: ctx<{ field: LaunchTextField }>(),
  },
  LAUNCH_LINK_NOT_URL: { kind: "input", message: "The $field link is not a URL.", context: ctx<{ field: string }>() },
  LAUNCH_LINK_NOT_HTTPS: {
    kind: "input",
    message: "The $field link must start with https://.",
    context: ctx<{ field: string }>(),
  },
  LAUNCH_LINK_CREDENTIALS: {
    kind: "input",
    message: "The $field link must not carry a user name or password.",
    context: ctx<{ field: string }>(),
  },
  LAUNCH_SYMBOL_SPACES: { kind: "input", message: "The symbol must not contain spaces." },
  LAUNCH_RECIPIENT_COUNT: {
    kind: "input",
    message: "Name 1 to $maximum recipients.",
    context: ctx<{ maximum: number }>(),
  },
  LAUNCH_RECIPIENT_HANDLE_INVALID: {
    kind: "input",
    message: "A recipient handle is not valid (1 to 15 letters, digits or underscores).",
  },
  LAUNCH_RECIPIENT_TWICE: { kind: "input", message: "A recipient is named twice." },
  LAUNCH_RECIPIENT_BPS_INVALID: {
    kind: "input",
    message: "Each recipient's bps must be a whole number from 1 to 10000.",
  },
  LAUNCH_BPS_SUM: { kind: "input", message: "The recipients' bps must add up to 10000." },
  LAUNCH_FIRST_BUY_TOO_LARGE: {
    kind: "input",
    message: "The first buy is above the largest allowed ($maximumLamports lamports).",
    context: ctx<{ maximumLamports: bigint }>(),
  },
  /** a launch confirmed on chain whose token row is not there after it was written */
  LAUNCH_RECORD_MISSING: { kind: "internal", message: "confirmed launch has no token record" },
  /** a launch of the job's run failed with something that is not an Error */
  LAUNCHES_JOB_FAILED: { kind: "internal", message: "launches job failed" },
  // a launch record given inputs outside its contract (src/tokens/launch-record.ts; the draft checks first)
  LAUNCH_RECORD_NO_RECIPIENTS: { kind: "internal", message: "a launch names at least one recipient" },
  LAUNCH_RECORD_BPS_SUM: { kind: "internal", message: "recipient bps must sum to 10000" },
  LAUNCH_RECORD_HANDLE_INVALID: { kind: "internal", message: "recipient handle is not valid" },
  LAUNCH_RECORD_BPS_INVALID: { kind: "internal", message: "recipient bps must be a positive integer" },
  LAUNCH_RECORD_HANDLE_TWICE: { kind: "internal", message: "a handle is named twice" },
  // the JSON-RPC proxy (src/launches/rpc-proxy.ts, rpc-guard.ts)
  RPC_BATCH_REFUSED: { kind: "input", message: "Send one JSON-RPC request at a time." },
  RPC_BODY_NOT_OBJECT: { kind: "input", message: "The body must be a JSON-RPC request object." },
  RPC_NOT_2_0: { kind: "input", message: "The body must be a JSON-RPC 2.0 request." },
  RPC_ID_INVALID: { kind: "input", message: "The JSON-RPC id must be a string or a number." },
  RPC_PARAMS_NOT_ARRAY: { kind: "input", message: "The JSON-RPC params must be an array." },
  RPC_TRANSACTION_MISSING: { kind: "input", message: "The transaction is missing or too large." },
  RPC_TRANSACTION_UNDECODABLE: { kind: "input", message: "The transaction could not be decoded." },
  RPC_METHOD_UNAVAILABLE: { kind: "input", message: "That JSON-RPC method is not available here." },
  RPC_NOT_LAUNCH: { kind: "input", message: "Only launch transactions can be sent or simulated here." },
  RPC_NOT_OUR_LAUNCH: {
    kind: "input",
    message: "Only the create and first buy of a launch prepared on this site, within its window, can be sent here.",
  },
  RPC_PROGRAM_REFUSED: {
    kind: "input",
    message:
      "Only the programs a launch uses (System, SPL Token, Token-2022, Associated Token, Compute Budget and the launch program) can be called here.",
  },
  RPC_OPTIONS_NOT_OBJECT: {
    kind: "input",
    message: "The JSON-RPC params are not valid: the options must be an object.",
  },
  RPC_OPTION_UNAVAILABLE: {
    kind: "input",
    message: "The JSON-RPC params are not valid: the option '$option' is not available here.",
    context: ctx<{ option: string }>(),
  },
  RPC_OPTION_INVALID: {
    kind: "input",
    message: "The JSON-RPC params are not valid: the option '$option' is not valid.",
    context: ctx<{ option: string }>(),
  },
  /** how many params the method takes: "1" or "1 to 2" */
  RPC_PARAMS_COUNT: {
    kind: "input",
    message: "The JSON-RPC params are not valid: expected $count params.",
    context: ctx<{ count: string }>(),
  },
  RPC_PARAM_NOT_ADDRESS: { kind: "input", message: "The JSON-RPC params are not valid: not an address." },
  RPC_SIGNATURES_INVALID: {
    kind: "input",
    message: "The JSON-RPC params are not valid: one to $maximum transaction signatures.",
    context: ctx<{ maximum: number }>(),
  },
  RPC_AIRDROP_INVALID: { kind: "input", message: "The JSON-RPC params are not valid: not an airdrop amount." },
  RPC_PROVIDER_FAILED: { kind: "upstream", message: "The chain provider failed; try again." },
  PLATFORM_TOKEN_INVALID: { kind: "input", message: "The platform token must be a base58 mint address." },
  TOKEN_CURSOR_INVALID: { kind: "input", message: "The cursor is not valid for this sort; start again without it." },
  TOKEN_SEARCH_INVALID: { kind: "input", message: "The search must not contain control characters." },
  TOKEN_IMAGE_NOT_FOUND: { kind: "missing", message: "There is no stored image for that token." },
  // the market data source failed (src/market/adapter.ts); its text is for the log
  /** the name of the fetch's failure (TimeoutError, TypeError, ...) */
  MARKET_UNREACHABLE: {
    kind: "unavailable",
    message: "market data unreachable ($failure)",
    context: ctx<{ failure: string }>(),
  },
  MARKET_HTTP_STATUS: {
    kind: "unavailable",
    message: "market data answered HTTP $status",
    context: ctx<{ status: number }>(),
  },
  MARKET_NOT_JSON: { kind: "unavailable", message: "market data answered something that is not JSON" },
  MARKET_BATCHES_FAILED: {
    kind: "unavailable",
    message: "$failed market data batches failed",
    context: ctx<{ failed: number }>(),
  },
  /** more mints asked of the market adapter in one call than its batch (its caller batches) */
  MARKET_BATCH_TOO_LARGE: {
    kind: "internal",
    message: "at most $batchSize mints a call",
    context: ctx<{ batchSize: number }>(),
  },
  // admin
  ADMIN_ACTOR_REQUIRED: { kind: "input", message: "An admin action needs an actor." },
  THRESHOLD_LAMPORTS_INVALID: { kind: "input", message: "The amount must be a whole number of lamports." },
  THRESHOLD_BELOW_RENT: {
    kind: "input",
    message:
      "A threshold below $minimumLamports lamports (a new wallet's rent-exempt minimum) would make payouts fail.",
    context: ctx<{ minimumLamports: bigint }>(),
  },
  PAYOUT_ID_INVALID: { kind: "input", message: "The payout id must be a positive whole number." },
  PAYOUT_NOT_HELD: { kind: "input", message: "That payout is not waiting for approval." },
  WITHDRAWALS_NOT_CONFIGURED: { kind: "input", message: "Withdrawals are not configured on this deployment." },
  MONEY_NOT_HALTED: { kind: "conflict", message: "Money is not halted: there is nothing to resume." },
  MONEY_HELD_RECONCILING: {
    kind: "conflict",
    message:
      "Money is held while the books are reconciled with the chain; only the reconciliation lets it go, not a resume.",
  },
  /** the waiting rows and the ones the resume listed, as counts per kind */
  RESUME_WAITING_CHANGED: {
    kind: "conflict",
    message:
      "What is waiting to leave is not what was listed (expected $expected, given $given); look again and confirm what waits now.",
    context: ctx<{ expected: string; given: string }>(),
  },
  RESUME_IDS_INVALID: {
    kind: "input",
    message: "payoutIds, withdrawalIds and burnOrderIds must be lists of positive whole numbers.",
  },
  SET_ASIDE_JOB_INVALID: { kind: "input", message: 'The job must be "sweep" or "burns".' },
  SET_ASIDE_NOT_FOUND: { kind: "missing", message: "That token is not set aside." },
  SET_ASIDE_CHANGED: {
    kind: "conflict",
    message: "The token's state changed while it was re-checked; look at it again.",
  },
  SET_ASIDE_NO_CHAIN: {
    kind: "unavailable",
    message: "No chain is configured here, so the stop cannot be re-checked.",
  },
  SET_ASIDE_CHAIN_UNREACHABLE: {
    kind: "upstream",
    message: "The chain could not be reached to re-check the stop; try again.",
  },
  SET_ASIDE_SWEEP_UNREADABLE: {
    kind: "conflict",
    message: "The stopped sweep's transaction cannot be read back from the chain; try again later.",
  },
  SET_ASIDE_SWEEP_DISAGREES: {
    kind: "conflict",
    message: "The sweep still disagrees with the chain ($reason); the token stays stopped.",
    context: ctx<{ reason: string }>(),
  },
  ADMIN_KEY_REQUIRED: { kind: "input", message: "Enter the admin key." },
  ADMIN_KEY_WRONG: { kind: "auth", message: "That is not the admin key." },
  ADMIN_KEY_GUESSES_LIMITED: {
    kind: "limited",
    message: "Too many wrong keys; retry after the time in retry-after.",
    context: ctx<{ retryAfterSeconds: number }>(),
  },
  ADMIN_SEARCH_TOO_LONG: {
    kind: "input",
    message: "The search is longer than $maximum characters.",
    context: ctx<{ maximum: number }>(),
  },
  // webhooks: a destination refused (WEBHOOK_DESTINATION_CODES), the rest of the input
  WEBHOOK_URL_REQUIRED: { kind: "input", message: "url is required: an http or https URL." },
  WEBHOOK_URL_TOO_LONG: {
    kind: "input",
    message: "url must be at most $maximum characters.",
    context: ctx<{ maximum: number }>(),
  },
  WEBHOOK_URL_INVALID: { kind: "input", message: "url is not a valid URL." },
  WEBHOOK_URL_SCHEME: { kind: "input", message: "url must be http or https." },
  WEBHOOK_URL_CREDENTIALS: { kind: "input", message: "url must not carry credentials." },
  WEBHOOK_URL_PRIVATE: { kind: "input", message: "url points at a private or loopback address." },
  WEBHOOK_URL_UNRESOLVED: { kind: "input", message: "url's host name could not be resolved." },
  /** the event types, comma-separated */
  WEBHOOK_TYPES_EMPTY: {
    kind: "input",
    message: "types must be a non-empty list of $types, or left out for all.",
    context: ctx<{ types: string }>(),
  },
  WEBHOOK_TYPES_UNKNOWN: { kind: "input", message: "types may only name $types.", context: ctx<{ types: string }>() },
  WEBHOOK_LIMIT_REACHED: {
    kind: "input",
    message: "At most $maximum webhooks; delete one first.",
    context: ctx<{ maximum: number }>(),
  },
  WEBHOOK_NOT_FOUND: { kind: "missing", message: "No such webhook." },
  WEBHOOK_SINCE_REQUIRED: { kind: "input", message: "since is required: an ISO 8601 time." },
  /** the webhook signing key file holds too short a key */
  WEBHOOK_KEY_TOO_SHORT: { kind: "internal", message: "the webhook key must be at least 32 characters" },
  // workers: a worker thread that did not answer in time, or ended first
  WORKER_UNANSWERED: {
    kind: "internal",
    message: "the $thread thread did not answer $request within $timeoutMs ms",
    context: ctx<{ thread: string; request: string; timeoutMs: number }>(),
  },
  /** `request` is the notice waited for */
  WORKER_SILENT: {
    kind: "internal",
    message: "the $thread thread did not send $request within $timeoutMs ms",
    context: ctx<{ thread: string; request: string; timeoutMs: number }>(),
  },
  /** `reason`: why the thread ended */
  WORKER_ENDED: {
    kind: "internal",
    message: "the $thread thread ended before answering $request ($reason)",
    context: ctx<{ thread: string; request: string; reason: string }>(),
  },
  /** a request no handler of the receiving side answers (a wiring fault) */
  WORKER_HANDLER_MISSING: { kind: "internal", message: "no handler for $request", context: ctx<{ request: string }>() },
  /** a worker module loaded outside a worker thread */
  WORKER_PORT_MISSING: { kind: "internal", message: "this module runs only as a worker thread" },
} as const satisfies Record<string, ErrorRow>;

export type ErrorCode = keyof typeof ERRORS;

type RowOf<C extends ErrorCode> = (typeof ERRORS)[C];

/** The codes whose row has a template, and those of them whose template names a context. */
export type TemplatedCode = { [C in ErrorCode]: RowOf<C>["message"] extends string ? C : never }[ErrorCode];
type TypedCode = { [C in ErrorCode]: RowOf<C> extends { readonly context: Context<object> } ? C : never }[ErrorCode];

/** The kind of each code (a view of ERRORS). */
export const ERROR_CODES = Object.fromEntries(Object.entries(ERRORS).map(([code, row]) => [code, row.kind])) as {
  readonly [C in ErrorCode]: RowOf<C>["kind"];
};

/** The template of each code that has one (a view of ERRORS). */
export const ERROR_MESSAGES = Object.fromEntries(
  Object.entries(ERRORS).flatMap(([code, row]) => (row.message === null ? [] : [[code, row.message]])),
) as { readonly [C in TemplatedCode]: RowOf<C>["message"] };

/** What a failure carries besides its sentence; `retryAfterSeconds` becomes `retry-after` at the edge. */
export type ErrorContext = { readonly retryAfterSeconds?: number } & Readonly<Record<string, unknown>>;

/** The context an error of `C` carries: its typed shape when its row gives one. */
export type ContextOf<C extends ErrorCode> = C extends TypedCode
  ? RowOf<C> extends { readonly context: Context<infer T> }
    ? Readonly<T> & ErrorContext
    : never
  : ErrorContext;

interface AppErrorOptions {
  cause?: unknown;
  /**
   * Headers the answer to this failure carries beyond the edge's own, for a route whose every
   * answer has them (src/http/errors.ts `withResponseHeaders`).
   */
  responseHeaders?: Readonly<Record<string, string>>;
}

/**
 * What follows the code: a templated code takes its context (required when the template names
 * some), any other code its own sentence first. A code known only as `ErrorCode` (rebuilt from
 * another error, or from a worker's answer) may pass the sentence it already has.
 */
export type AppErrorArgs<C extends ErrorCode> = C extends TemplatedCode
  ? C extends TypedCode
    ? [context: ContextOf<C>, options?: AppErrorOptions]
    : [context?: ErrorContext, options?: AppErrorOptions]
  : [message: string, context?: ContextOf<C>, options?: AppErrorOptions];

const VARIABLE = /\$([A-Za-z_][A-Za-z0-9_]*)/g;

/** The sentence of `code`: its template with every `$name` the context holds filled in. */
export function messageOf(code: TemplatedCode, context: ErrorContext = {}): string {
  return ERRORS[code].message.replace(VARIABLE, (whole, name: string) =>
    Object.hasOwn(context, name) ? String(context[name]) : whole,
  );
}

function isTemplated(code: ErrorCode): code is TemplatedCode {
  return ERRORS[code].message !== null;
}

export class AppError<C extends ErrorCode = ErrorCode> extends Error {
  override readonly name = "AppError";
  readonly code: C;
  readonly context: ContextOf<C>;
  readonly responseHeaders?: Readonly<Record<string, string>>;

  constructor(code: C, ...args: AppErrorArgs<C>) {
    const [first, second, third] = args as [string | ErrorContext | undefined, unknown, unknown];
    const own = typeof first === "string";
    const context = ((own ? second : first) ?? {}) as ContextOf<C>;
    const options = ((own ? third : second) ?? {}) as AppErrorOptions;
    const message = own ? first : isTemplated(code) ? messageOf(code, context) : code;
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.context = context;
    if (options.responseHeaders !== undefined) this.responseHeaders = options.responseHeaders;
  }

  get kind(): ErrorKind {
    return ERRORS[this.code].kind;
  }
}

/** Narrows to an AppError, of one of `codes` when given (kit's `isSolanaError(e, code)`). */
export function isAppError<C extends ErrorCode>(error: unknown, ...codes: C[]): error is AppError<C> {
  if (!(error instanceof AppError)) return false;
  return codes.length === 0 || (codes as ErrorCode[]).includes(error.code);
}
