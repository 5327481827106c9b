/**
 * The on-request vault refresh of token detail (SPEC: when the stored reading is over a minute
 * old, wait at most a few seconds for the node, else serve the stored reading). One reading per
 * mint is in flight at a time, so a busy page does not multiply node calls; a reading is written
 * only if no sweep or other reading landed since it was taken, so a slow answer can never
 * overwrite a newer figure or count swept fees twice.
 */
import type { AppContext } from "../context";
import { log } from "../lib/log";
import { unsweptLamports } from "./readings";
import { storeVaultReadingIfUnchanged } from "./records";
import { writeWithoutWaiting } from "../../db/write-without-waiting";

export const VAULT_STALE_MS = 60_000;
export const VAULT_REFRESH_WAIT_MS = 3_000;

interface StoredReading {
  vaultCheckedAtMs: number;
  lastSweptAtMs: number | null;
}

const inFlight = new WeakMap<AppContext, Map<string, Promise<boolean>>>();

/** True when a fresh reading was written (the caller reads the token again). */
export async function refreshVaultIfStale(
  ctx: AppContext,
  token: { tokenId: number; mint: string; creator: string; vaultCheckedAtMs: number; lastSweptAtMs: number | null },
  waitMs = VAULT_REFRESH_WAIT_MS,
): Promise<boolean> {
  const chain = ctx.chain;
  if (!chain || ctx.now() - token.vaultCheckedAtMs <= VAULT_STALE_MS) return false;
  let perMint = inFlight.get(ctx);
  if (!perMint) {
    perMint = new Map();
    inFlight.set(ctx, perMint);
  }
  let reading = perMint.get(token.mint);
  if (!reading) {
    const seen: StoredReading = { vaultCheckedAtMs: token.vaultCheckedAtMs, lastSweptAtMs: token.lastSweptAtMs };
    reading = chain.launchProgram
      .readVaults([{ mint: token.mint, creator: token.creator }])
      .then((readings) => {
        const r = readings.find((x) => x.mint === token.mint);
        if (!r) return false;
        const reading = { vaultLamports: unsweptLamports(r), bonded: r.bonded, checkedAtMs: ctx.now() };
        // A cached reading: never waits for the jobs' write lock (null when it is held).
        return (
          writeWithoutWaiting(ctx.db, () => storeVaultReadingIfUnchanged(ctx.db, token.tokenId, reading, seen)) ?? false
        );
      })
      .catch((error) => {
        log.warn("vault refresh failed", { mint: token.mint, error });
        return false;
      })
      .finally(() => perMint!.delete(token.mint));
    perMint.set(token.mint, reading);
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), waitMs);
  });
  try {
    return await Promise.race([reading, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
