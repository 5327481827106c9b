/**
 * For tests that drive the running service on its demo over HTTP: the demo's handles, a liveness
 * wait, dev login, and a demo recipient whose balance covers a claim.
 */
import { expect } from "bun:test";

export const DEMO_HANDLES = ["alice_demo", "bob_demo", "carol_demo", "dave_demo", "erin_demo"];

/**
 * Asks `probe` again until it answers something other than null, then returns that: a poll (every
 * 250 ms), never a duration a test relies on; `timeoutMs` only stops one that would never answer.
 * With `retryOnError`, a probe that throws (a process still starting) counts as not yet.
 */
export async function until<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | null>,
  { retryOnError = false } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await (retryOnError ? probe().catch(() => null) : probe());
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(250);
  }
}

/** Dev login as `handle`; the session cookie. */
async function devSignIn(base: string, handle: string): Promise<string> {
  const login = await fetch(`${base}/api/auth/dev-login`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify({ handle }),
  });
  expect(login.status).toBeLessThan(400);
  return (login.headers.get("set-cookie") ?? "").split(";")[0]!;
}

/**
 * A demo handle whose balance covers `minLamports`, signed in. The five handles are read every 2 s
 * at most: 150 account reads a minute would pass the route's limit of 120 and be refused.
 */
export async function demoClaimant(
  base: string,
  minLamports: bigint,
  { exclude = [] as readonly string[], timeoutMs = 120_000 } = {},
): Promise<{ handle: string; cookie: string }> {
  return until(
    "a demo balance to claim",
    timeoutMs,
    async () => {
      for (const handle of DEMO_HANDLES) {
        if (exclude.includes(handle)) continue;
        const res = await fetch(`${base}/api/idp/${handle}`);
        if (res.status !== 200) continue;
        const { balanceLamports } = (await res.json()) as { balanceLamports: string };
        if (BigInt(balanceLamports) >= minLamports) return { handle, cookie: await devSignIn(base, handle) };
      }
      await Bun.sleep(2_000);
      return null;
    },
    { retryOnError: true },
  );
}
