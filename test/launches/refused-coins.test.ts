/**
 * A launch whose create made a coin the service refuses (issue 61, item 8) ends at confirm: the
 * page is told why (200, status `failed` with the reason), the intent is `failed`, and no token is
 * recorded; an ordinary create of the same flow is confirmed. The create transaction the service
 * reads back is the one pump's own SDK builds (cashback on, a creator fee of the coin's own).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { BN } from "@coral-xyz/anchor";
import { PUMP_SDK } from "@pump-fun/pump-sdk";
import { Keypair, PublicKey } from "@solana/web3.js";
import bs58 from "bs58";
import { createPumpLaunchProgram } from "../../src/chain/pump";
import type { ChainServices } from "../../src/chain/services";
import { getIntent } from "../../src/launches/intents";
import { testService, type TestService } from "../helpers/service";
import { confirmedTx, mapReader, viewOf } from "../chain/support/fixtures";
import { jsonPost, png, prepare, stubChain, upload } from "./support";

const services: TestService[] = [];
afterEach(async () => {
  while (services.length) await services.pop()!.cleanup();
});

type V2 = Parameters<typeof PUMP_SDK.createV2Instruction>[0];

/**
 * The launch-step stub, whose chain answers that `landed` (once set) is confirmed and reads it
 * back; verification is the real pump adapter's.
 */
function chainWith(landed: { tx: ReturnType<typeof confirmedTx> | null }): ChainServices {
  const stub = stubChain();
  const pump = createPumpLaunchProgram(mapReader(new Map()));
  return {
    ...stub,
    reader: {
      ...stub.reader,
      async getSignatureStatuses(signatures) {
        return new Map(
          signatures.map((s) => [
            s,
            landed.tx?.signature === s ? { slot: 100n, err: null, confirmationStatus: "finalized" as const } : null,
          ]),
        );
      },
      async getTransaction(signature) {
        return landed.tx?.signature === signature ? landed.tx : null;
      },
    },
    launchProgram: { ...stub.launchProgram, verifyCreate: pump.verifyCreate, vaultAddresses: pump.vaultAddresses },
  };
}

/** Prepared and uploaded; the wallet's create (built by pump's SDK with `over`) has landed. */
async function landedLaunch(over: Partial<V2>) {
  const landed: { tx: ReturnType<typeof confirmedTx> | null } = { tx: null };
  const svc = testService({ RATE_LIMIT: "0" }, { chain: chainWith(landed) });
  services.push(svc);
  const wallet = Keypair.generate();
  const mint = Keypair.generate();
  const image = await png();
  const prepared = await prepare(svc, wallet, mint, image);
  expect(prepared.status).toBe(200);
  const uploaded = await upload(svc, prepared.body, wallet, image);
  expect(uploaded.status).toBe(200);
  const intent = getIntent(svc.ctx.db, prepared.body.intent)!;
  const create = await PUMP_SDK.createV2Instruction({
    mint: mint.publicKey,
    name: "Split Coin",
    symbol: "SPLIT",
    uri: intent.metadataUri!,
    creator: new PublicKey(intent.creator),
    user: wallet.publicKey,
    mayhemMode: false,
    ...over,
  });
  const signature = bs58.encode(crypto.getRandomValues(new Uint8Array(64)));
  landed.tx = confirmedTx({
    signature,
    accountKeys: [wallet.publicKey.toBase58(), mint.publicKey.toBase58()],
    instructions: [viewOf(create)],
  });
  const confirm = () => svc.json("/api/launch/confirm", jsonPost({ intent: intent.id, signature }));
  return { svc, intentId: intent.id, mint: mint.publicKey.toBase58(), signature, confirm };
}

describe("confirm of a create that made a refused coin", () => {
  test("cashback coin: failed with the reason, the intent is failed, no token recorded", async () => {
    const { svc, intentId, mint, signature, confirm } = await landedLaunch({ cashback: true });
    const res = await confirm();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "failed", intent: intentId, signature });
    expect(res.body.error).toMatch(/cashback coin: its creator fee goes to the traders/);
    expect(getIntent(svc.ctx.db, intentId)).toMatchObject({ status: "failed", signature });
    expect((await svc.json(`/api/tokens/${mint}`)).status).toBe(404);
    // asked again, the same answer: the launch has ended
    expect((await confirm()).body).toMatchObject({ status: "failed", error: res.body.error });
  });

  test("a creator fee of the coin's own: failed with the reason", async () => {
    const { svc, intentId, confirm } = await landedLaunch({ creatorFeeBps: new BN(50) });
    const res = await confirm();
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("failed");
    expect(res.body.error).toMatch(/own creator fee \(50 bps\) instead of the configured fee schedule/);
    expect(getIntent(svc.ctx.db, intentId)!.status).toBe("failed");
  });

  test("an ordinary create through the same flow is confirmed", async () => {
    const { svc, intentId, mint, confirm } = await landedLaunch({});
    const res = await confirm();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "confirmed", token: { mint } });
    expect(getIntent(svc.ctx.db, intentId)!.status).toBe("confirmed");
    expect((await svc.json(`/api/tokens/${mint}`)).status).toBe(200);
  });
});
