/**
 * The one error model (after `@solana/kit`'s `SolanaError`): one class, a code from one table, a
 * context object and the `cause` it wraps. Services throw `AppError`; only the HTTP edge
 * (`src/http/errors.ts`) turns a code into a status, so nothing below the routes knows about HTTP.
 *
 * A code with a template in ERROR_MESSAGES is thrown with its context alone (`new AppError(code,
 * context)`): the sentence is the template with each `$name` filled from the context, whose shape
 * ErrorContextOfCode types, so one code always says one thing. A code without a template (the
 * assertion codes such as LEDGER_INVARIANT whose text is the assertion that failed) is thrown with
 * its own sentence as the second argument.
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
  /** a query parameter a route takes once, given more than once */
  QUERY_REPEATED: "input",
  MINT_NOT_LAUNCHED: "missing",
  HANDLE_NOT_NAMED: "missing",
  SERVICE_STOPPING: "unavailable",
  TREASURY_UNREADABLE: "unavailable",
  REASON_REQUIRED: "input",
  REASON_TOO_LONG: "input",
  REASON_NOT_STRING: "input",
  BODY_NOT_OBJECT: "input",
  BODY_NOT_JSON_OBJECT: "input",
  BODY_UNREADABLE: "input",
  BODY_TOO_LARGE: "tooLarge",
  /** a state-changing request from another site's page */
  CROSS_SITE_REFUSED: "forbidden",
  LIMIT_INVALID: "input",
  MINT_NOT_BASE58: "input",
  MINT_NOT_STRING: "input",
  MINT_REQUIRED: "input",
  LAMPORTS_NOT_DECIMAL: "input",
  LAMPORTS_REQUIRED: "input",
  /** a lamport setting outside 0..i64 reached the settings store (its callers check first) */
  SETTING_LAMPORTS_INVALID: "internal",
  // a value a column cannot hold exactly (db/columns.ts)
  DB_LAMPORTS_NOT_BIGINT: "internal",
  DB_INTEGER_INEXACT: "internal",
  DB_INTEGER_UNSAFE: "internal",
  /** a caller's refusal with its own sentence (the worker channel's tests throw it across a thread) */
  INVALID_INPUT: "input",
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
  /** the object store failed an action; the text names the action and the store's code only */
  BACKUP_STORE_FAILED: "internal",
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
  // what a launch program adapter cannot build or decode (src/chain/pump, src/chain/local)
  LAUNCH_PROGRAM_ACCOUNT_MISSING: "internal",
  LAUNCH_PROGRAM_AMOUNT_NOT_POSITIVE: "internal",
  LAUNCH_PROGRAM_FIRST_BUY_NEGATIVE: "internal",
  LAUNCH_PROGRAM_SLIPPAGE_INVALID: "internal",
  LAUNCH_PROGRAM_BUY_TOO_SMALL: "internal",
  LAUNCH_PROGRAM_POOL_MISSING: "internal",
  LAUNCH_PROGRAM_AMM_BUY_MISSING: "internal",
  LAUNCH_PROGRAM_MINT_NOT_TOKEN: "internal",
  LAUNCH_PROGRAM_MINT_TOO_SHORT: "internal",
  LAUNCH_PROGRAM_NO_TOKEN_BALANCES: "internal",
  LAUNCH_PROGRAM_METADATA_TOO_LONG: "internal",
  CHAIN_KEY_INVALID: "internal",
  // account data that is not the account it should be (src/chain/pump/layout.ts)
  CHAIN_ACCOUNT_MALFORMED: "internal",
  CHAIN_ACCOUNT_TOO_SHORT: "internal",
  CHAIN_DATA_TRUNCATED: "internal",
  CHAIN_STRING_TOO_LONG: "internal",
  CHAIN_SHAREHOLDERS_TOO_MANY: "internal",
  /** a memo outside the memo program's size (rpc.ts refuses an oversize command key as CHAIN_REJECTED) */
  MEMO_SIZE_INVALID: "internal",
  ED25519_SEED_INVALID: "internal",
  /** the indexer's stream endpoint did not answer in time */
  INDEXER_UNANSWERED: "internal",
  /** the indexer's stream went quiet for longer than it may */
  INDEXER_STREAM_SILENT: "internal",
  // rpc.ts's own markers inside web3.js's fetch, turned into the codes above before they leave it
  CHAIN_HTTP_STATUS: "internal",
  CHAIN_REQUEST_TIMEOUT: "internal",
  // ledger
  LEDGER_INVARIANT: "internal",
  /** a sweep split given inputs outside its contract (src/ledger/split.ts; its callers check first) */
  SPLIT_TOTAL_NEGATIVE: "internal",
  SPLIT_PLATFORM_BPS_INVALID: "internal",
  SPLIT_NO_RECIPIENTS: "internal",
  SPLIT_RECIPIENT_BPS_INVALID: "internal",
  SPLIT_BPS_SUM_INVALID: "internal",
  /** a memo of the service's own form that does not decode (chain/command-key.ts) */
  COMMAND_KEY_MALFORMED: "internal",
  // a command key the service itself would write wrong (its callers build them from rows)
  COMMAND_KEY_ID_INVALID: "internal",
  COMMAND_KEY_USER_EMPTY: "internal",
  COMMAND_KEY_BURN_PART_INVALID: "internal",
  // A treasury transaction's command key disagrees with the rows the database holds (src/reconcile,
  // src/burns/adopt.ts): the transaction is recorded as unknown (RECONCILE_MISMATCH_CODES).
  RECONCILE_PAYOUT_DIFFERS: "internal",
  RECONCILE_REPLACEMENT_DIFFERS: "internal",
  RECONCILE_REPLACED_STATUS: "internal",
  RECONCILE_WITHDRAWAL_DIFFERS: "internal",
  RECONCILE_BURN_BUY_DIFFERS: "internal",
  RECONCILE_BURN_NOT_AWAITED: "internal",
  // the treasury's history cannot be read far enough yet; the reconciliation tries again
  RECONCILE_HISTORY_SHORT: "unavailable",
  RECONCILE_HISTORY_GAP: "unavailable",
  RECONCILE_HISTORY_UNREACHED: "unavailable",
  RECONCILE_HISTORY_TOO_LONG: "unavailable",
  // jobs, ledger feed, proof of liabilities
  JOB_RUNNING: "conflict",
  JOB_NOT_AVAILABLE: "unavailable",
  CRON_RUN_NOT_FOUND: "missing",
  FEED_BEFORE_INVALID: "input",
  LIABILITY_AT_INVALID: "input",
  LIABILITY_SNAPSHOT_NOT_FOUND: "missing",
  LIABILITY_LEAF_NOT_FOUND: "missing",
  // custody
  /** a list's page size outside its range (its routes check first) */
  LIST_LIMIT_INVALID: "internal",
  /** a balance snapshot given a negative balance (src/history) */
  SNAPSHOT_BALANCE_NEGATIVE: "internal",
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
  // a halt the service put itself in (src/custody/state.ts), one code per incident kind
  PAYOUTS_HELD_SHORTFALL: "unavailable",
  PAYOUTS_HELD_AUDIT: "unavailable",
  PAYOUTS_HELD_OUTFLOW_HOUR: "unavailable",
  PAYOUTS_HELD_OUTFLOW_DAY: "unavailable",
  PAYOUTS_HELD_RESERVE_LOW: "unavailable",
  PAYOUTS_HELD_RECONCILING: "unavailable",
  PAYOUTS_HELD_UNKNOWN_TRANSACTION: "unavailable",
  ROUTING_PAUSED: "unavailable",
  CLAIM_WALLET_REQUIRED: "input",
  CLAIM_AMOUNT_NOT_DECIMAL: "input",
  CLAIM_AMOUNT_ZERO: "input",
  CLAIM_NO_BALANCE: "input",
  CLAIM_ABOVE_BALANCE: "input",
  CLAIM_BELOW_MINIMUM: "input",
  CLAIM_NOT_AVAILABLE: "input",
  ROUTING_INVALID: "input",
  DECLINED_NOT_BOOLEAN: "input",
  DECLINE_NEEDS_BURN: "input",
  AUTOPAY_NEEDS_WALLET: "input",
  ACCOUNT_CURSOR_INVALID: "input",
  WALLET_NOT_ADDRESS: "input",
  WALLET_NOT_WALLET: "input",
  /** the chain could not be asked about a payout wallet */
  WALLET_UNCHECKABLE: "unavailable",
  HANDLE_HELD_ELSEWHERE: "conflict",
  HANDLE_OWNER_UNKNOWN: "unavailable",
  IDP_UNAVAILABLE: "upstream",
  IDP_GRANT_REFUSED: "input",
  IDP_NOT_SET_UP: "unavailable",
  SESSION_REQUIRED: "auth",
  RETURN_TO_INVALID: "input",
  SIGN_IN_EXPIRED: "input",
  SIGN_IN_UNVERIFIED: "input",
  /** dev login answers as an unknown route where it is off */
  DEV_LOGIN_OFF: "missing",
  // launches, tokens, market
  LAUNCHES_DISABLED: "unavailable",
  LAUNCHES_PAUSED: "unavailable",
  LAUNCH_TRANSACTION_REJECTED: "input",
  LAUNCH_MINT_USED: "conflict",
  LAUNCH_INTENT_NOT_FOUND: "missing",
  LAUNCH_WINDOW_EXPIRED: "gone",
  LAUNCH_WINDOW_EXPIRED_UNSENT: "gone",
  LAUNCH_SIGNATURE_MISMATCH: "auth",
  LAUNCH_METADATA_UNSTORABLE: "unavailable",
  LAUNCH_CHAIN_UNREACHABLE: "upstream",
  LAUNCH_PREPARE_UNREACHABLE: "upstream",
  LAUNCH_PREPARE_FAILED: "unavailable",
  LAUNCH_UPLOAD_FAILED: "upstream",
  LAUNCH_UPLOAD_ALLOWANCE_USED: "limited",
  LAUNCH_IMAGE_UNSUPPORTED: "unsupported",
  LAUNCH_IMAGE_UNREADABLE: "unsupported",
  LAUNCH_IMAGE_TOO_LARGE: "tooLarge",
  LAUNCH_IMAGE_TOO_MANY_PIXELS: "tooLarge",
  LAUNCH_HANDLE_UNKNOWN: "input",
  LAUNCH_HANDLES_UNREADABLE: "unavailable",
  LAUNCH_HANDLES_UNAVAILABLE: "unavailable",
  LAUNCH_HANDLES_UNREACHABLE: "unavailable",
  LAUNCH_OBJECT_NOT_FOUND: "missing",
  LAUNCH_OBJECT_ADDRESS_INVALID: "input",
  LAUNCH_PARTS_MISSING: "input",
  LAUNCH_THUMBNAIL_NOT_FILE: "input",
  LAUNCH_WALLET_INVALID: "input",
  LAUNCH_MINT_INVALID: "input",
  LAUNCH_MINT_IS_WALLET: "input",
  LAUNCH_DIGEST_INVALID: "input",
  LAUNCH_IMAGE_NOT_NAMED: "input",
  LAUNCH_SIGNATURE_INVALID: "input",
  LAUNCH_PAST_METADATA: "conflict",
  LAUNCH_UPLOAD_FIRST: "conflict",
  LAUNCH_CONFIRMED_ELSEWHERE: "conflict",
  // the draft (src/launches/draft.ts)
  LAUNCH_FIELD_LENGTH: "input",
  LAUNCH_FIELD_CONTROL: "input",
  LAUNCH_LINK_NOT_URL: "input",
  LAUNCH_LINK_NOT_HTTPS: "input",
  LAUNCH_LINK_CREDENTIALS: "input",
  LAUNCH_SYMBOL_SPACES: "input",
  LAUNCH_RECIPIENT_COUNT: "input",
  LAUNCH_RECIPIENT_HANDLE_INVALID: "input",
  LAUNCH_RECIPIENT_TWICE: "input",
  LAUNCH_RECIPIENT_BPS_INVALID: "input",
  LAUNCH_BPS_SUM: "input",
  LAUNCH_FIRST_BUY_TOO_LARGE: "input",
  /** a launch confirmed on chain whose token row is not there after it was written */
  LAUNCH_RECORD_MISSING: "internal",
  /** a launch of the job's run failed with something that is not an Error */
  LAUNCHES_JOB_FAILED: "internal",
  // a launch record given inputs outside its contract (src/tokens/launch-record.ts; the draft checks first)
  LAUNCH_RECORD_NO_RECIPIENTS: "internal",
  LAUNCH_RECORD_BPS_SUM: "internal",
  LAUNCH_RECORD_HANDLE_INVALID: "internal",
  LAUNCH_RECORD_BPS_INVALID: "internal",
  LAUNCH_RECORD_HANDLE_TWICE: "internal",
  // the JSON-RPC proxy (src/launches/rpc-proxy.ts, rpc-guard.ts)
  RPC_BATCH_REFUSED: "input",
  RPC_BODY_NOT_OBJECT: "input",
  RPC_NOT_2_0: "input",
  RPC_ID_INVALID: "input",
  RPC_PARAMS_NOT_ARRAY: "input",
  RPC_TRANSACTION_MISSING: "input",
  RPC_TRANSACTION_UNDECODABLE: "input",
  RPC_METHOD_UNAVAILABLE: "input",
  RPC_NOT_LAUNCH: "input",
  RPC_NOT_OUR_LAUNCH: "input",
  RPC_PROGRAM_REFUSED: "input",
  RPC_OPTIONS_NOT_OBJECT: "input",
  RPC_OPTION_UNAVAILABLE: "input",
  RPC_OPTION_INVALID: "input",
  RPC_PARAMS_COUNT: "input",
  RPC_PARAM_NOT_ADDRESS: "input",
  RPC_SIGNATURES_INVALID: "input",
  RPC_AIRDROP_INVALID: "input",
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
  /** more mints asked of the market adapter in one call than its batch (its caller batches) */
  MARKET_BATCH_TOO_LARGE: "internal",
  // admin
  ADMIN_ACTOR_REQUIRED: "input",
  THRESHOLD_LAMPORTS_INVALID: "input",
  THRESHOLD_BELOW_RENT: "input",
  PAYOUT_ID_INVALID: "input",
  PAYOUT_NOT_HELD: "input",
  WITHDRAWALS_NOT_CONFIGURED: "input",
  MONEY_NOT_HALTED: "conflict",
  MONEY_HELD_RECONCILING: "conflict",
  RESUME_WAITING_CHANGED: "conflict",
  RESUME_IDS_INVALID: "input",
  SET_ASIDE_JOB_INVALID: "input",
  SET_ASIDE_NOT_FOUND: "missing",
  SET_ASIDE_CHANGED: "conflict",
  SET_ASIDE_NO_CHAIN: "unavailable",
  SET_ASIDE_CHAIN_UNREACHABLE: "upstream",
  SET_ASIDE_SWEEP_UNREADABLE: "conflict",
  SET_ASIDE_SWEEP_DISAGREES: "conflict",
  ADMIN_KEY_REQUIRED: "input",
  ADMIN_KEY_WRONG: "auth",
  ADMIN_KEY_GUESSES_LIMITED: "limited",
  ADMIN_SEARCH_TOO_LONG: "input",
  // webhooks: a destination refused (WEBHOOK_DESTINATION_CODES), the rest of the input
  WEBHOOK_URL_REQUIRED: "input",
  WEBHOOK_URL_TOO_LONG: "input",
  WEBHOOK_URL_INVALID: "input",
  WEBHOOK_URL_SCHEME: "input",
  WEBHOOK_URL_CREDENTIALS: "input",
  WEBHOOK_URL_PRIVATE: "input",
  WEBHOOK_URL_UNRESOLVED: "input",
  WEBHOOK_TYPES_EMPTY: "input",
  WEBHOOK_TYPES_UNKNOWN: "input",
  WEBHOOK_LIMIT_REACHED: "input",
  WEBHOOK_NOT_FOUND: "missing",
  WEBHOOK_SINCE_REQUIRED: "input",
  /** the webhook signing key file holds too short a key */
  WEBHOOK_KEY_TOO_SHORT: "internal",
  // workers: a worker thread that did not answer in time, or ended first
  WORKER_UNANSWERED: "internal",
  WORKER_SILENT: "internal",
  WORKER_ENDED: "internal",
  /** a request no handler of the receiving side answers (a wiring fault) */
  WORKER_HANDLER_MISSING: "internal",
  /** a worker module loaded outside a worker thread */
  WORKER_PORT_MISSING: "internal",
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
  QUERY_REPEATED: "The query parameter '$name' is given more than once.",
  MINT_NOT_LAUNCHED: "No token with that mint was launched here.",
  HANDLE_NOT_NAMED: "No token launched here names this handle yet.",
  SERVICE_STOPPING: "The service is shutting down.",
  TREASURY_UNREADABLE: "The treasury balance cannot be read right now; try again later.",
  REASON_REQUIRED: "A reason is required.",
  REASON_TOO_LONG: "The reason is longer than $maximum characters.",
  REASON_NOT_STRING: "The reason must be a string.",
  BODY_NOT_OBJECT: "The body must be a JSON object.",
  BODY_NOT_JSON_OBJECT: "Send the request body as a JSON object.",
  BODY_UNREADABLE: "The request body could not be read; send a JSON object.",
  BODY_TOO_LARGE: "The request body is too large.",
  CROSS_SITE_REFUSED: "Requests from another site are refused.",
  LIMIT_INVALID: "limit must be a whole number from 1 to $maximum.",
  MINT_NOT_BASE58: "The mint must be a base58 address.",
  MINT_NOT_STRING: "The mint must be a string.",
  MINT_REQUIRED: "A mint is required.",
  LAMPORTS_NOT_DECIMAL: "lamports must be a decimal string of whole lamports.",
  LAMPORTS_REQUIRED: "lamports is required.",
  SETTING_LAMPORTS_INVALID: "lamports out of range",
  DB_LAMPORTS_NOT_BIGINT: "lamport column needs a bigint",
  DB_INTEGER_INEXACT: "integer outside the exact number range",
  DB_INTEGER_UNSAFE: "integer column needs a safe integer",
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
  BACKUP_STORE_FAILED: "$action failed ($storeCode)",
  // chain: `$method` is the JSON-RPC method (or the step) asked, `$detail` what went wrong, the
  // node's own text scrubbed of URLs and keys where it says more than the code
  CHAIN_UNAVAILABLE: "$method: $detail",
  CHAIN_TIMEOUT: "$method: no answer within $timeoutMs ms",
  CHAIN_RATE_LIMITED: "$method: rate limited (HTTP 429)",
  CHAIN_PROVIDER_FAILED: "$method: $detail",
  CHAIN_BAD_RESPONSE: "$method: $detail",
  CHAIN_REJECTED: "$method: $detail",
  CHAIN_HTTP_STATUS: "HTTP $status",
  CHAIN_REQUEST_TIMEOUT: "request timed out",
  LAUNCH_PROGRAM_ACCOUNT_MISSING: "$account not found",
  LAUNCH_PROGRAM_AMOUNT_NOT_POSITIVE: "$amount must be positive",
  LAUNCH_PROGRAM_FIRST_BUY_NEGATIVE: "first buy must not be negative",
  LAUNCH_PROGRAM_SLIPPAGE_INVALID: "slippageBps $slippageBps is out of range",
  LAUNCH_PROGRAM_BUY_TOO_SMALL: "$buy too small to deliver any token",
  LAUNCH_PROGRAM_POOL_MISSING: "token is complete but its pool does not exist yet",
  LAUNCH_PROGRAM_AMM_BUY_MISSING: "the AMM buy instruction is missing",
  LAUNCH_PROGRAM_MINT_NOT_TOKEN: "mint is not owned by a token program",
  LAUNCH_PROGRAM_MINT_TOO_SHORT: "mint account too short",
  LAUNCH_PROGRAM_NO_TOKEN_BALANCES: "transaction carries no token balances",
  LAUNCH_PROGRAM_METADATA_TOO_LONG: "name ≤ 32, symbol ≤ 13 and uri ≤ 200 characters",
  CHAIN_KEY_INVALID: "$setting $reason",
  CHAIN_ACCOUNT_MALFORMED: "not a $account account",
  CHAIN_ACCOUNT_TOO_SHORT: "$account too short: $bytes bytes",
  CHAIN_DATA_TRUNCATED: "account data ends before the field read",
  CHAIN_STRING_TOO_LONG: "string too long: $bytes bytes, at most $maxBytes",
  CHAIN_SHAREHOLDERS_TOO_MANY: "too many shareholders: $count, at most $maximum",
  MEMO_SIZE_INVALID: "a memo is 1 to $maxBytes bytes",
  ED25519_SEED_INVALID: "an Ed25519 seed is 32 bytes",
  COMMAND_KEY_MALFORMED: "a memo starts as a command key but does not decode as one",
  COMMAND_KEY_ID_INVALID: "a command key id is a non-negative integer",
  COMMAND_KEY_USER_EMPTY: "a command key user id is not empty",
  COMMAND_KEY_BURN_PART_INVALID: "a burn order part is positive",
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
  // custody, history
  LIST_LIMIT_INVALID: "limit out of range",
  SNAPSHOT_BALANCE_NEGATIVE: "a balance cannot be negative",
  WITHDRAWAL_AMOUNT_INVALID: "lamports must be a positive whole number of lamports.",
  WITHDRAWAL_BELOW_RENT:
    "A withdrawal must be at least $minimumLamports lamports (a new wallet's rent-exempt minimum).",
  WITHDRAWAL_OVER_LIMIT:
    "At most $mostLamports lamports can be withdrawn now: the platform's balance, and the treasury's surplus over what is owed less the reserve for fees and rent.",
  // ledger, reconcile
  SPLIT_TOTAL_NEGATIVE: "sweep total must not be negative",
  SPLIT_PLATFORM_BPS_INVALID: "platformBps must be an integer from 0 to 10000",
  SPLIT_NO_RECIPIENTS: "a sweep needs at least one recipient",
  SPLIT_RECIPIENT_BPS_INVALID: "recipient bps must be an integer from 1 to 10000",
  SPLIT_BPS_SUM_INVALID: "recipient bps must sum to 10000",
  RECONCILE_PAYOUT_DIFFERS: "payout $payoutId of the database differs from the one the transaction paid",
  RECONCILE_REPLACEMENT_DIFFERS: "payout $payoutId does not owe what payout $replacedId it replaces owed",
  RECONCILE_REPLACED_STATUS: "payout $payoutId, replaced on chain, is $status in the database",
  RECONCILE_WITHDRAWAL_DIFFERS: "withdrawal $withdrawalId of the database differs from the one the transaction made",
  RECONCILE_BURN_BUY_DIFFERS: "burn buy $buyId of the database is another transaction",
  RECONCILE_BURN_NOT_AWAITED: "burn buy $buyId is $status, not waiting for its burn",
  RECONCILE_HISTORY_SHORT: "the treasury's history as listed does not reach its present balance yet",
  RECONCILE_HISTORY_GAP: "the treasury's history as listed is not whole yet: $why",
  RECONCILE_HISTORY_UNREACHED:
    "the node's history of the treasury does not reach back to the last transaction the books know",
  RECONCILE_HISTORY_TOO_LONG:
    "the treasury's history since the last known transaction is longer than $scannedMax signatures",
  // accounts, payouts
  CLAIMS_PAUSED: "Claims are paused for now; your balance is untouched. Try again later.",
  PAYOUTS_HELD_SHORTFALL:
    "Payouts are on hold while the operator checks the treasury: it held less than the books say is owed. Your balance is untouched.",
  PAYOUTS_HELD_AUDIT: "Payouts are on hold while the operator checks the books. Your balance is untouched.",
  PAYOUTS_HELD_OUTFLOW_HOUR:
    "Payouts are on hold: more than the hourly limit would have left the treasury, and the operator is checking. Your balance is untouched.",
  PAYOUTS_HELD_OUTFLOW_DAY:
    "Payouts are on hold: more than the daily limit would have left the treasury, and the operator is checking. Your balance is untouched.",
  PAYOUTS_HELD_RESERVE_LOW: "Payouts are on hold. Your balance is untouched.",
  PAYOUTS_HELD_RECONCILING:
    "Payouts are on hold for a few minutes while the service checks its books against the chain. Your balance is untouched.",
  PAYOUTS_HELD_UNKNOWN_TRANSACTION:
    "Payouts are on hold while the operator checks a treasury transaction the service did not make. Your balance is untouched.",
  ROUTING_PAUSED: "Payouts are paused for now; routing cannot change. Try again later.",
  PAYOUT_IN_FLIGHT: "A payout is already queued or in flight; wait until it is sent and confirmed.",
  INSUFFICIENT_BALANCE:
    "$lamports lamports cannot be paid: the balance is $balanceLamports lamports and the minimum $minimumLamports lamports",
  CLAIM_WALLET_REQUIRED: "Name the wallet to pay.",
  CLAIM_AMOUNT_NOT_DECIMAL: "The amount must be a whole number of lamports written as a decimal string.",
  CLAIM_AMOUNT_ZERO: "The amount must be more than zero.",
  CLAIM_NO_BALANCE: "There is no balance to claim.",
  CLAIM_ABOVE_BALANCE: "The amount is above the balance.",
  CLAIM_BELOW_MINIMUM: "The amount is below the minimum claim of $minimumLamports lamports.",
  CLAIM_NOT_AVAILABLE: "The amount is not available to claim.",
  ROUTING_INVALID: "The routing must be hold, autopay or burn.",
  DECLINED_NOT_BOOLEAN: "declined must be true or false.",
  DECLINE_NEEDS_BURN: "Declining publicly needs the burn routing.",
  AUTOPAY_NEEDS_WALLET: "Autopay needs a wallet to pay.",
  ACCOUNT_CURSOR_INVALID: "The cursor is not one this service issued.",
  WALLET_NOT_ADDRESS: "The wallet is not a valid address.",
  WALLET_NOT_WALLET: "That address is not a wallet; use the address of a wallet you hold.",
  WALLET_UNCHECKABLE: "The wallet could not be checked on chain just now; try again shortly.",
  // auth
  SESSION_REQUIRED: "Sign in first; there is no session or it has expired.",
  IDP_UNAVAILABLE: "The identity provider did not answer properly; try again later.",
  IDP_GRANT_REFUSED: "The identity provider refused the sign-in; start again.",
  IDP_NOT_SET_UP: "Sign-in with the identity provider is not set up on this deployment.",
  RETURN_TO_INVALID: "returnTo must be a path on this site.",
  SIGN_IN_EXPIRED: "The sign-in took too long; start again.",
  SIGN_IN_UNVERIFIED: "The sign-in could not be verified; start again from this site.",
  DEV_LOGIN_OFF: "No such route.",
  // launches
  LAUNCHES_DISABLED: "Launches are not available on this deployment.",
  LAUNCHES_PAUSED: "Launches are paused; try again later.",
  LAUNCH_TRANSACTION_REJECTED: "That transaction does not create this launch: $reason.",
  LAUNCH_MINT_USED: "That token address is already used; generate a new one.",
  LAUNCH_INTENT_NOT_FOUND: "No such launch intent; prepare the launch again.",
  LAUNCH_WINDOW_EXPIRED: "The signing window has expired; prepare the launch again.",
  LAUNCH_WINDOW_EXPIRED_UNSENT:
    "The signing window has expired and the transaction was not found; prepare the launch again.",
  LAUNCH_SIGNATURE_MISMATCH: "The message signature does not match the wallet.",
  LAUNCH_METADATA_UNSTORABLE: "Launch metadata cannot be stored on this deployment.",
  LAUNCH_CHAIN_UNREACHABLE: "The chain could not be reached; try again.",
  LAUNCH_PREPARE_UNREACHABLE: "The chain could not be reached to prepare the transaction; try again.",
  LAUNCH_PREPARE_FAILED: "The create transaction could not be prepared; try again later.",
  LAUNCH_UPLOAD_FAILED: "The IPFS upload failed; try again in a moment.",
  LAUNCH_UPLOAD_ALLOWANCE_USED: "The upload allowance of your address for today is used up; try again tomorrow.",
  LAUNCH_IMAGE_UNSUPPORTED: "The image must be a PNG, JPEG, GIF or WebP file.",
  LAUNCH_IMAGE_UNREADABLE: "The image could not be read as a PNG, JPEG, GIF or WebP file.",
  LAUNCH_IMAGE_TOO_LARGE: "The image is too large; the limit is $maxBytes bytes.",
  LAUNCH_IMAGE_TOO_MANY_PIXELS: "The image has too many pixels; the limit is $maxPixels pixels.",
  LAUNCH_HANDLE_UNKNOWN: "The handle @$handle does not exist on X.",
  LAUNCH_HANDLES_UNREADABLE: "X answered with a user the service cannot read; try again.",
  LAUNCH_HANDLES_UNAVAILABLE: "X could not say who holds the named handles; try again.",
  LAUNCH_HANDLES_UNREACHABLE: "X could not be reached to check the named handles; try again.",
  LAUNCH_OBJECT_NOT_FOUND: "No such object.",
  LAUNCH_OBJECT_ADDRESS_INVALID: "Not an object address.",
  LAUNCH_PARTS_MISSING: "Send multipart parts intent, signature and image.",
  LAUNCH_THUMBNAIL_NOT_FILE: "The thumbnail part must be a file.",
  LAUNCH_WALLET_INVALID: "The wallet is not a wallet address.",
  LAUNCH_MINT_INVALID: "The mint is not a usable token address.",
  LAUNCH_MINT_IS_WALLET: "The mint and the wallet must differ.",
  LAUNCH_DIGEST_INVALID: "The digest must be the image's SHA-256 in hex.",
  LAUNCH_IMAGE_NOT_NAMED: "The image is not the one named when the launch was prepared.",
  LAUNCH_SIGNATURE_INVALID: "The signature is not a transaction signature.",
  LAUNCH_PAST_METADATA: "This launch is past the metadata step.",
  LAUNCH_UPLOAD_FIRST: "Upload the image and metadata before confirming.",
  LAUNCH_CONFIRMED_ELSEWHERE: "This launch was confirmed with another transaction.",
  LAUNCH_FIELD_LENGTH: "The $field must be $minimum to $maximum characters.",
  LAUNCH_FIELD_CONTROL: "The $field contains control characters.",
  LAUNCH_LINK_NOT_URL: "The $field link is not a URL.",
  LAUNCH_LINK_NOT_HTTPS: "The $field link must start with https://.",
  LAUNCH_LINK_CREDENTIALS: "The $field link must not carry a user name or password.",
  LAUNCH_SYMBOL_SPACES: "The symbol must not contain spaces.",
  LAUNCH_RECIPIENT_COUNT: "Name 1 to $maximum recipients.",
  LAUNCH_RECIPIENT_HANDLE_INVALID: "A recipient handle is not valid (1 to 15 letters, digits or underscores).",
  LAUNCH_RECIPIENT_TWICE: "A recipient is named twice.",
  LAUNCH_RECIPIENT_BPS_INVALID: "Each recipient's bps must be a whole number from 1 to 10000.",
  LAUNCH_BPS_SUM: "The recipients' bps must add up to 10000.",
  LAUNCH_FIRST_BUY_TOO_LARGE: "The first buy is above the largest allowed ($maximumLamports lamports).",
  LAUNCH_RECORD_MISSING: "confirmed launch has no token record",
  LAUNCHES_JOB_FAILED: "launches job failed",
  LAUNCH_RECORD_NO_RECIPIENTS: "a launch names at least one recipient",
  LAUNCH_RECORD_BPS_SUM: "recipient bps must sum to 10000",
  LAUNCH_RECORD_HANDLE_INVALID: "recipient handle is not valid",
  LAUNCH_RECORD_BPS_INVALID: "recipient bps must be a positive integer",
  LAUNCH_RECORD_HANDLE_TWICE: "a handle is named twice",
  RPC_BATCH_REFUSED: "Send one JSON-RPC request at a time.",
  RPC_BODY_NOT_OBJECT: "The body must be a JSON-RPC request object.",
  RPC_NOT_2_0: "The body must be a JSON-RPC 2.0 request.",
  RPC_ID_INVALID: "The JSON-RPC id must be a string or a number.",
  RPC_PARAMS_NOT_ARRAY: "The JSON-RPC params must be an array.",
  RPC_TRANSACTION_MISSING: "The transaction is missing or too large.",
  RPC_TRANSACTION_UNDECODABLE: "The transaction could not be decoded.",
  RPC_METHOD_UNAVAILABLE: "That JSON-RPC method is not available here.",
  RPC_NOT_LAUNCH: "Only launch transactions can be sent or simulated here.",
  RPC_NOT_OUR_LAUNCH:
    "Only the create and first buy of a launch prepared on this site, within its window, can be sent here.",
  RPC_PROGRAM_REFUSED:
    "Only the programs a launch uses (System, SPL Token, Token-2022, Associated Token, Compute Budget and the launch program) can be called here.",
  RPC_OPTIONS_NOT_OBJECT: "The JSON-RPC params are not valid: the options must be an object.",
  RPC_OPTION_UNAVAILABLE: "The JSON-RPC params are not valid: the option '$option' is not available here.",
  RPC_OPTION_INVALID: "The JSON-RPC params are not valid: the option '$option' is not valid.",
  RPC_PARAMS_COUNT: "The JSON-RPC params are not valid: expected $count params.",
  RPC_PARAM_NOT_ADDRESS: "The JSON-RPC params are not valid: not an address.",
  RPC_SIGNATURES_INVALID: "The JSON-RPC params are not valid: one to $maximum transaction signatures.",
  RPC_AIRDROP_INVALID: "The JSON-RPC params are not valid: not an airdrop amount.",
  RPC_PROVIDER_FAILED: "The chain provider failed; try again.",
  // admin
  ADMIN_ACTOR_REQUIRED: "An admin action needs an actor.",
  THRESHOLD_LAMPORTS_INVALID: "The amount must be a whole number of lamports.",
  THRESHOLD_BELOW_RENT:
    "A threshold below $minimumLamports lamports (a new wallet's rent-exempt minimum) would make payouts fail.",
  PLATFORM_TOKEN_INVALID: "The platform token must be a base58 mint address.",
  PAYOUT_ID_INVALID: "The payout id must be a positive whole number.",
  PAYOUT_NOT_HELD: "That payout is not waiting for approval.",
  WITHDRAWALS_NOT_CONFIGURED: "Withdrawals are not configured on this deployment.",
  MONEY_NOT_HALTED: "Money is not halted: there is nothing to resume.",
  MONEY_HELD_RECONCILING:
    "Money is held while the books are reconciled with the chain; only the reconciliation lets it go, not a resume.",
  RESUME_WAITING_CHANGED:
    "What is waiting to leave is not what was listed (expected $expected, given $given); look again and confirm what waits now.",
  RESUME_IDS_INVALID: "payoutIds, withdrawalIds and burnOrderIds must be lists of positive whole numbers.",
  SET_ASIDE_JOB_INVALID: 'The job must be "sweep" or "burns".',
  SET_ASIDE_NOT_FOUND: "That token is not set aside.",
  SET_ASIDE_CHANGED: "The token's state changed while it was re-checked; look at it again.",
  SET_ASIDE_NO_CHAIN: "No chain is configured here, so the stop cannot be re-checked.",
  SET_ASIDE_CHAIN_UNREACHABLE: "The chain could not be reached to re-check the stop; try again.",
  SET_ASIDE_SWEEP_UNREADABLE: "The stopped sweep's transaction cannot be read back from the chain; try again later.",
  SET_ASIDE_SWEEP_DISAGREES: "The sweep still disagrees with the chain ($reason); the token stays stopped.",
  ADMIN_KEY_REQUIRED: "Enter the admin key.",
  ADMIN_KEY_WRONG: "That is not the admin key.",
  ADMIN_KEY_GUESSES_LIMITED: "Too many wrong keys; retry after the time in retry-after.",
  ADMIN_SEARCH_TOO_LONG: "The search is longer than $maximum characters.",
  // webhooks
  WEBHOOK_URL_REQUIRED: "url is required: an http or https URL.",
  WEBHOOK_URL_TOO_LONG: "url must be at most $maximum characters.",
  WEBHOOK_URL_INVALID: "url is not a valid URL.",
  WEBHOOK_URL_SCHEME: "url must be http or https.",
  WEBHOOK_URL_CREDENTIALS: "url must not carry credentials.",
  WEBHOOK_URL_PRIVATE: "url points at a private or loopback address.",
  WEBHOOK_URL_UNRESOLVED: "url's host name could not be resolved.",
  WEBHOOK_TYPES_EMPTY: "types must be a non-empty list of $types, or left out for all.",
  WEBHOOK_TYPES_UNKNOWN: "types may only name $types.",
  WEBHOOK_LIMIT_REACHED: "At most $maximum webhooks; delete one first.",
  WEBHOOK_NOT_FOUND: "No such webhook.",
  WEBHOOK_SINCE_REQUIRED: "since is required: an ISO 8601 time.",
  WEBHOOK_KEY_TOO_SHORT: "the webhook key must be at least 32 characters",
  // workers
  WORKER_UNANSWERED: "the $thread thread did not answer $request within $timeoutMs ms",
  WORKER_SILENT: "the $thread thread did not send $request within $timeoutMs ms",
  WORKER_ENDED: "the $thread thread ended before answering $request ($reason)",
  WORKER_HANDLER_MISSING: "no handler for $request",
  WORKER_PORT_MISSING: "this module runs only as a worker thread",
  // tokens, market
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
  MARKET_BATCH_TOO_LARGE: "at most $batchSize mints a call",
} as const satisfies Partial<Record<ErrorCode, string>>;

/** The context of each code whose template names one (kit's `SolanaErrorContext`). */
export interface ErrorContextOfCode {
  CHAIN_UNAVAILABLE: { method: string; detail: string };
  CHAIN_TIMEOUT: { method: string; timeoutMs: number };
  CHAIN_RATE_LIMITED: { method: string };
  CHAIN_PROVIDER_FAILED: { method: string; detail: string };
  CHAIN_BAD_RESPONSE: { method: string; detail: string };
  /** `rpcCode`: the node's JSON-RPC error code, when it gave one */
  CHAIN_REJECTED: { method: string; detail: string; rpcCode: number | null };
  /** `retryAfterMs`: the provider's `retry-after`, when it sent one */
  CHAIN_HTTP_STATUS: { status: number; retryAfterMs: number | null };
  /** the account looked for: "mint", "bonding curve", ... */
  LAUNCH_PROGRAM_ACCOUNT_MISSING: { account: string };
  LAUNCH_PROGRAM_AMOUNT_NOT_POSITIVE: { amount: "buy amount" | "burn amount" };
  LAUNCH_PROGRAM_SLIPPAGE_INVALID: { slippageBps: number };
  LAUNCH_PROGRAM_BUY_TOO_SMALL: { buy: "buy" | "first buy" };
  /** the setting named, never its value; `reason` continues the sentence ("is empty") */
  CHAIN_KEY_INVALID: { setting: "master secret" | "treasury key" | "token index"; reason: string };
  CHAIN_ACCOUNT_MALFORMED: { account: string };
  CHAIN_ACCOUNT_TOO_SHORT: { account: string; bytes: number };
  CHAIN_STRING_TOO_LONG: { bytes: number; maxBytes: number };
  CHAIN_SHAREHOLDERS_TOO_MANY: { count: number; maximum: number };
  MEMO_SIZE_INVALID: { maxBytes: number };
  REASON_TOO_LONG: { maximum: number };
  WITHDRAWAL_BELOW_RENT: { minimumLamports: bigint };
  WITHDRAWAL_OVER_LIMIT: { mostLamports: bigint };
  QUERY_INTEGER_INVALID: { name: string; minimum: number; maximum: number };
  QUERY_REPEATED: { name: string };
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
  /** `storeCode`: the store's own error code when it is a plain identifier, else "error" */
  BACKUP_STORE_FAILED: { action: string; storeCode: string };
  MARKET_BATCHES_FAILED: { failed: number };
  LEASE_LOST: { job: string };
  /** why the sign-in found the handle held elsewhere, for the log */
  HANDLE_HELD_ELSEWHERE: { reason: string };
  /** the name of the fetch's failure (TimeoutError, TypeError, ...) */
  MARKET_UNREACHABLE: { failure: string };
  MARKET_HTTP_STATUS: { status: number };
  MARKET_BATCH_TOO_LARGE: { batchSize: number };
  LIMIT_INVALID: { maximum: number };
  THRESHOLD_BELOW_RENT: { minimumLamports: bigint };
  SET_ASIDE_SWEEP_DISAGREES: { reason: string };
  ADMIN_KEY_GUESSES_LIMITED: { retryAfterSeconds: number };
  ADMIN_SEARCH_TOO_LONG: { maximum: number };
  /** what the provider did wrong, for the log */
  IDP_UNAVAILABLE: { reason: string };
  /** why the sign-in's state did not open, for the log */
  SIGN_IN_UNVERIFIED: { reason: string };
  /** the amount asked (or the whole balance), against the balance and the minimum */
  INSUFFICIENT_BALANCE: { lamports: bigint; balanceLamports: bigint; minimumLamports: bigint };
  CLAIM_BELOW_MINIMUM: { minimumLamports: bigint };
  RECONCILE_PAYOUT_DIFFERS: { payoutId: bigint | number };
  RECONCILE_REPLACEMENT_DIFFERS: { payoutId: bigint | number; replacedId: bigint | number };
  RECONCILE_REPLACED_STATUS: { payoutId: bigint | number; status: string };
  RECONCILE_WITHDRAWAL_DIFFERS: { withdrawalId: bigint | number };
  RECONCILE_BURN_BUY_DIFFERS: { buyId: number };
  RECONCILE_BURN_NOT_AWAITED: { buyId: number; status: string };
  RECONCILE_HISTORY_TOO_LONG: { scannedMax: number };
  RECONCILE_HISTORY_GAP: { why: string };
  /** the waiting rows and the ones the resume listed, as counts per kind */
  RESUME_WAITING_CHANGED: { expected: string; given: string };
  LAUNCH_TRANSACTION_REJECTED: { reason: string };
  LAUNCH_UPLOAD_ALLOWANCE_USED: { retryAfterSeconds: number };
  LAUNCH_IMAGE_TOO_LARGE: { maxBytes: number };
  LAUNCH_IMAGE_TOO_MANY_PIXELS: { maxPixels: number };
  LAUNCH_HANDLE_UNKNOWN: { handle: string };
  LAUNCH_FIELD_LENGTH: { field: LaunchTextField; minimum: number; maximum: number };
  LAUNCH_FIELD_CONTROL: { field: LaunchTextField };
  LAUNCH_LINK_NOT_URL: { field: string };
  LAUNCH_LINK_NOT_HTTPS: { field: string };
  LAUNCH_LINK_CREDENTIALS: { field: string };
  LAUNCH_RECIPIENT_COUNT: { maximum: number };
  LAUNCH_FIRST_BUY_TOO_LARGE: { maximumLamports: bigint };
  RPC_OPTION_UNAVAILABLE: { option: string };
  RPC_OPTION_INVALID: { option: string };
  /** how many params the method takes: "1" or "1 to 2" */
  RPC_PARAMS_COUNT: { count: string };
  RPC_SIGNATURES_INVALID: { maximum: number };
  WEBHOOK_URL_TOO_LONG: { maximum: number };
  /** the event types, comma-separated */
  WEBHOOK_TYPES_EMPTY: { types: string };
  WEBHOOK_TYPES_UNKNOWN: { types: string };
  WEBHOOK_LIMIT_REACHED: { maximum: number };
  WORKER_UNANSWERED: { thread: string; request: string; timeoutMs: number };
  /** `request` is the notice waited for */
  WORKER_SILENT: { thread: string; request: string; timeoutMs: number };
  /** `reason`: why the thread ended */
  WORKER_ENDED: { thread: string; request: string; reason: string };
  WORKER_HANDLER_MISSING: { request: string };
}

/** The draft's text fields (src/launches/draft.ts). */
type LaunchTextField = "name" | "symbol" | "description";

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
