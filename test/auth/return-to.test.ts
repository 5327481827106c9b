/**
 * Issue 43, finding 8: `returnTo` is checked again after it is normalised, so a path whose dot
 * segments collapse into `//host` (a scheme-relative address to another site) is refused, and a
 * sign-in never comes back anywhere but this site's own paths.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { safeReturnTo } from "../../src/auth/oauth-state";
import { fakeUser, startFakeIdp, type FakeIdp } from "../fakes/idp";
import type { TestService } from "../helpers/service";
import { ORIGIN, serviceWith, signInThroughIdp } from "../accounts/support";

let idp: FakeIdp;
let svc: TestService | null = null;

beforeAll(() => {
  idp = startFakeIdp();
  idp.users.set("2001", fakeUser("2001", "carol"));
});
afterAll(() => idp.stop());
afterEach(async () => {
  await svc?.cleanup();
  svc = null;
});

const SNEAKY = ["/..//evil.example", "/a/../..//evil.example/x", "/./..//evil.example", "/%2e%2e//evil.example"];

describe("returnTo after normalising", () => {
  test("dot segments that collapse into //host are refused", () => {
    for (const raw of SNEAKY) expect({ raw, kept: safeReturnTo(raw, ORIGIN) }).toEqual({ raw, kept: null });
    // Dot segments that stay on this site are still fine, normalised.
    expect(safeReturnTo("/a/../me?x=1", ORIGIN)).toBe("/me?x=1");
  });

  test("the sign-in start answers 400 for them, and a sign-in comes back to this site only", async () => {
    svc = serviceWith({ ...idp.env }).svc;
    for (const raw of SNEAKY) {
      const r = await svc.json(`/api/auth/idp/start?returnTo=${encodeURIComponent(raw)}`);
      expect({ raw, status: r.status }).toEqual({ raw, status: 400 });
      expect(Object.keys(r.body)).toEqual(["error"]);
    }
    const round = await signInThroughIdp(svc, idp, "2001", "/a/../me");
    expect(round.callback.headers.get("location")).toBe(`${ORIGIN}/me`);
  });
});
