/**
 * Handles pinned at launch (issue 18, DESIGN §3 "or earlier, when the provider can be asked"): with
 * an app-only X token the launch intent resolves every named handle to its X user id through the
 * users-by-username lookup (the local fake provider serves it), refuses one that does not exist,
 * and the confirmed launch pins each handle to that id. A handle whose owner renames before ever
 * signing in, taken by someone else, keeps its credit with the original id. Without the token the
 * launch behaves as before and the launch config says handles are pinned at first sign-in.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import bs58 from "bs58";
import { accountFigures } from "../../src/ledger/figures";
import { verifyLedger } from "../../src/ledger/verify";
import { signInThroughIdp, sweep } from "../accounts/support";
import { fakeUser, startFakeIdp, type FakeIdp } from "../fakes/idp";
import { testService, type TestService } from "../helpers/service";
import {
  draft,
  jsonPost,
  localLaunchChain,
  png,
  prepare,
  signReturned,
  upload,
  type LocalLaunchChain,
} from "./support";

const SITE = "http://localhost";
const SOL = 1_000_000_000n;
let chain: LocalLaunchChain;
let idp: FakeIdp;
let svc: TestService;

beforeAll(async () => {
  chain = await localLaunchChain();
  idp = startFakeIdp();
});
afterAll(async () => {
  await idp.stop();
  await chain.stop();
});
afterEach(async () => {
  await svc?.cleanup();
  idp.users.clear();
  idp.usernameLookups.length = 0;
  idp.failUsernameLookups = false;
});

const service = (env: Record<string, string>) =>
  (svc = testService(
    { PUBLIC_URL: SITE, RPC_URL: chain.local.rpcUrl, RATE_LIMIT: "0", ...env },
    { chain: chain.services },
  ));

/** Prepare, upload, sign and send the create, confirm: the launched token's record. */
async function launch(d: unknown) {
  const wallet = Keypair.generate();
  chain.local.node.fund(wallet.publicKey, 20_000_000_000n);
  const mint = Keypair.generate();
  const image = await png();
  const intent = await prepare(svc, wallet, mint, image, d);
  expect(intent.status).toBe(200);
  const metadata = await upload(svc, intent.body, wallet, image);
  expect(metadata.status).toBe(200);
  const tx = signReturned(metadata.body.transactions[0], [wallet, mint]);
  chain.local.node.sendWire(tx.serialize(), { skipPreflight: true });
  chain.local.node.advanceSlots(1);
  const done = await svc.json(
    "/api/launch/confirm",
    jsonPost({ intent: intent.body.intent, signature: bs58.encode(tx.signatures[0]!) }),
  );
  expect(done.status).toBe(200);
  expect(done.body.status).toBe("confirmed");
  return done.body.token as { mint: string; recipients: { handle: string; claimed: boolean; name: string }[] };
}

const pinOf = (handle: string) =>
  (
    svc.ctx.db.$client.query("SELECT idp_user_id AS id FROM handles WHERE handle = ?").get(handle) as {
      id: string | null;
    } | null
  )?.id ?? null;
const tokenIdOf = (mint: string) =>
  Number((svc.ctx.db.$client.query("SELECT id FROM tokens WHERE mint = ?").get(mint) as { id: bigint }).id);

describe("with an app-only X token (IDP_APP_BEARER)", () => {
  test("a handle that does not exist on X is refused at the intent, naming it; nothing is stored", async () => {
    service({ ...idp.env, ...idp.appEnv });
    idp.users.set("4001", fakeUser("4001", "Alice_1"));
    const res = await prepare(svc, Keypair.generate(), Keypair.generate(), await png(), draft());
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("The handle @bob does not exist on X.");
    expect(idp.usernameLookups.map((u) => u.toLowerCase()).sort()).toEqual(["alice_1", "bob"]);
    expect(svc.ctx.db.$client.query("SELECT COUNT(*) AS n FROM launch_intents").get()).toEqual({ n: 0n });
    expect((await svc.json("/api/launch/config")).body.handlesPinnedAtLaunch).toBe(true);
  });

  test("503 when X cannot be asked: no launch on a guess", async () => {
    service({ ...idp.env, ...idp.appEnv });
    idp.failUsernameLookups = true;
    const res = await prepare(svc, Keypair.generate(), Keypair.generate(), await png(), draft());
    expect(res.status).toBe(503);
    expect(JSON.stringify(res.body)).not.toContain("fake-app-bearer");
  });

  test("handles are pinned at launch; a handle that changed hands before its owner signed in keeps its credit with the original id", async () => {
    service({ ...idp.env, ...idp.appEnv });
    idp.users.set("4001", fakeUser("4001", "Alice_1"));
    idp.users.set("4002", fakeUser("4002", "bob"));
    const token = await launch(draft());
    // pinned at launch, not claimed (nobody signed in); the profile is X's
    expect(pinOf("alice_1")).toBe("4001");
    expect(pinOf("bob")).toBe("4002");
    expect(token.recipients.map((r) => [r.handle, r.claimed, r.name])).toEqual([
      ["alice_1", false, "Alice_1 (name)"],
      ["bob", false, "bob (name)"],
    ]);

    // fees accrue: the credit belongs to the ids, not to the handles
    sweep(svc.ctx.db, tokenIdOf(token.mint), SOL);
    const aliceCredit = accountFigures(svc.ctx.db, "user", "4001").creditedLamports;
    expect(aliceCredit).toBe((SOL * 9_000n * 6_000n) / 10_000n / 10_000n);

    // Alice renames before ever signing in; a newcomer takes "Alice_1" and signs in with it
    idp.rename("4001", "alice_renamed");
    idp.users.set("4999", fakeUser("4999", "Alice_1"));
    const newcomer = await signInThroughIdp(svc, idp, "4999");
    expect(newcomer.callback.status).toBe(302);
    expect(idp.lookups).toContain("4001"); // DESIGN §3: the provider is asked who holds the pinned id's handle now
    expect(pinOf("alice_1")).toBe("4999");
    // what was accrued stays with the original id; the newcomer receives none of it
    expect(accountFigures(svc.ctx.db, "user", "4999").creditedLamports).toBe(0n);
    expect(accountFigures(svc.ctx.db, "user", "4001").balanceLamports).toBe(aliceCredit);
    // later fees go to the newcomer
    sweep(svc.ctx.db, tokenIdOf(token.mint), SOL);
    expect(accountFigures(svc.ctx.db, "user", "4999").creditedLamports).toBe(aliceCredit);
    expect(accountFigures(svc.ctx.db, "user", "4001").creditedLamports).toBe(aliceCredit);

    // the original owner signs in under the new name and finds the money
    const original = await signInThroughIdp(svc, idp, "4001");
    expect(original.callback.status).toBe(302);
    const me = (await svc.json("/api/me", { headers: { cookie: original.session ?? "" } })).body;
    expect(me.balanceLamports).toBe(aliceCredit.toString());
    verifyLedger(svc.ctx.db);
  });
});

describe("without IDP_APP_BEARER", () => {
  test("nothing is looked up, handles wait for their first sign-in, and the launch config says so", async () => {
    service({ ...idp.env });
    const token = await launch(draft());
    expect(idp.usernameLookups).toEqual([]);
    expect(pinOf("alice_1")).toBeNull();
    expect(token.recipients.map((r) => r.handle)).toEqual(["alice_1", "bob"]);
    expect((await svc.json("/api/launch/config")).body.handlesPinnedAtLaunch).toBe(false);
  });
});
