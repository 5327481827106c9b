/**
 * Proof of liabilities (docs/proof-of-liabilities.md):
 *
 * - `GET /api/proof/liabilities[?at=ISO]`: the published root and total of the latest snapshot
 *   (taken at or before `at`), its leaf count and the signature of the memo anchoring it on chain.
 *   Public, cached like `/api/proof`; never a nonce or an account.
 * - `GET /api/me/proof[?at=ISO]`: the signed-in account's own leaf (with its secret nonce) and its
 *   path to the root. Private, no-store. A snapshot never changes, so an account's proof in it is
 *   remembered (the last PROOFS_KEPT asked, in this process only): asking again, for any past
 *   snapshot, rebuilds no tree. Nothing of it reaches a shared cache.
 */
import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import { privately, requireSession } from "../auth";
import { CACHE } from "../http/cache";
import { AppError } from "../lib/errors";
import { isoTimeMs, isoTimeQuery } from "../http/params";
import { errors, Int, IsoTimeSchema, LamportsSchema, NullableString } from "../http/public-schemas";
import { inclusionProof, type SnapshotSummary, snapshotAt } from "./service";

const HEX32 = t.String({ pattern: "^[0-9a-f]{64}$", description: "32 bytes, lowercase hex" });

const LiabilitiesSchema = t.Object(
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
  at: isoTimeQuery("ISO 8601 time: the latest snapshot taken at or before it"),
});

function parseAt(raw: string | undefined): number | null {
  if (raw === undefined) return null;
  const ms = isoTimeMs(raw);
  if (ms === null) throw new AppError("LIABILITY_AT_INVALID");
  return ms;
}

/** Proofs remembered, each a few KB (its path has one node per level of the tree). */
const PROOFS_KEPT = 2_000;

type Proof = NonNullable<ReturnType<typeof inclusionProof>>;

const keyOf = (snapshot: SnapshotSummary, idpUserId: string) =>
  `${snapshot.id}\u0000${snapshot.root}\u0000${idpUserId}`;

/** The proofs last asked for, by snapshot and account, least recently asked first. */
class ProofMemo {
  private readonly proofs = new Map<string, Proof>();

  /** Keyed by the snapshot's root too: a row id alone could in principle be reused. */
  get(snapshot: SnapshotSummary, idpUserId: string): Proof | undefined {
    const key = keyOf(snapshot, idpUserId);
    const proof = this.proofs.get(key);
    if (proof) {
      this.proofs.delete(key);
      this.proofs.set(key, proof);
    }
    return proof;
  }

  set(snapshot: SnapshotSummary, idpUserId: string, proof: Proof): void {
    this.proofs.set(keyOf(snapshot, idpUserId), proof);
    if (this.proofs.size > PROOFS_KEPT) this.proofs.delete(this.proofs.keys().next().value!);
  }
}

export function liabilityRoutes(ctx: AppContext) {
  const proofs = new ProofMemo();
  return new Elysia({ name: "liabilities" })
    .get(
      "/api/proof/liabilities",
      ({ query, set }) => {
        set.headers["cache-control"] = CACHE.proof;
        const snapshot = snapshotAt(ctx.db, parseAt(query.at));
        if (!snapshot) throw new AppError("LIABILITY_SNAPSHOT_NOT_FOUND");
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
          if (!snapshot) throw new AppError("LIABILITY_SNAPSHOT_NOT_FOUND");
          const kept = proofs.get(snapshot, session.idpUserId);
          if (kept) return kept;
          const proof = inclusionProof(ctx.db, snapshot, session.idpUserId);
          if (!proof) throw new AppError("LIABILITY_LEAF_NOT_FOUND");
          proofs.set(snapshot, session.idpUserId, proof);
          return proof;
        }),
      { query: AtQuery, detail: { hide: true } },
    );
}
