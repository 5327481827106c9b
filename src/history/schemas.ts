/** The public JSON of the history reads; the point and entry types of queries.ts are derived from it. */
import { t, type Static } from "elysia";
import { Int, IsoTimeSchema, LamportsSchema } from "../http/public-schemas";

export const TokenHistorySchema = t.Object(
  {
    points: t.Array(
      t.Object(
        {
          day: t.String({ pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}$", description: "UTC day" }),
          sweptLamports: {
            ...LamportsSchema,
            description: "confirmed sweeps that day, recipients' and platform's parts together",
          },
          platformLamports: { ...LamportsSchema, description: "the platform's part of sweptLamports" },
          sweeps: Int({ minimum: 1 }),
        },
        { title: "TokenHistoryPoint" },
      ),
      { description: "one point per UTC day with a confirmed sweep, oldest first" },
    ),
  },
  { title: "TokenHistory" },
);

export const ProofHistorySchema = t.Object(
  {
    points: t.Array(
      t.Object(
        {
          at: IsoTimeSchema,
          treasuryLamports: LamportsSchema,
          owedLamports: LamportsSchema,
          surplusLamports: t.String({ pattern: "^-?[0-9]+$", description: "treasury minus owed; negative when short" }),
          solvent: t.Boolean(),
        },
        { title: "SolvencyPoint" },
      ),
      { description: "oldest first; a long window shows each stretch's lowest surplus" },
    ),
  },
  { title: "ProofHistory" },
);

export const HandleHistorySchema = t.Object(
  {
    entries: t.Array(
      t.Object(
        {
          handle: t.String(),
          displayHandle: t.String(),
          pinnedAt: IsoTimeSchema,
          event: t.Union([t.Literal("pinned"), t.Literal("renamed")]),
        },
        { title: "HandleHistoryEntry" },
      ),
      { description: "newest first; empty while the handle is pinned to no account" },
    ),
  },
  { title: "HandleHistory" },
);

export type TokenHistoryPoint = Static<typeof TokenHistorySchema>["points"][number];
export type SolvencyPoint = Static<typeof ProofHistorySchema>["points"][number];
export type HandleHistoryEntry = Static<typeof HandleHistorySchema>["entries"][number];
