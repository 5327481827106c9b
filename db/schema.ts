/**
 * Every table of the service. Times are integer milliseconds since the epoch (`...AtMs`) except the
 * ledger feed, whose times are unique integer microseconds (`atUs`) so paging never skips or repeats.
 * Money is bigint lamports. The ledger tables are append-only (triggers in the migrations).
 */
import { getTableName, sql } from "drizzle-orm";
import {
  type AnySQLiteColumn,
  blob,
  check,
  index,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";
import { AppError } from "../src/lib/errors";
import { bool, int, lamports, rowId, usd } from "./columns";

// ---------------------------------------------------------------- checks (migration 0024)

/**
 * The column holds one of the values its `enum` names: a raw write of any other (a typo in a
 * statement's literal, a script) is refused by SQLite as the types refuse it in code. NULL passes,
 * as SQL's CHECK lets it, so a nullable column stays nullable. Named `<table>_<column>`, which is
 * what SQLite's "CHECK constraint failed" message says.
 */
function oneOf(column: AnySQLiteColumn) {
  const values = (column as { enumValues?: readonly string[] }).enumValues;
  if (!values?.length) throw new AppError("INTERNAL", `${column.name} names no values`);
  const list = values.map((value) => `'${value}'`).join(", ");
  return check(
    `${getTableName(column.table)}_${column.name}`,
    sql`${sql.identifier(column.name)} IN (${sql.raw(list)})`,
  );
}

/** Every job that signs transactions (TransactionJob, src/chain/ports.ts): the landing journal's `job`. */
const TRANSACTION_JOBS = ["sweep", "payouts", "burn-buy", "burn", "anchor", "withdrawal"] as const;

/** An amount or a count that is never below zero (NULL passes: not yet known). */
function notNegative(column: AnySQLiteColumn) {
  return check(`${getTableName(column.table)}_${column.name}_not_negative`, sql`${sql.identifier(column.name)} >= 0`);
}

// ---------------------------------------------------------------- tokens

export const tokens = sqliteTable(
  "tokens",
  {
    id: rowId("id"),
    mint: text("mint").notNull(),
    name: text("name").notNull(),
    symbol: text("symbol").notNull(),
    description: text("description").notNull().default(""),
    website: text("website"),
    twitter: text("twitter"),
    telegram: text("telegram"),
    metadataUri: text("metadata_uri").notNull(),
    /** IPFS (or local) address of the image; the stored preview is served from token_images */
    imageUri: text("image_uri"),
    /** index the creator key is derived from (DESIGN §4); never the key itself */
    creatorIndex: int("creator_index").notNull(),
    creator: text("creator").notNull(),
    creatorVault: text("creator_vault").notNull(),
    /**
     * The swap venue's creator vault, recorded at launch with `creator_vault` (both as the launch
     * program derives them). A detail's vault refresh reads the two from the row: deriving them
     * was two Ed25519 key derivations per random detail (local program) or two program-address
     * searches (pump), ~12% of the request thread's CPU. Null for tokens recorded before 0013,
     * whose addresses are derived as before.
     */
    poolVault: text("pool_vault"),
    deployer: text("deployer").notNull(),
    launchSignature: text("launch_signature").notNull(),
    launchedAtMs: int("launched_at_ms").notNull(),
    platformBps: int("platform_bps").notNull(),
    /** cached sum of this token's confirmed sweeps; equals its sweep_source ledger account, negated */
    sweptLamports: lamports("swept_lamports").notNull().default(sql`0`),
    vaultLamports: lamports("vault_lamports").notNull().default(sql`0`),
    vaultCheckedAtMs: int("vault_checked_at_ms").notNull(),
    /** swept + vault, kept by SQLite so the `fees` sort has an index */
    feesLamports: lamports("fees_lamports").generatedAlwaysAs(sql`swept_lamports + vault_lamports`, { mode: "stored" }),
    bonded: bool("bonded").notNull().default(false),
    marketCapUsd: usd("market_cap_usd"),
    volume24hUsd: usd("volume_24h_usd"),
    marketCheckedAtMs: int("market_checked_at_ms"),
    lastSweptAtMs: int("last_swept_at_ms"),
    hidden: bool("hidden").notNull().default(false),
  },
  (t) => [
    uniqueIndex("tokens_mint").on(t.mint),
    uniqueIndex("tokens_creator_index").on(t.creatorIndex),
    uniqueIndex("tokens_launch_signature").on(t.launchSignature),
    index("tokens_creator").on(t.creator),
    index("tokens_new").on(t.hidden, t.launchedAtMs, t.mint),
    index("tokens_fees").on(t.hidden, t.feesLamports, t.mint),
    index("tokens_mcap").on(t.hidden, t.marketCapUsd, t.mint),
    // The ids alone, in order: the sweep's scheduled read pass walks every id to find the due ones
    // (src/tokens/reading-schedule.ts), and through the table that read every row (~620 bytes each).
    index("tokens_ids").on(t.id),
  ],
);

export const tokenRecipients = sqliteTable(
  "token_recipients",
  {
    tokenId: int("token_id")
      .notNull()
      .references(() => tokens.id),
    position: int("position").notNull(),
    /** lowercase key */
    handle: text("handle").notNull(),
    displayHandle: text("display_handle").notNull(),
    bps: int("bps").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tokenId, t.handle] }),
    // Covering for an account record's tokens: a handle's tokens and shares from the index alone,
    // where each was also a page of the table (the rows of one handle are written launch by
    // launch, far apart).
    index("token_recipients_handle").on(t.handle, t.tokenId, t.bps),
    // Covering, in the order a token lists them: its recipients from one leaf (see handles_recipient).
    index("token_recipients_listed").on(t.tokenId, t.position, t.handle, t.displayHandle, t.bps),
  ],
);

export const tokenImages = sqliteTable("token_images", {
  tokenId: int("token_id")
    .primaryKey()
    .references(() => tokens.id),
  webp: blob("webp", { mode: "buffer" }).notNull(),
  sha256: text("sha256").notNull(),
});

// ---------------------------------------------------------------- identities

/** An identity-provider account that has signed in (or was looked up). Money belongs to `idpUserId`. */
export const identities = sqliteTable(
  "identities",
  {
    idpUserId: text("idp_user_id").primaryKey(),
    /** the handle the account signed in with most recently (lowercase) */
    handle: text("handle").notNull(),
    displayHandle: text("display_handle").notNull(),
    name: text("name").notNull(),
    avatarUrl: text("avatar_url").notNull(),
    followers: int("followers").notNull().default(0),
    /** null until the first sign-in, which behaves as hold */
    routing: text("routing", { enum: ["hold", "autopay", "burn"] }),
    payoutWallet: text("payout_wallet"),
    declined: bool("declined").notNull().default(false),
    firstSignInAtMs: int("first_sign_in_at_ms"),
    lastSignInAtMs: int("last_sign_in_at_ms"),
    createdAtMs: int("created_at_ms").notNull(),
  },
  // Covering: what a recipient shows of its account (see handles_recipient).
  (t) => [
    index("identities_recipient").on(t.idpUserId, t.firstSignInAtMs, t.routing, t.declined),
    oneOf(t.routing),
    notNegative(t.followers),
  ],
);

/**
 * Every handle a token names, with its profile as last seen and, once known, the user id it is
 * pinned to. Before pinning, credits accrue to the handle itself.
 */
export const handles = sqliteTable(
  "handles",
  {
    handle: text("handle").primaryKey(),
    displayHandle: text("display_handle").notNull(),
    name: text("name").notNull(),
    avatarUrl: text("avatar_url").notNull(),
    followers: int("followers").notNull().default(0),
    idpUserId: text("idp_user_id").references(() => identities.idpUserId),
    pinnedAtMs: int("pinned_at_ms"),
  },
  (t) => [
    // With the handle: the stats' claimed-accounts count walks every pinned handle from this index
    // alone (without it, a table read per handle: 3.6 s at 1M tokens, 1.5 s with it).
    index("handles_idp_user").on(t.idpUserId, t.handle),
    /**
     * Covering: a token's recipients read their profile from this index alone. Through the primary
     * key each lookup was two random pages (the key's index, then the row), and a random token
     * detail read ~15 pages past an 8 MiB page cache, most of them its recipients' (with this and
     * the three covering indexes beside it: ~11). The recipients query names these indexes
     * (`INDEXED BY`): with no statistics, SQLite prefers a unique key to a covering index.
     */
    index("handles_recipient").on(t.handle, t.name, t.avatarUrl, t.idpUserId),
  ],
);

export const sessions = sqliteTable(
  "sessions",
  {
    /** SHA-256 (hex) of the random token in the cookie; the token itself is never stored */
    id: text("id").primaryKey(),
    idpUserId: text("idp_user_id")
      .notNull()
      .references(() => identities.idpUserId),
    createdAtMs: int("created_at_ms").notNull(),
    expiresAtMs: int("expires_at_ms").notNull(),
  },
  (t) => [index("sessions_user").on(t.idpUserId)],
);

// ---------------------------------------------------------------- ledger

/**
 * Kinds: sweep_source (per mint, <= 0), platform, user (per idp user id), handle (unpinned),
 * payout (per payout id), burn_pending (per mint, recipient orders), buyback_pending (per mint),
 * paid_out (sink), burned (sink), rent (per address: rent the treasury paid into an account it
 * owns), operator_float (the treasury's own lamports, <= 0 by what they fronted). Only sweep_source
 * and operator_float may go negative.
 */
export const ledgerAccounts = sqliteTable(
  "ledger_accounts",
  {
    id: rowId("id"),
    kind: text("kind", {
      enum: [
        "sweep_source",
        "platform",
        "user",
        "handle",
        "payout",
        "burn_pending",
        "buyback_pending",
        "paid_out",
        "burned",
        "rent",
        "operator_float",
        "withdrawal",
        "withdrawn",
      ],
    }).notNull(),
    ref: text("ref").notNull(),
    /** cached balance, written by the ledger code with every entry */
    balance: lamports("balance").notNull().default(sql`0`),
    /** the same sum kept by a trigger on entry insert: a second book the cached balance must match */
    entrySum: lamports("entry_sum").notNull().default(sql`0`),
  },
  (t) => [
    uniqueIndex("ledger_accounts_kind_ref").on(t.kind, t.ref),
    index("ledger_accounts_kind").on(t.kind),
    oneOf(t.kind),
  ],
);

export const ledgerPostings = sqliteTable(
  "ledger_postings",
  {
    id: rowId("id"),
    /** unique per money command: replaying the command finds it and does nothing */
    commandKey: text("command_key").notNull(),
    kind: text("kind", {
      enum: [
        "sweep",
        "pin",
        "payout_reserve",
        "payout_confirm",
        "payout_fail",
        "payout_replace",
        "burn_order",
        "burn_done",
        "burn_refund",
        "rent_paid",
        "rent_returned",
        "withdrawal_reserve",
        "withdrawal_confirm",
        "withdrawal_fail",
      ],
    }).notNull(),
    atMs: int("at_ms").notNull(),
  },
  (t) => [uniqueIndex("ledger_postings_command_key").on(t.commandKey), oneOf(t.kind)],
);

export const ledgerEntries = sqliteTable(
  "ledger_entries",
  {
    id: rowId("id"),
    postingId: int("posting_id")
      .notNull()
      .references(() => ledgerPostings.id),
    accountId: int("account_id")
      .notNull()
      .references(() => ledgerAccounts.id),
    amount: lamports("amount").notNull(),
    /** the token the money came from, where it came from one */
    tokenId: int("token_id"),
    /** the handle a credit was made for (the one the token names) */
    handle: text("handle"),
  },
  (t) => [
    // Covering: account figures sum amounts by posting kind without touching the table rows.
    index("ledger_entries_account").on(t.accountId, t.tokenId, t.amount, t.postingId),
    index("ledger_entries_posting").on(t.postingId),
    index("ledger_entries_token_handle").on(t.tokenId, t.handle),
  ],
);

/**
 * What each handle a token names was credited from it by sweeps, all time (SPEC
 * Recipient.creditedLamports): a projection of the sweep postings' entries, kept by a trigger on
 * `ledger_entries` in the same statement as the entry itself (migration 0009), so a list page reads
 * one row per recipient instead of summing every entry of every sweep of its tokens.
 */
export const ledgerRecipientCredits = sqliteTable(
  "ledger_recipient_credits",
  {
    tokenId: int("token_id").notNull(),
    handle: text("handle").notNull(),
    creditedLamports: lamports("credited_lamports").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tokenId, t.handle] }),
    // Covering: a recipient's credit from one page instead of two (see handles_recipient).
    index("ledger_recipient_credits_listed").on(t.tokenId, t.handle, t.creditedLamports),
  ],
);

/**
 * Per account of a person (kinds 'user' and 'handle'): the sums SPEC's Account record shows, kept
 * by a trigger on `ledger_entries` like the recipient credits (migration 0010). credited = sweep
 * and pin entries in; paid = payout reservations minus failed payouts; burned = burn orders;
 * pinMoved = what pin postings moved out (a handle's money going to its user id).
 */
export const ledgerAccountFigures = sqliteTable("ledger_account_figures", {
  accountId: int("account_id").primaryKey(),
  creditedLamports: lamports("credited_lamports").notNull(),
  paidLamports: lamports("paid_lamports").notNull(),
  burnedLamports: lamports("burned_lamports").notNull(),
  pinMovedLamports: lamports("pin_moved_lamports").notNull(),
});

/** Per account of a person and token: what came in from that token (sweep credits and pins in). */
export const ledgerAccountTokenCredits = sqliteTable(
  "ledger_account_token_credits",
  {
    accountId: int("account_id").notNull(),
    tokenId: int("token_id").notNull(),
    creditedLamports: lamports("credited_lamports").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.tokenId] })],
);

/**
 * The balances of every account of one kind, summed: the totals `/api/stats` and the solvency
 * figures show, read as a few rows instead of summing every account (one per person, payout and
 * token). Kept by a trigger on `ledger_entries` in the statement that writes the entry (migration
 * 0025); `verifyLedger` compares them with the accounts.
 */
export const ledgerKindTotals = sqliteTable("ledger_kind_totals", {
  kind: text("kind").primaryKey(),
  balanceLamports: lamports("balance_lamports").notNull(),
});

// ---------------------------------------------------------------- stats

/**
 * The counts `/api/stats` shows (`tokens`, `recipients`, `claimed_accounts`), each kept by triggers
 * in the statement that changes what it counts (migration 0025), so a stats read is a row read and
 * nothing recounts.
 */
export const statsCounts = sqliteTable("stats_counts", {
  name: text("name").primaryKey(),
  count: int("count").notNull(),
});

/**
 * The identities the claimed-accounts count counts: signed in, with a handle pinned to them that a
 * token names. Kept by triggers on identities, handles and token_recipients (migration 0025); its
 * own triggers keep `stats_counts.claimed_accounts` equal to its size.
 */
export const statsClaimedAccounts = sqliteTable("stats_claimed_accounts", {
  idpUserId: text("idp_user_id").primaryKey(),
});

// ---------------------------------------------------------------- feed

/** One row per public ledger event; `atUs` is unique so `before` paging is exact. */
export const feedEvents = sqliteTable(
  "feed_events",
  {
    atUs: int("at_us").primaryKey(),
    /** `payoutStatus`: a payout's status change; its ref is a row of payout_events */
    type: text("type", { enum: ["launch", "sweep", "payout", "payoutStatus", "burn"] }).notNull(),
    refId: int("ref_id").notNull(),
  },
  (t) => [uniqueIndex("feed_events_ref").on(t.type, t.refId), oneOf(t.type)],
);

/**
 * What each payout event of the feed says, written when it is published and never changed
 * (triggers in the migration): an event id reads the same forever. A payout's first row is its
 * `payout` event; each later row is a `payoutStatus` event (the status it moved to).
 */
export const payoutEvents = sqliteTable(
  "payout_events",
  {
    id: rowId("id"),
    payoutId: int("payout_id").notNull(),
    status: text("status", { enum: ["held", "queued", "sent", "confirmed", "failed", "replaced"] }).notNull(),
    signature: text("signature"),
    /** the handle the account had signed in with most recently when the event was published */
    handle: text("handle").notNull(),
    /** on `replaced`: the payout that owes the amount now */
    replacementId: int("replacement_id"),
  },
  (t) => [index("payout_events_payout").on(t.payoutId, t.id), oneOf(t.status)],
);

// ---------------------------------------------------------------- money movements

export const sweeps = sqliteTable(
  "sweeps",
  {
    id: rowId("id"),
    tokenId: int("token_id")
      .notNull()
      .references(() => tokens.id),
    signature: text("signature").notNull(),
    lastValidBlockHeight: lamports("last_valid_block_height").notNull(),
    status: text("status", { enum: ["sent", "confirmed", "failed"] }).notNull(),
    totalLamports: lamports("total_lamports").notNull().default(sql`0`),
    platformLamports: lamports("platform_lamports").notNull().default(sql`0`),
    error: text("error"),
    createdAtMs: int("created_at_ms").notNull(),
    confirmedAtMs: int("confirmed_at_ms"),
  },
  (t) => [
    uniqueIndex("sweeps_signature_token").on(t.signature, t.tokenId),
    // Covering: a token's record lists its latest sweeps from this index alone. From the table, each
    // sweep was a page of its own (a token's sweeps are written run by run, ~100k rows apart).
    index("sweeps_token").on(
      t.tokenId,
      t.id,
      t.status,
      t.totalLamports,
      t.platformLamports,
      t.createdAtMs,
      t.confirmedAtMs,
      t.signature,
    ),
    index("sweeps_status").on(t.status),
    oneOf(t.status),
    notNegative(t.totalLamports),
    notNegative(t.platformLamports),
  ],
);

export const payouts = sqliteTable(
  "payouts",
  {
    id: rowId("id"),
    idpUserId: text("idp_user_id")
      .notNull()
      .references(() => identities.idpUserId),
    lamports: lamports("lamports").notNull(),
    wallet: text("wallet").notNull(),
    kind: text("kind", { enum: ["claim", "autopay"] }).notNull(),
    /** held: above PAYOUT_REVIEW_LAMPORTS, waiting for an operator to approve it (src/custody) */
    status: text("status", { enum: ["held", "queued", "sent", "confirmed", "failed", "replaced"] }).notNull(),
    signature: text("signature"),
    lastValidBlockHeight: lamports("last_valid_block_height"),
    /** the payout this one replaces after it provably expired */
    replacesId: int("replaces_id"),
    error: text("error"),
    createdAtMs: int("created_at_ms").notNull(),
    sentAtMs: int("sent_at_ms"),
    confirmedAtMs: int("confirmed_at_ms"),
  },
  (t) => [
    index("payouts_user").on(t.idpUserId, t.id),
    index("payouts_status").on(t.status),
    // the custody outflow caps sum what was sent in a rolling window
    index("payouts_sent_at").on(t.sentAtMs),
    index("payouts_signature").on(t.signature),
    uniqueIndex("payouts_replaces").on(t.replacesId),
    oneOf(t.kind),
    oneOf(t.status),
    notNegative(t.lamports),
  ],
);

export const burnOrders = sqliteTable(
  "burn_orders",
  {
    id: rowId("id"),
    source: text("source", { enum: ["recipient", "platform"] }).notNull(),
    /** null for the platform buyback */
    idpUserId: text("idp_user_id"),
    mint: text("mint").notNull(),
    lamports: lamports("lamports").notNull(),
    sweepId: int("sweep_id").references(() => sweeps.id),
    status: text("status", { enum: ["pending", "buying", "done"] }).notNull(),
    buyId: int("buy_id"),
    createdAtMs: int("created_at_ms").notNull(),
    /** the order this is the rest of, when a buy took that one only in part (its release covers this rest) */
    splitFromId: int("split_from_id"),
  },
  (t) => [
    index("burn_orders_status_mint").on(t.status, t.mint),
    index("burn_orders_user").on(t.idpUserId),
    index("burn_orders_buy").on(t.buyId),
    oneOf(t.source),
    oneOf(t.status),
    notNegative(t.lamports),
  ],
);

/** One buy-and-burn transaction for a mint, paying for several orders. */
export const burnBuys = sqliteTable(
  "burn_buys",
  {
    id: rowId("id"),
    mint: text("mint").notNull(),
    signature: text("signature").notNull(),
    lastValidBlockHeight: lamports("last_valid_block_height").notNull(),
    /** sent -> bought (tokens in hand, burn not yet sent) -> burning -> confirmed; or failed */
    status: text("status", { enum: ["sent", "bought", "burning", "confirmed", "failed"] }).notNull(),
    /** the orders' total: the most the buy may spend */
    lamports: lamports("lamports").notNull(),
    /**
     * What left the treasury for the buy itself, read from the landed transaction's balances (its
     * network and priority fee and the rent of accounts it created left out): what is burned. The
     * rest of `lamports` goes back to the orders it came from. Null before the buy landed, and for
     * buys recorded before migration 0015 (they spent `lamports` exactly).
     */
    spentLamports: lamports("spent_lamports"),
    /** rent of the accounts the buy created for the treasury (its token account, pump's volume accumulator) */
    rentLamports: lamports("rent_lamports"),
    tokenAmount: lamports("token_amount"),
    burnSignature: text("burn_signature"),
    burnLastValidBlockHeight: lamports("burn_last_valid_block_height"),
    error: text("error"),
    createdAtMs: int("created_at_ms").notNull(),
    landedAtMs: int("landed_at_ms"),
  },
  (t) => [
    uniqueIndex("burn_buys_signature").on(t.signature),
    index("burn_buys_status").on(t.status),
    index("burn_buys_created_at").on(t.createdAtMs),
    oneOf(t.status),
    notNegative(t.lamports),
    notNegative(t.spentLamports),
    notNegative(t.rentLamports),
    notNegative(t.tokenAmount),
  ],
);

/** A completed burn, one per source of a buy: what the ledger feed shows. */
export const burns = sqliteTable(
  "burns",
  {
    id: rowId("id"),
    buyId: int("buy_id")
      .notNull()
      .references(() => burnBuys.id),
    source: text("source", { enum: ["recipient", "platform"] }).notNull(),
    mint: text("mint").notNull(),
    signature: text("signature").notNull(),
    lamports: lamports("lamports").notNull(),
    tokenAmount: lamports("token_amount").notNull(),
    landedAtMs: int("landed_at_ms").notNull(),
  },
  (t) => [
    uniqueIndex("burns_buy_source").on(t.buyId, t.source),
    oneOf(t.source),
    notNegative(t.lamports),
    notNegative(t.tokenAmount),
  ],
);

// ---------------------------------------------------------------- launches

export const launchIntents = sqliteTable(
  "launch_intents",
  {
    id: text("id").primaryKey(),
    wallet: text("wallet").notNull(),
    mint: text("mint").notNull(),
    digest: text("digest").notNull(),
    draft: text("draft", { mode: "json" }).notNull(),
    creatorIndex: int("creator_index").notNull(),
    creator: text("creator").notNull(),
    status: text("status", {
      enum: ["prepared", "metadata", "confirmed", "failed", "expired"],
    }).notNull(),
    metadataUri: text("metadata_uri"),
    imageUri: text("image_uri"),
    signature: text("signature"),
    error: text("error"),
    createdAtMs: int("created_at_ms").notNull(),
    expiresAtMs: int("expires_at_ms").notNull(),
  },
  (t) => [
    uniqueIndex("launch_intents_mint").on(t.mint),
    uniqueIndex("launch_intents_creator_index").on(t.creatorIndex),
    index("launch_intents_status").on(t.status),
    oneOf(t.status),
  ],
);

/** Metadata and images stored here when no IPFS account is configured. */
export const localObjects = sqliteTable("local_objects", {
  cid: text("cid").primaryKey(),
  contentType: text("content_type").notNull(),
  body: blob("body", { mode: "buffer" }).notNull(),
  createdAtMs: int("created_at_ms").notNull(),
  /** 1 while the launch that stored it is unconfirmed: not served, deleted with its expired intent */
  pending: int("pending").notNull().default(0),
  /** the launch intent that stored it first */
  intentId: text("intent_id"),
});

// ---------------------------------------------------------------- jobs, admin, settings

export const jobLeases = sqliteTable("job_leases", {
  job: text("job").primaryKey(),
  holder: text("holder"),
  /** fencing token: bumped on every acquisition; a stale holder's writes are refused */
  generation: int("generation").notNull().default(0),
  expiresAtMs: int("expires_at_ms").notNull().default(0),
  /** totals kept here so job_runs can be pruned without losing the run count */
  runs: int("runs").notNull().default(0),
  lastRunAtMs: int("last_run_at_ms"),
  lastOkAtMs: int("last_ok_at_ms"),
  /** scrubbed text of the last failed run, cleared by the next clean finish */
  lastError: text("last_error"),
});

export const jobRuns = sqliteTable(
  "job_runs",
  {
    id: rowId("id"),
    job: text("job").notNull(),
    generation: int("generation").notNull(),
    holder: text("holder").notNull(),
    startedAtMs: int("started_at_ms").notNull(),
    finishedAtMs: int("finished_at_ms"),
    ok: bool("ok"),
    error: text("error"),
  },
  (t) => [index("job_runs_job").on(t.job, t.id)],
);

export const adminAudit = sqliteTable("admin_audit", {
  id: rowId("id"),
  atMs: int("at_ms").notNull(),
  actor: text("actor").notNull(),
  action: text("action").notNull(),
  subject: text("subject"),
  reason: text("reason"),
  /** the x-request-id of the API call that did it (null from the CLI) */
  requestId: text("request_id"),
  /** the client IP the limits saw for that call (null from the CLI) */
  clientIp: text("client_ip"),
});

export const settings = sqliteTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

// ---------------------------------------------------------------- history

/**
 * Solvency over time (`GET /api/proof/history`): the treasury balance read from the chain and what
 * the books owed at that moment, taken after sweep and payout runs and at least hourly; kept a year.
 */
export const solvencySnapshots = sqliteTable(
  "solvency_snapshots",
  {
    id: rowId("id"),
    atMs: int("at_ms").notNull(),
    treasuryLamports: lamports("treasury_lamports").notNull(),
    owedLamports: lamports("owed_lamports").notNull(),
    /** what prompted it: a job's name, or `hourly` */
    trigger: text("trigger").notNull(),
  },
  (t) => [index("solvency_snapshots_at").on(t.atMs), notNegative(t.treasuryLamports), notNegative(t.owedLamports)],
);

/** Sessions of the operator page at /admin: the SHA-256 of the cookie's random token, never the token. */
export const adminSessions = sqliteTable(
  "admin_sessions",
  {
    id: text("id").primaryKey(),
    createdAtMs: int("created_at_ms").notNull(),
    expiresAtMs: int("expires_at_ms").notNull(),
  },
  (t) => [index("admin_sessions_expires").on(t.expiresAtMs)],
);

/** Launch upload bytes stored per client (IP, or IPv6 /64) per UTC day, to bound what one client can store. */
export const uploadUsage = sqliteTable(
  "upload_usage",
  {
    clientKey: text("client_key").notNull(),
    day: int("day").notNull(),
    bytes: int("bytes").notNull(),
  },
  (t) => [primaryKey({ columns: [t.clientKey, t.day] })],
);

// ---------------------------------------------------------------- liabilities (proof of liabilities)

/**
 * One Merkle sum tree of everything owed at one instant (docs/proof-of-liabilities.md), and the
 * memo transaction that anchors its root on chain. Kept a year.
 */
export const liabilitySnapshots = sqliteTable(
  "liability_snapshots",
  {
    id: rowId("id"),
    atMs: int("at_ms").notNull(),
    /** hex of the root hash */
    root: text("root").notNull(),
    totalLamports: lamports("total_lamports").notNull(),
    leafCount: int("leaf_count").notNull(),
    /** the newest ledger posting the snapshot saw: a later snapshot is needed only once it moves */
    postingId: int("posting_id").notNull(),
    /** `liabilities:<root hex>:<totalLamports>:<at ISO>` */
    memo: text("memo").notNull(),
    anchorSignature: text("anchor_signature"),
    anchorLastValidBlockHeight: lamports("anchor_last_valid_block_height"),
    /** the signed bytes, so a resend is the same transaction */
    anchorWire: blob("anchor_wire", { mode: "buffer" }),
    anchoredAtMs: int("anchored_at_ms"),
  },
  (t) => [
    uniqueIndex("liability_snapshots_at").on(t.atMs),
    index("liability_snapshots_anchored").on(t.anchoredAtMs, t.id),
  ],
);

/** The leaves of a snapshot. The nonce is secret: only the account's own proof carries it. */
export const liabilityLeaves = sqliteTable(
  "liability_leaves",
  {
    snapshotId: int("snapshot_id")
      .notNull()
      .references(() => liabilitySnapshots.id, { onDelete: "cascade" }),
    /** 'user' (an identity-provider user id) or 'handle' (a handle not yet pinned) */
    accountKind: text("account_kind", { enum: ["user", "handle"] }).notNull(),
    accountRef: text("account_ref").notNull(),
    nonce: blob("nonce", { mode: "buffer" }).notNull(),
    lamports: lamports("lamports").notNull(),
    leafHash: blob("leaf_hash", { mode: "buffer" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.snapshotId, t.accountKind, t.accountRef] }),
    oneOf(t.accountKind),
    notNegative(t.lamports),
  ],
);

/** A tree whose sum was not what the books owe at the same instant: flagged, never published. */
export const liabilityIncidents = sqliteTable("liability_incidents", {
  id: rowId("id"),
  atMs: int("at_ms").notNull(),
  owedLamports: lamports("owed_lamports").notNull(),
  /** null when the tree could not be built (a sum over 2^64 - 1) */
  treeLamports: lamports("tree_lamports"),
  detail: text("detail").notNull(),
});

// ---------------------------------------------------------------- fee sharing

/**
 * Tokens whose launch-program creator is no longer their derived key (pump.fun fee sharing moved
 * it to the coin's sharing config, or an authority set another creator), as the last vault
 * reading saw it. No row: the creator is still ours (or the token was never read).
 */
export const tokenFeeSharing = sqliteTable("token_fee_sharing", {
  tokenId: int("token_id")
    .primaryKey()
    .references(() => tokens.id),
  currentCreator: text("current_creator").notNull(),
  isSharingConfig: bool("is_sharing_config").notNull(),
  /** the derived creator key's share in the sharing config, basis points (0: not a shareholder) */
  serviceShareBps: int("service_share_bps").notNull(),
  /** null while the service's share is distributed to it; otherwise why the token stopped accruing */
  blockedReason: text("blocked_reason"),
  detectedAtMs: int("detected_at_ms").notNull(),
  checkedAtMs: int("checked_at_ms").notNull(),
});

// ---------------------------------------------------------------- live ledger (stream, webhooks)

/**
 * Commit order of feed events. `feed_events.at_us` is the event's own time (a launch's block time,
 * a sweep's confirmation), so a later commit can carry an earlier time; resuming a stream by time
 * alone would skip it. Written in the event's transaction, so `seq` order is commit order.
 */
export const feedCommits = sqliteTable("feed_commits", {
  // Rows are never deleted, so the rowid only grows.
  seq: rowId("seq"),
  atUs: int("at_us").notNull().unique(),
});

/**
 * Webhook endpoints (Standard Webhooks). `types` is a JSON array of event types, null for all.
 * No secret here: each is derived from the webhook key and the id (src/webhooks/key.ts).
 */
export const webhooks = sqliteTable("webhooks", {
  id: text("id").primaryKey(),
  url: text("url").notNull(),
  types: text("types"),
  enabled: bool("enabled").notNull(),
  createdAtMs: int("created_at_ms").notNull(),
  failingSinceMs: int("failing_since_ms"),
});

/**
 * The outbox: one row per endpoint and feed event, inserted in the event's transaction. `payload`
 * is fixed at the first attempt so every retry of one webhook-id sends the same bytes.
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: rowId("id"),
    webhookId: text("webhook_id").notNull(),
    atUs: int("at_us").notNull(),
    status: text("status", { enum: ["pending", "delivered", "failed"] }).notNull(),
    attempts: int("attempts").notNull(),
    nextAttemptAtMs: int("next_attempt_at_ms").notNull(),
    firstAttemptAtMs: int("first_attempt_at_ms"),
    payload: text("payload"),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_event").on(t.webhookId, t.atUs),
    index("webhook_deliveries_due").on(t.status, t.nextAttemptAtMs),
    oneOf(t.status),
    notNegative(t.attempts),
  ],
);

export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    id: rowId("id"),
    deliveryId: int("delivery_id").notNull(),
    attempt: int("attempt").notNull(),
    atMs: int("at_ms").notNull(),
    ok: bool("ok").notNull(),
    httpStatus: int("http_status"),
    error: text("error"),
  },
  (t) => [index("webhook_attempts_delivery").on(t.deliveryId, t.id)],
);

// ---------------------------------------------------------------- set-aside tokens

/**
 * Tokens a money job keeps failing on (collect always failing, pool missing, buy too small), or
 * stopped on a credit mismatch. Failing rows count consecutive failures; from SET_ASIDE_AFTER on
 * the token is set aside (`setAsideAtMs`) and retried at `retryAtMs` on a back-off; a stopped
 * token has no retry time and waits for an operator.
 */
export const setAside = sqliteTable(
  "set_aside",
  {
    mint: text("mint").notNull(),
    job: text("job", { enum: ["sweep", "burns"] }).notNull(),
    reason: text("reason").notNull(),
    failures: int("failures").notNull(),
    sinceMs: int("since_ms").notNull(),
    setAsideAtMs: int("set_aside_at_ms"),
    retryAtMs: int("retry_at_ms"),
  },
  (t) => [primaryKey({ columns: [t.mint, t.job] }), oneOf(t.job), notNegative(t.failures)],
);

// ---------------------------------------------------------------- signed transactions (landing)

/**
 * Every transaction a money job signs, saved with its exact bytes in the same write that marks its
 * items `sent`, so it can be rebroadcast (the same bytes, every few seconds, also after a restart)
 * until it lands or its blockhash lapses, and never re-signed before proven expiry. `sent_from_slot`
 * is the slot of the blockhash answer it was built on: it cannot land before that slot, so a
 * history search proves it absent only from a node whose history reaches back that far.
 */
export const chainTransactions = sqliteTable(
  "chain_transactions",
  {
    signature: text("signature").primaryKey(),
    /** the job that signed it (TransactionJob, src/chain/ports.ts) */
    job: text("job", { enum: TRANSACTION_JOBS }).notNull(),
    /** the signed bytes; cleared once the transaction landed or lapsed */
    wire: blob("wire", { mode: "buffer" }),
    lastValidBlockHeight: lamports("last_valid_block_height").notNull(),
    sentFromSlot: lamports("sent_from_slot").notNull(),
    computeUnitLimit: int("compute_unit_limit").notNull(),
    computeUnitPriceMicroLamports: lamports("compute_unit_price_micro_lamports").notNull(),
    /** 0 for a first attempt; n for the n-th replacement of a provably expired one */
    attempt: int("attempt").notNull(),
    /**
     * live: rebroadcast while the blockhash is valid; landed: seen at confirmed or finalized (or
     * decided so); lapsed: blockhash past, not seen, not yet proven absent; expired: proven absent
     */
    state: text("state", { enum: ["live", "landed", "lapsed", "expired"] }).notNull(),
    sendCount: int("send_count").notNull().default(sql`0`),
    preparedAtMs: int("prepared_at_ms").notNull(),
    lastSentAtMs: int("last_sent_at_ms"),
    landedSlot: lamports("landed_slot"),
    /** the on-chain error of a landed transaction (null when it succeeded) */
    error: text("error"),
  },
  (t) => [
    index("chain_transactions_live").on(t.state, t.preparedAtMs),
    index("chain_transactions_job").on(t.job, t.preparedAtMs),
    oneOf(t.job),
    oneOf(t.state),
    notNegative(t.computeUnitLimit),
    notNegative(t.computeUnitPriceMicroLamports),
    notNegative(t.attempt),
    notNegative(t.sendCount),
  ],
);

/** Running totals per job for /metrics: what landing cost, counted where it happened. */
export const chainTransactionTotals = sqliteTable(
  "chain_transaction_totals",
  {
    job: text("job", { enum: TRANSACTION_JOBS }).primaryKey(),
    prepared: int("prepared").notNull().default(sql`0`),
    sends: int("sends").notNull().default(sql`0`),
    rebroadcasts: int("rebroadcasts").notNull().default(sql`0`),
    landed: int("landed").notNull().default(sql`0`),
    failed: int("failed").notNull().default(sql`0`),
    lapsed: int("lapsed").notNull().default(sql`0`),
    replacements: int("replacements").notNull().default(sql`0`),
    priorityFeeLamports: lamports("priority_fee_lamports").notNull().default(sql`0`),
  },
  (t) => [
    oneOf(t.job),
    notNegative(t.prepared),
    notNegative(t.sends),
    notNegative(t.rebroadcasts),
    notNegative(t.landed),
    notNegative(t.failed),
    notNegative(t.lapsed),
    notNegative(t.replacements),
    notNegative(t.priorityFeeLamports),
  ],
);

/**
 * Custody incidents (src/custody): a breaker that tripped (a reserves shortfall, broken books, an
 * outflow cap) halts payouts, burn buys and withdrawals until an operator resolves it; a warning
 * (the surplus under the reserve) is recorded without halting. One open incident per kind.
 */
export const custodyIncidents = sqliteTable(
  "custody_incidents",
  {
    id: rowId("id"),
    kind: text("kind", {
      enum: [
        "shortfall",
        "audit",
        "outflow-hour",
        "outflow-day",
        "reconciling",
        "unknown-transaction",
        "reserve-low",
        "token-anomaly",
        "program-changed",
        "backup-missed",
      ],
    }).notNull(),
    /** what tripped, in plain words for the operator (no secrets, no addresses beyond the treasury's) */
    detail: text("detail").notNull(),
    /** 1 when it halts money until resolved */
    halts: int("halts").notNull(),
    atMs: int("at_ms").notNull(),
    resolvedAtMs: int("resolved_at_ms"),
    resolvedBy: text("resolved_by"),
    resolveReason: text("resolve_reason"),
  },
  (t) => [
    index("custody_incidents_open").on(t.resolvedAtMs, t.kind),
    oneOf(t.kind),
    check("custody_incidents_halts", sql`"halts" IN (0, 1)`),
  ],
);

/**
 * Platform withdrawals to PLATFORM_WALLET: queued (platform balance reserved) -> sent -> confirmed,
 * or failed (back to the platform). A send that provably expired goes back to queued and is sent
 * again with a new transaction; it is never in two live transactions.
 */
export const withdrawals = sqliteTable(
  "withdrawals",
  {
    id: rowId("id"),
    lamports: lamports("lamports").notNull(),
    wallet: text("wallet").notNull(),
    reason: text("reason").notNull(),
    actor: text("actor").notNull(),
    status: text("status", { enum: ["queued", "sent", "confirmed", "failed"] }).notNull(),
    signature: text("signature"),
    lastValidBlockHeight: lamports("last_valid_block_height"),
    /** sends that provably expired before this one */
    attempt: int("attempt").notNull().default(sql`0`),
    error: text("error"),
    createdAtMs: int("created_at_ms").notNull(),
    sentAtMs: int("sent_at_ms"),
    confirmedAtMs: int("confirmed_at_ms"),
  },
  (t) => [index("withdrawals_status").on(t.status), oneOf(t.status), notNegative(t.lamports), notNegative(t.attempt)],
);

// ---------------------------------------------------------------- provider cost (issue 42)

/**
 * When the sweep reads a token's vaults next (src/tokens/reading-schedule.ts). A token without a row is
 * read at the next run (new tokens, and every token before this table existed). Vaults only grow
 * through trades, so a token whose readings stop changing is read less and less often (the
 * interval doubles up to SWEEP_QUIET_MAX_INTERVAL_MS), and at once again on any sign of activity.
 */
export const readingSchedule = sqliteTable(
  "reading_schedule",
  {
    tokenId: int("token_id")
      .primaryKey()
      .references(() => tokens.id),
    /** 0 while active (read every run); else the quiet interval the next read was set from */
    intervalMs: int("interval_ms").notNull(),
    /** the sweep reads the token in the first run at or after this time */
    nextReadAtMs: int("next_read_at_ms").notNull(),
    /** the last sign of activity (a changed reading, a stream update); the indexer watches the newest */
    activeAtMs: int("active_at_ms").notNull(),
  },
  (t) => [index("reading_schedule_next").on(t.nextReadAtMs), index("reading_schedule_active").on(t.activeAtMs)],
);

/**
 * What the RPC provider was asked, per hour and JSON-RPC method (a batch counts each call in it):
 * every thread and process adds its own counts, so `/metrics` and health see the whole bill.
 * Hours older than a week are folded into the row of hour 0.
 */
export const providerUsage = sqliteTable(
  "provider_usage",
  {
    hourAtMs: int("hour_at_ms").notNull(),
    method: text("method").notNull(),
    requests: int("requests").notNull(),
    responseBytes: int("response_bytes").notNull(),
  },
  (t) => [primaryKey({ columns: [t.hourAtMs, t.method] })],
);

/**
 * Reconciliations with the chain (src/reconcile): after a restore, or at any start whose treasury
 * history holds a transaction the database does not know, the treasury's transactions since the
 * last one it knows are read and applied. scanning -> applying -> done, or blocked (a treasury
 * transaction the service cannot account for: money stays halted until an operator resumes).
 */
export const reconciliations = sqliteTable(
  "reconciliations",
  {
    id: rowId("id"),
    reason: text("reason", { enum: ["restore", "start"] }).notNull(),
    status: text("status", { enum: ["scanning", "applying", "done", "blocked"] }).notNull(),
    startedAtMs: int("started_at_ms").notNull(),
    finishedAtMs: int("finished_at_ms"),
    /** signatures read from the treasury's history */
    scanned: int("scanned").notNull().default(sql`0`),
    /** transactions to apply (unknown to the database) */
    total: int("total").notNull().default(sql`0`),
    applied: int("applied").notNull().default(sql`0`),
    unknown: int("unknown").notNull().default(sql`0`),
    detail: text("detail"),
  },
  (t) => [
    index("reconciliations_status").on(t.status),
    oneOf(t.reason),
    oneOf(t.status),
    notNegative(t.scanned),
    notNegative(t.total),
    notNegative(t.applied),
    notNegative(t.unknown),
  ],
);

/** The treasury transactions a reconciliation found, oldest first, and what became of each. */
export const reconciliationItems = sqliteTable(
  "reconciliation_items",
  {
    signature: text("signature").primaryKey(),
    reconciliationId: int("reconciliation_id").notNull(),
    /** oldest first within its reconciliation */
    position: int("position").notNull(),
    slot: lamports("slot").notNull(),
    /** pending | applied | ignored (not signed by the treasury, or moved nothing) | unknown (an incident) */
    status: text("status", { enum: ["pending", "applied", "ignored", "unknown"] }).notNull(),
    /** the command key's kind once read */
    kind: text("kind"),
    note: text("note"),
  },
  (t) => [
    index("reconciliation_items_order").on(t.reconciliationId, t.status, t.position),
    oneOf(t.status),
    notNegative(t.slot),
  ],
);

/**
 * Transactions of strangers that only credited the treasury (anyone may send lamports to any
 * address): the treasury neither signed nor paid in them. Read once and kept, so the checks of the
 * treasury's history take them as known (surplus in the proof of reserves) instead of holding money
 * to reconcile them, however many arrive (src/reconcile/credits.ts).
 */
export const treasuryCredits = sqliteTable(
  "treasury_credits",
  {
    signature: text("signature").primaryKey(),
    slot: lamports("slot").notNull(),
    /** what the treasury's balance gained in it (0 for a failed transaction) */
    lamports: lamports("lamports").notNull(),
    recordedAtMs: int("recorded_at_ms").notNull(),
  },
  (t) => [notNegative(t.lamports)],
);
