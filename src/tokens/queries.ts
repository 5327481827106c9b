/**
 * Reads behind `GET /api/tokens` and `GET /api/tokens/:mint`: a keyset page over one of the three
 * sort indexes, then the page's recipients and their credits in two batched queries, so a page
 * costs a fixed number of statements whatever its length.
 */
import type { Db } from "../../db/client";
import { sweeps, tokens } from "../../db/schema";
import { columnsOf, query, statement, type TableRow } from "../../db/statement";
import { handleKey, isoMs, isoMsOrNull, looksLikeAddress } from "../http/public-schemas";
import type { CursorPosition, TokenSort } from "./cursor";
import { FEE_SHARING_COLUMN, feeSharingFromJson } from "./fee-sharing";
import type { Recipient, Token, TokenDetail } from "./schemas";
import type { StaleToken } from "./vault-refresh";

export type { Recipient, Token, TokenDetail };

const SWEEPS_IN_DETAIL = 25;

/** Columns of a Token, as every list and detail query selects them. */
const TOKEN_COLUMNS = `t.id, t.mint, t.name, t.symbol, t.image_uri AS imageUri,
  EXISTS (SELECT 1 FROM token_images i WHERE i.token_id = t.id) AS hasImage,
  t.creator, t.deployer, t.launched_at_ms AS launchedAtMs, t.platform_bps AS platformBps,
  t.swept_lamports AS sweptLamports, t.vault_lamports AS vaultLamports, t.vault_checked_at_ms AS vaultCheckedAtMs,
  t.fees_lamports AS feesLamports, t.bonded, t.market_cap_usd AS marketCapUsd, t.volume_24h_usd AS volume24hUsd,
  t.last_swept_at_ms AS lastSweptAtMs, ${FEE_SHARING_COLUMN}`;

interface TokenRow {
  id: bigint;
  mint: string;
  name: string;
  symbol: string;
  imageUri: string | null;
  hasImage: bigint;
  creator: string;
  deployer: string;
  launchedAtMs: bigint;
  platformBps: bigint;
  sweptLamports: bigint;
  vaultLamports: bigint;
  vaultCheckedAtMs: bigint;
  feesLamports: bigint;
  bonded: bigint;
  marketCapUsd: number | null;
  volume24hUsd: number | null;
  lastSweptAtMs: bigint | null;
  feeSharingJson: string | null;
}

interface DetailRow extends TokenRow {
  description: string;
  website: string | null;
  twitter: string | null;
  telegram: string | null;
  metadataUri: string;
  launchSignature: string;
  creatorVault: string;
  hidden: bigint;
  creatorIndex: bigint;
}

const SWEEP_FIELDS = [
  "id",
  "signature",
  "status",
  "totalLamports",
  "platformLamports",
  "createdAtMs",
  "confirmedAtMs",
] as const;
type SweepRow = Pick<TableRow<typeof sweeps>, (typeof SWEEP_FIELDS)[number]>;

interface IdRow {
  id: bigint;
}

interface RecipientRow {
  tokenId: bigint;
  handle: string;
  displayHandle: string;
  bps: bigint;
  name: string | null;
  avatarUrl: string | null;
  firstSignInAtMs: bigint | null;
  routing: Recipient["routing"];
  declined: bigint | null;
  creditedLamports: bigint;
}

// ---------------------------------------------------------------- list

export interface TokenListQuery {
  sort: TokenSort;
  q: string | null;
  limit: number;
  after: CursorPosition | null;
}

export interface TokenPage {
  tokens: Token[];
  /** the position of the last token when more may follow */
  next: CursorPosition | null;
}

const ORDER: Record<TokenSort, string> = {
  new: "t.launched_at_ms DESC, t.mint DESC",
  fees: "t.fees_lamports DESC, t.mint DESC",
  mcap: "t.market_cap_usd DESC, t.mint DESC",
};

/** Up to this many matches, a search reads its matches and sorts them; past it, it walks the sort index. */
const MINT_PREFIX = /^[1-9A-HJ-NP-Za-km-z]{4,44}$/;
const SEARCH_LIST_MAX = 2000;

interface SearchPlan {
  /** joined before `tokens t` when the matches are few: the page is read from them alone */
  from: string;
  /** a filter on `t` when the matches are many: the sort index is walked and stops early */
  where: string | null;
  params: Bind;
}

/**
 * The `q` filter: exact mint or creator, the start of a recipient handle (with or without '@': a
 * range on the handle index), or a substring of name or ticker through the trigram index from
 * three characters on. Few matches (an address,
 * a handle, a rare word) are read by id and sorted; many are found by walking the sort index,
 * which then stops after a page. One or two characters cannot use a trigram, but match so many
 * tokens that the walk stops early too. A ticker may be typed as the page shows it ("$CMT"), and
 * four or more base58 characters also match the start of a mint (a range on the mint index).
 */
function searchPlan(db: Db, typed: string): SearchPlan {
  const q = typed.length > 1 && typed.startsWith("$") ? typed.slice(1) : typed;
  const short = [...q].length < 3;
  const key = handleKey(q);
  // Handles are lowercase letters, digits and "_", all below "{": [key, key + "{") holds every handle starting with key.
  const handle = key ? { qHandle: key, qHandleEnd: `${key}{` } : null;
  const address = looksLikeAddress(q);
  // Every base58 character sorts below "{", so [prefix, prefix + "{") holds exactly the mints starting with it.
  const mintPrefix = MINT_PREFIX.test(q) ? { qPrefix: q, qPrefixEnd: `${q}{` } : null;
  const phrase = `"${q.replaceAll('"', '""')}"`;
  if (!short) {
    const ids = matchIds(db, { q, handle, address, mintPrefix, phrase });
    if (ids.size <= SEARCH_LIST_MAX) {
      // CROSS JOIN fixes the join order: read the matches, never walk the whole index for them.
      return {
        from: "json_each($qIds) j CROSS JOIN tokens t ON t.id = j.value",
        where: null,
        params: { qIds: JSON.stringify([...ids]) },
      };
    }
  }
  const terms: string[] = [];
  const params: Bind = {};
  if (address) {
    params.qExact = q;
    terms.push("t.mint = $qExact", "t.creator = $qExact");
  }
  if (handle) {
    Object.assign(params, handle);
    terms.push(HANDLE_PREFIX_TERM);
  }
  if (mintPrefix) {
    Object.assign(params, mintPrefix);
    terms.push("(t.mint >= $qPrefix AND t.mint < $qPrefixEnd)");
  }
  if (short) {
    params.qLower = q.toLowerCase();
    terms.push("instr(lower(t.name), $qLower) > 0", "instr(lower(t.symbol), $qLower) > 0");
  } else {
    params.qPhrase = phrase;
    terms.push("t.id IN (SELECT rowid FROM tokens_search WHERE tokens_search MATCH $qPhrase)");
  }
  return { from: "tokens t", where: `(${terms.join(" OR ")})`, params };
}

const idsOfAddress = statement<IdRow, [{ q: string }]>(
  "SELECT id FROM tokens WHERE mint = $q UNION SELECT id FROM tokens WHERE creator = $q",
);
/** Tokens naming a handle that starts with `$qHandle`, as a filter while walking a sort index. */
export const HANDLE_PREFIX_TERM =
  "t.id IN (SELECT r.token_id FROM token_recipients r WHERE r.handle >= $qHandle AND r.handle < $qHandleEnd)";
/** The same tokens' ids, read from the handle index (DISTINCT: a token naming two of them counts once). */
export const HANDLE_PREFIX_IDS_SQL = `SELECT DISTINCT token_id AS id FROM token_recipients
  WHERE handle >= $qHandle AND handle < $qHandleEnd LIMIT ${SEARCH_LIST_MAX + 1}`;
const idsOfHandlePrefix = statement<IdRow, [{ qHandle: string; qHandleEnd: string }]>(HANDLE_PREFIX_IDS_SQL);
const idsOfMintPrefix = statement<IdRow, [{ qPrefix: string; qPrefixEnd: string }]>(
  `SELECT id FROM tokens WHERE mint >= $qPrefix AND mint < $qPrefixEnd LIMIT ${SEARCH_LIST_MAX + 1}`,
);
const idsOfPhrase = statement<IdRow, [{ phrase: string }]>(
  `SELECT rowid AS id FROM tokens_search WHERE tokens_search MATCH $phrase LIMIT ${SEARCH_LIST_MAX + 1}`,
);

/** The ids of the tokens a search matches, up to a little past SEARCH_LIST_MAX per kind of match. */
function matchIds(
  db: Db,
  m: {
    q: string;
    handle: { qHandle: string; qHandleEnd: string } | null;
    address: boolean;
    mintPrefix: { qPrefix: string; qPrefixEnd: string } | null;
    phrase: string;
  },
): Set<number> {
  const ids = new Set<number>();
  const collect = (rows: readonly IdRow[]) => {
    for (const r of rows) ids.add(Number(r.id));
  };
  if (m.address) collect(idsOfAddress(db).all({ q: m.q }));
  if (m.handle) collect(idsOfHandlePrefix(db).all(m.handle));
  if (m.mintPrefix) collect(idsOfMintPrefix(db).all(m.mintPrefix));
  collect(idsOfPhrase(db).all({ phrase: m.phrase }));
  return ids;
}

type Bind = Record<string, string | number | bigint | null>;

function selectPage(db: Db, from: string, where: string[], order: string, limit: number, params: Bind): TokenRow[] {
  const sql = `SELECT ${TOKEN_COLUMNS} FROM ${from} WHERE ${where.join(" AND ")} ORDER BY ${order} LIMIT $limit`;
  return query<TokenRow, [Bind]>(db, sql).all({ ...params, limit });
}

export function listTokens(db: Db, query: TokenListQuery): TokenPage {
  const filter: PageFilter = { from: "tokens t", where: ["t.hidden = 0"], params: {} };
  if (query.q !== null && query.q !== "") {
    const plan = searchPlan(db, query.q);
    filter.from = plan.from;
    if (plan.where) filter.where.push(plan.where);
    Object.assign(filter.params, plan.params);
  }
  const want = query.limit + 1;
  const rows =
    query.sort === "mcap"
      ? mcapRows(db, filter, query.after, want)
      : keyedRows(db, filter, query.sort, query.after, want);

  const more = rows.length > query.limit;
  const pageRows = more ? rows.slice(0, query.limit) : rows;
  const recipients = recipientsOf(
    db,
    pageRows.map((row) => Number(row.id)),
  );
  const tokens = pageRows.map((row) => toToken(row, recipients.get(Number(row.id)) ?? []));
  const last = pageRows[pageRows.length - 1];
  return { tokens, next: more && last ? positionOf(query.sort, last) : null };
}

/** Which tokens a page is read from: the table or the search's matches, and the filters on them. */
interface PageFilter {
  from: string;
  where: string[];
  params: Bind;
}

/**
 * Unknown caps come last, by fees (most first; by mint they looked random). Two range scans (known
 * caps on the cap index, then unknown ones on the fees index, as the fees sort reads it) keep a
 * deep page a seek, where one OR'd condition would walk every earlier row. The cursor's key says
 * which part it is in: a cap (a number) or, past them, the fees (a decimal string).
 */
function mcapRows(db: Db, filter: PageFilter, after: CursorPosition | null, want: number): TokenRow[] {
  let rows: TokenRow[] = [];
  if (!after || typeof after.key === "number") {
    const known = [...filter.where, "t.market_cap_usd IS NOT NULL"];
    const p: Bind = { ...filter.params };
    if (after) {
      known.push("(t.market_cap_usd, t.mint) < ($afterKey, $afterMint)");
      p.afterKey = after.key as number;
      p.afterMint = after.mint;
    }
    rows = selectPage(db, filter.from, known, ORDER.mcap, want, p);
  }
  if (rows.length < want) {
    const unknown = [...filter.where, "t.market_cap_usd IS NULL"];
    const p: Bind = { ...filter.params };
    if (after && typeof after.key === "string") {
      unknown.push("(t.fees_lamports, t.mint) < ($afterKey, $afterMint)");
      p.afterKey = BigInt(after.key);
      p.afterMint = after.mint;
    }
    rows = rows.concat(selectPage(db, filter.from, unknown, ORDER.fees, want - rows.length, p));
  }
  return rows;
}

/** A page of the `new` or `fees` order: one range scan of its index from the cursor on. */
function keyedRows(
  db: Db,
  filter: PageFilter,
  sort: "new" | "fees",
  after: CursorPosition | null,
  want: number,
): TokenRow[] {
  const where = [...filter.where];
  const p: Bind = { ...filter.params };
  if (after) {
    where.push(
      sort === "new"
        ? "(t.launched_at_ms, t.mint) < ($afterKey, $afterMint)"
        : "(t.fees_lamports, t.mint) < ($afterKey, $afterMint)",
    );
    p.afterKey = sort === "new" ? (after.key as number) : BigInt(after.key as string);
    p.afterMint = after.mint;
  }
  return selectPage(db, filter.from, where, ORDER[sort], want, p);
}

/** The cursor position of a page's last token. */
function positionOf(sort: TokenSort, last: TokenRow): CursorPosition {
  return {
    sort,
    key:
      sort === "new"
        ? Number(last.launchedAtMs)
        : sort === "fees" || last.marketCapUsd === null
          ? BigInt(last.feesLamports).toString()
          : last.marketCapUsd,
    mint: last.mint,
  };
}

// ---------------------------------------------------------------- detail

export interface TokenDetailRecord {
  tokenId: number;
  creatorIndex: number;
  detail: TokenDetail;
}

const VAULT_STATE_FIELDS = [
  "id",
  "mint",
  "creator",
  "creatorVault",
  "poolVault",
  "vaultCheckedAtMs",
  "lastSweptAtMs",
] as const;
type VaultStateRow = Pick<TableRow<typeof tokens>, (typeof VAULT_STATE_FIELDS)[number]>;
const vaultStateOfMint = statement<VaultStateRow, [{ mint: string }]>(
  `SELECT ${columnsOf(tokens, { only: VAULT_STATE_FIELDS })} FROM tokens WHERE mint = $mint`,
);

/** What the detail's vault refresh needs of a token: one indexed row, so a refresh never costs a second render. */
export function vaultStateOf(db: Db, mint: string): StaleToken | null {
  const row = vaultStateOfMint(db).get({ mint });
  if (!row) return null;
  return {
    tokenId: Number(row.id),
    mint: row.mint,
    creator: row.creator,
    // Recorded at launch together (migration 0013); a row from before has no pool vault.
    vaults: row.poolVault === null ? null : { curveVault: row.creatorVault, poolVault: row.poolVault },
    vaultCheckedAtMs: Number(row.vaultCheckedAtMs),
    lastSweptAtMs: row.lastSweptAtMs === null ? null : Number(row.lastSweptAtMs),
  };
}

const detailOfMint = statement<DetailRow, [{ mint: string }]>(
  `SELECT ${TOKEN_COLUMNS}, t.description, t.website, t.twitter, t.telegram, t.metadata_uri AS metadataUri,
          t.launch_signature AS launchSignature, t.creator_vault AS creatorVault, t.creator_index AS creatorIndex
     FROM tokens t WHERE t.mint = $mint`,
);

const latestSweeps = statement<SweepRow, [{ tokenId: number }]>(
  `SELECT ${columnsOf(sweeps, { alias: "s", only: SWEEP_FIELDS })}
     FROM sweeps s WHERE s.token_id = $tokenId ORDER BY s.id DESC LIMIT ${SWEEPS_IN_DETAIL}`,
);

export function tokenDetail(db: Db, mint: string): TokenDetailRecord | null {
  const row = detailOfMint(db).get({ mint });
  if (!row) return null;
  const tokenId = Number(row.id);
  const recipients = recipientsOf(db, [tokenId]).get(tokenId) ?? [];
  const sweepRows = latestSweeps(db).all({ tokenId });
  const detail: TokenDetail = {
    ...toToken(row, recipients),
    description: row.description,
    website: row.website,
    twitter: row.twitter,
    telegram: row.telegram,
    metadataUri: row.metadataUri,
    launchSignature: row.launchSignature,
    creatorVault: row.creatorVault,
    sweeps: sweepRows.map((s) => ({
      id: Number(s.id),
      mint: row.mint,
      symbol: row.symbol,
      signature: s.signature,
      status: s.status,
      // SPEC: zero until confirmed and for a failed sweep, whatever a row may hold.
      totalLamports: s.status === "confirmed" ? BigInt(s.totalLamports).toString() : "0",
      platformLamports: s.status === "confirmed" ? BigInt(s.platformLamports).toString() : "0",
      createdAt: isoMs(s.createdAtMs),
      confirmedAt: s.status === "confirmed" ? isoMsOrNull(s.confirmedAtMs) : null,
    })),
  };
  return { tokenId, creatorIndex: Number(row.creatorIndex), detail };
}

const imageOfMint = statement<{ webp: Uint8Array }, [{ mint: string }]>(
  "SELECT i.webp FROM tokens t JOIN token_images i ON i.token_id = t.id WHERE t.mint = $mint",
);

export function tokenImage(db: Db, mint: string): Uint8Array | null {
  const row = imageOfMint(db).get({ mint });
  return row?.webp ?? null;
}

// ---------------------------------------------------------------- shared

const recipientsOfTokens = statement<RecipientRow, [{ ids: string }]>(
  `SELECT r.token_id AS tokenId, r.handle, r.display_handle AS displayHandle, r.bps,
          h.name, h.avatar_url AS avatarUrl, i.first_sign_in_at_ms AS firstSignInAtMs, i.routing, i.declined,
          COALESCE(c.credited_lamports, 0) AS creditedLamports
     FROM token_recipients r INDEXED BY token_recipients_listed
     LEFT JOIN handles h INDEXED BY handles_recipient ON h.handle = r.handle
     LEFT JOIN identities i INDEXED BY identities_recipient ON i.idp_user_id = h.idp_user_id
     LEFT JOIN ledger_recipient_credits c INDEXED BY ledger_recipient_credits_listed
            ON c.token_id = r.token_id AND c.handle = r.handle
    WHERE r.token_id IN (SELECT value FROM json_each($ids))
    ORDER BY r.token_id, r.position`,
);

/**
 * Recipients of several tokens with their profiles, sign-in state and per-token credits. The
 * credits are the ledger's projection (`ledger_recipient_credits`, kept with every sweep credit), so
 * a page of busy tokens reads one row per recipient, not every entry of every sweep. Every table is
 * read from a covering index it names (migration 0012, see `handles_recipient` in db/schema.ts).
 */
function recipientsOf(db: Db, tokenIds: readonly number[]): Map<number, Recipient[]> {
  const out = new Map<number, Recipient[]>();
  if (tokenIds.length === 0) return out;
  const rows = recipientsOfTokens(db).all({ ids: JSON.stringify(tokenIds) });
  for (const row of rows) {
    const tokenId = Number(row.tokenId);
    const claimed = row.firstSignInAtMs !== null;
    let list = out.get(tokenId);
    if (!list) {
      list = [];
      out.set(tokenId, list);
    }
    list.push({
      handle: row.handle,
      displayHandle: row.displayHandle,
      bps: Number(row.bps),
      name: row.name ?? row.displayHandle,
      avatarUrl: row.avatarUrl ?? "",
      claimed,
      routing: claimed ? row.routing : null,
      declined: claimed && Number(row.declined ?? 0) === 1,
      creditedLamports: BigInt(row.creditedLamports).toString(),
    });
  }
  return out;
}

/** The stored preview when there is one, otherwise the image address the launch gave. */
export function imageUrlOf(mint: string, hasImage: boolean, imageUri: string | null): string | null {
  return hasImage ? `/api/token-images/${mint}` : imageUri;
}

function toToken(row: TokenRow, recipients: Recipient[]): Token {
  return {
    mint: row.mint,
    name: row.name,
    symbol: row.symbol,
    imageUrl: imageUrlOf(row.mint, Number(row.hasImage) === 1, row.imageUri),
    creator: row.creator,
    deployer: row.deployer,
    launchedAt: isoMs(row.launchedAtMs),
    recipients,
    platformBps: Number(row.platformBps),
    sweptLamports: BigInt(row.sweptLamports).toString(),
    vaultLamports: BigInt(row.vaultLamports).toString(),
    vaultCheckedAt: isoMs(row.vaultCheckedAtMs),
    bonded: Number(row.bonded) === 1,
    marketCapUsd: row.marketCapUsd === null ? null : Number(row.marketCapUsd),
    volume24hUsd: row.volume24hUsd === null ? null : Number(row.volume24hUsd),
    lastSweptAt: isoMsOrNull(row.lastSweptAtMs),
    feeSharing: feeSharingFromJson(row.feeSharingJson),
  };
}
