/**
 * What the launch form reads first (`GET /api/launch/config`, fields of DESIGN §5) and the
 * platform token's address (`GET /api/ca`). The creator fee is read live from the launch program,
 * but the form must not hang on a slow node: after a short wait the last value read is served,
 * or null when none has been read yet.
 */
import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import { CACHE } from "../http/cache";
import { errors, Int, LamportsSchema } from "../http/public-schemas";
import { log } from "../lib/log";
import { getLaunchesPaused, getPlatformTokenMint } from "../settings";
import { handlesPinnedAtLaunch } from "./handle-resolver";

const CREATOR_FEE_WAIT_MS = 2_000;
/** A live value younger than this is reused, matching the response's shared-cache lifetime. */
const CREATOR_FEE_REUSE_MS = 10_000;

const LaunchConfigSchema = t.Object(
  {
    launchesOpen: t.Boolean({ description: "false while launches are paused or no chain is configured" }),
    platformBps: Int({ description: "platform share of each sweep for new launches" }),
    maxRecipients: Int(),
    maxFirstBuyLamports: LamportsSchema,
    creatorFeeBps: t.Union([Int(), t.Null()], {
      description: "the launch program's creator fee, read live; null when unknown",
    }),
    maxImageBytes: Int(),
    handlesPinnedAtLaunch: t.Boolean({
      description:
        "true when each named handle is checked on X and pinned to its account at launch; false: pinned when its owner first signs in",
    }),
  },
  { title: "LaunchConfig" },
);

const PlatformTokenSchema = t.Object(
  { mint: t.Union([t.String(), t.Null()], { description: "null until the platform token is published" }) },
  { title: "PlatformToken" },
);

interface FeeMemo {
  bps: number | null;
  readAtMs: number;
  pending: Promise<void> | null;
}

export function launchConfigRoutes(ctx: AppContext) {
  const fee: FeeMemo = { bps: null, readAtMs: 0, pending: null };

  async function creatorFeeBps(): Promise<number | null> {
    const chain = ctx.chain;
    if (!chain) return null;
    if (fee.bps !== null && ctx.now() - fee.readAtMs < CREATOR_FEE_REUSE_MS) return fee.bps;
    fee.pending ??= chain.launchProgram
      .creatorFeeBps()
      .then((bps) => {
        if (Number.isInteger(bps) && bps >= 0 && bps <= 10_000) {
          fee.bps = bps;
          fee.readAtMs = ctx.now();
        }
      })
      .catch((error) => log.warn("creator fee read failed", { error }))
      .finally(() => {
        fee.pending = null;
      });
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      fee.pending,
      new Promise<void>((resolve) => (timer = setTimeout(resolve, CREATOR_FEE_WAIT_MS))),
    ]);
    clearTimeout(timer);
    return fee.bps;
  }

  return new Elysia({ name: "launch-config" })
    .get(
      "/api/launch/config",
      async ({ set }) => {
        set.headers["cache-control"] = CACHE.publicRead;
        return {
          launchesOpen: ctx.chain !== null && !getLaunchesPaused(ctx.db),
          platformBps: ctx.config.platformBps,
          maxRecipients: ctx.config.maxRecipients,
          maxFirstBuyLamports: ctx.config.maxFirstBuyLamports.toString(),
          creatorFeeBps: await creatorFeeBps(),
          maxImageBytes: ctx.config.maxImageBytes,
          handlesPinnedAtLaunch: handlesPinnedAtLaunch(ctx.config),
        };
      },
      {
        response: { 200: LaunchConfigSchema, ...errors(429) },
        detail: { tags: ["public"], summary: "What the launch form reads first" },
      },
    )
    .get(
      "/api/ca",
      ({ set }) => {
        set.headers["cache-control"] = CACHE.publicRead;
        return { mint: getPlatformTokenMint(ctx.db) };
      },
      {
        response: { 200: PlatformTokenSchema },
        detail: { tags: ["public"], summary: "The platform token's address, null until published" },
      },
    );
}
