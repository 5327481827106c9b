/**
 * Proof of liabilities (docs/proof-of-liabilities.md):
 *
 * - `GET /api/proof/liabilities[?at=ISO]`: the published root and total of the latest snapshot
 *   (taken at or before `at`), its leaf count and the signature of the memo anchoring it on chain.
 *   Public, cached like `/api/proof`; never a nonce or an account.
 * - `GET /api/me/proof[?at=ISO]`: the signed-in account's own leaf (with its secret nonce) and its
 *   path to the root. Private, no-store.
 */
import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import { privately, requireSession } from "../auth";
import { CACHE } from "../http/cache";
import { badRequest, notFound } from "../http/errors";
import { errors, Int, IsoTimeSchema, LamportsSchema, NullableString } from "../http/public-schemas";
import { inclusionProof, snapshotAt } from "./service";

const HEX32 = t.String({ pattern: "^[0-9a-f]{64}$", description: "32 bytes, lowercase hex" });

export const LiabilitiesSchema = t.Object(
  {
    at: { ...IsoTimeSchema, description: "the instant the snapshot covers" },
    root: { ...HEX32, description: "hash of the root of the Merkle sum tree" },
    totalLamports: { ...LamportsSchema, description: "the root's sum: owedLamports at that instant" },
    leaves: Int({ minimum: 0, description: "number of leaves (accounts owed something)" }),
    anchorSignature: {
      ...NullableString,
      description:
        "the treasury's Memo transaction `liabilities:<root>:<totalLamports>:<at>`; null until it is confirmed",
    },
  },
  { title: "Liabilities" },
);

const AtQuery = t.Object({
  at: t.Optional(t.String({ maxLength: 40, description: "ISO 8601 time: the latest snapshot taken at or before it" })),
});

function parseAt(raw: string | undefined): number | null {
  if (raw === undefined) return null;
  const ms = /^\d{4}-\d{2}-\d{2}T/.test(raw) ? Date.parse(raw) : Number.NaN;
  if (!Number.isFinite(ms)) throw badRequest("The query parameter 'at' must be an ISO 8601 time.");
  return ms;
}

const NO_SNAPSHOT = "No liability snapshot was taken at or before that time.";

export function liabilityRoutes(ctx: AppContext) {
  return new Elysia({ name: "liabilities" })
    .get(
      "/api/proof/liabilities",
      ({ query, set }) => {
        set.headers["cache-control"] = CACHE.proof;
        const snapshot = snapshotAt(ctx.db, parseAt(query.at));
        if (!snapshot) throw notFound(NO_SNAPSHOT);
        return {
          at: new Date(snapshot.atMs).toISOString(),
          root: snapshot.root,
          totalLamports: snapshot.totalLamports.toString(),
          leaves: snapshot.leafCount,
          anchorSignature: snapshot.anchorSignature,
        };
      },
      {
        query: AtQuery,
        response: { 200: LiabilitiesSchema, ...errors(400, 404, 429) },
        detail: {
          tags: ["public"],
          summary: "Proof of liabilities: the root and total of the Merkle sum tree of what is owed",
          description:
            "Each account owed something is one leaf, SHA-256(0x00 ‖ nonce ‖ u64be(lamports)); each node hashes " +
            "0x01 ‖ left hash ‖ u64be(left sum) ‖ right hash ‖ u64be(right sum). Signed-in recipients get their own " +
            "leaf and path from /api/me/proof and check it against this root (docs/proof-of-liabilities.md).",
        },
      },
    )
    .get(
      "/api/me/proof",
      ({ request, query, set }) =>
        privately(() => {
          set.headers["cache-control"] = CACHE.private;
          const session = requireSession(ctx, request);
          const snapshot = snapshotAt(ctx.db, parseAt(query.at));
          if (!snapshot) throw notFound(NO_SNAPSHOT);
          const proof = inclusionProof(ctx.db, snapshot, session.idpUserId);
          if (!proof) throw notFound("Your account was owed nothing at that snapshot, so it has no leaf in it.");
          return proof;
        }),
      { query: AtQuery, detail: { hide: true } },
    );
}
