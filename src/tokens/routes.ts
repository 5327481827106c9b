/**
 * Public token reads: the Explore list, one token's record and its stored preview image.
 */
import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { CACHE } from "../http/cache";
import { MintParams } from "../http/params";
import { errors, looksLikeAddress } from "../http/public-schemas";
import { AppError } from "../lib/errors";
import { jsonBody, type ReadMemo, readMemo } from "../http/read-memo";
import { cursorSigner, type TokenSort } from "./cursor";
import { listTokens, tokenDetail, tokenImage, vaultStateOf } from "./queries";
import { TOKENS_LIMIT, TokenDetailSchema, TokenListQuerySchema, TokenPageSchema } from "./schemas";
import { refreshVaultIfStale, VAULT_STALE_MS } from "./vault-refresh";

const CONTROL_CHARACTER = /\p{Cc}/u;

/** One token's record as JSON, remembered until the books change or its vault reading needs a refresh. */
async function tokenDetailBody(ctx: AppContext, memo: ReadMemo, mint: string): Promise<Blob> {
  const key = `token\u0000${mint}`;
  const hit = memo.get(key);
  // A remembered answer holds only while its vault reading needs no refresh.
  if (hit && !(ctx.chain && ctx.now() - hit.note > VAULT_STALE_MS)) return hit.body;
  const stored = vaultStateOf(ctx.db, mint);
  if (!stored) throw new AppError("MINT_NOT_LAUNCHED");
  await refreshVaultIfStale(ctx, stored);
  // Rendered once, after any refresh: the body stored under this version is what the database
  // holds at this version (other requests may have written while this one waited). One read
  // transaction: the stamp and the reads see one snapshot, and the WAL's read lock is taken once
  // instead of for each of the five statements (~2 µs each, two file-lock calls apiece).
  const { version, record } = ctx.db.$client
    .transaction(() => ({ version: memo.version(), record: tokenDetail(ctx.db, mint) }))
    .deferred();
  if (!record) throw new AppError("MINT_NOT_LAUNCHED");
  return memo.set(key, version, JSON.stringify(record.detail), Date.parse(record.detail.vaultCheckedAt));
}

export function tokenRoutes(ctx: AppContext) {
  const signer = cursorSigner(ctx.config);
  const memo = readMemo(ctx.db);
  return new Elysia({ name: "tokens" })
    .get(
      "/api/tokens",
      ({ query, set }) => {
        set.headers["cache-control"] = CACHE.publicRead;
        const sort: TokenSort = query.sort ?? "new";
        const q = query.q?.trim() || null;
        const limit = TOKENS_LIMIT.parse(query.limit);
        // Only answers to valid input are remembered, so a hit needs no cursor check (an HMAC).
        const key = `tokens\u0000${sort}\u0000${limit}\u0000${q ?? ""}\u0000${query.cursor ?? ""}`;
        const hit = memo.get(key);
        if (hit) return jsonBody(hit.body, set);
        let after = null;
        if (query.cursor !== undefined) {
          after = signer.decode(query.cursor, sort);
          if (!after) throw new AppError("TOKEN_CURSOR_INVALID");
        }
        // The full-text index cannot parse control characters (a NUL ends its query early).
        if (q !== null && CONTROL_CHARACTER.test(q)) throw new AppError("TOKEN_SEARCH_INVALID");
        const version = memo.version();
        const page = listTokens(ctx.db, { sort, q, limit, after });
        const body = JSON.stringify({ tokens: page.tokens, nextCursor: page.next ? signer.encode(page.next) : null });
        return jsonBody(memo.set(key, version, body), set);
      },
      {
        query: TokenListQuerySchema,
        response: { 200: TokenPageSchema, ...errors(400, 429) },
        detail: {
          tags: ["public"],
          summary: "Explore list of tokens",
          description: "Hidden tokens are left out. The cursor never skips or repeats while launches land.",
        },
      },
    )
    .get(
      "/api/tokens/:mint",
      async ({ params, set }) => {
        set.headers["cache-control"] = CACHE.publicRead;
        if (!looksLikeAddress(params.mint)) throw new AppError("MINT_INVALID");
        return jsonBody(await tokenDetailBody(ctx, memo, params.mint), set);
      },
      {
        params: MintParams,
        response: { 200: TokenDetailSchema, ...errors(400, 404, 429) },
        detail: {
          tags: ["public"],
          summary: "One token's record",
          description: "Hidden tokens answer too. The vault reading is refreshed when older than a minute.",
        },
      },
    )
    .get(
      "/api/token-images/:mint",
      ({ params, set }) => {
        if (!looksLikeAddress(params.mint)) throw new AppError("MINT_INVALID");
        const webp = tokenImage(ctx.db, params.mint);
        if (!webp) throw new AppError("TOKEN_IMAGE_NOT_FOUND");
        set.headers["cache-control"] = CACHE.immutable;
        set.headers["content-type"] = "image/webp";
        return new Response(new Uint8Array(webp), { headers: set.headers as Record<string, string> });
      },
      {
        params: MintParams,
        detail: {
          tags: ["public"],
          summary: "Stored WebP preview of a token image",
          responses: {
            200: {
              description: "WebP image",
              content: { "image/webp": { schema: { type: "string", format: "binary" } } },
            },
            400: { description: "Not a base58 address" },
            404: { description: "No stored image for the token" },
            429: { description: "Rate limited" },
          },
        },
      },
    );
}
