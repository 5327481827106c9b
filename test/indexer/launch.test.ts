/**
 * A launch whose page never comes back to confirm: the stream shows the create transaction
 * touching the pending launch's mint, and the indexer records the token through the same
 * settle path the confirm route and the launches job use.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import { localLaunchProgram } from "../../src/chain/setup";
import { startIndexer, type Indexer } from "../../indexer";
import { testService, type TestService } from "../helpers/service";
import {
  draft,
  localLaunchChain,
  png,
  prepare,
  signReturned,
  upload,
  type LocalLaunchChain,
} from "../launches/support";
import { waitFor } from "./harness";

let chain: LocalLaunchChain;
let svc: TestService;
let indexer: Indexer | null = null;

beforeAll(async () => {
  chain = await localLaunchChain();
  svc = testService(
    { PUBLIC_URL: "http://localhost", RPC_URL: chain.local.rpcUrl, RATE_LIMIT: "0" },
    { chain: chain.services },
  );
});
afterAll(async () => {
  await indexer?.stop();
  await svc.cleanup();
  await chain.stop();
});

test("a launch confirmed on chain is recorded by the indexer, without the page confirming or a job run", async () => {
  // This chain's launches are the old local launch program's: the indexer reads them with its adapter.
  indexer = startIndexer(
    svc.ctx,
    { services: chain.services, local: chain.local },
    { grpc: { syncMs: 50 }, launchProgramOver: (reader) => localLaunchProgram(chain.local, reader) },
  );
  await waitFor("stream open", () => indexer!.state().connected);

  const wallet = Keypair.generate();
  chain.local.node.fund(wallet.publicKey, 20_000_000_000n);
  const mint = Keypair.generate();
  const image = await png(200, 200, { r: 30, g: 60, b: 200 });
  const intent = await prepare(svc, wallet, mint, image, draft());
  expect(intent.status).toBe(200);
  const metadata = await upload(svc, intent.body, wallet, image);
  expect(metadata.status).toBe(200);
  // The pending launch's mint joins the stream's transaction filter.
  await waitFor("mint in the stream's filters", () => indexer!.subscribed(mint.publicKey.toBase58()));

  const tx = signReturned(metadata.body.transactions[0], [wallet, mint]);
  chain.local.node.sendWire(tx.serialize(), { skipPreflight: true });
  expect((await svc.json(`/api/tokens/${mint.publicKey.toBase58()}`)).status).toBe(404);

  chain.local.node.advanceSlots(1);
  const token = await waitFor("token recorded by the indexer", async () => {
    const res = await svc.json(`/api/tokens/${mint.publicKey.toBase58()}`);
    return res.status === 200 ? res.body : null;
  });
  expect(token).toMatchObject({
    mint: mint.publicKey.toBase58(),
    creator: intent.body.creator,
    deployer: wallet.publicKey.toBase58(),
  });
  const row = svc.ctx.db.$client.query("SELECT status FROM launch_intents WHERE id = ?").get(intent.body.intent) as {
    status: string;
  };
  expect(row.status).toBe("confirmed");
  // No job ran: the only lease ever taken is the indexer's.
  const ran = svc.ctx.db.$client.query("SELECT job FROM job_leases WHERE runs > 0").all() as { job: string }[];
  expect(ran.map((r) => r.job)).toEqual(["indexer"]);
  // The new token is watched from now on: a trade's fee shows without a restart.
  await waitFor("new token watched", () => indexer!.state().tokens === 1 && indexer!.subscribed(token.creator));
  const trader = Keypair.generate();
  chain.local.node.fund(trader.publicKey, 10_000_000_000n);
  chain.local.launch.buy({ mint: token.mint, buyer: trader, solInLamports: 1_000_000_000n });
  const [reading] = await chain.services.launchProgram.readVaults([{ mint: token.mint, creator: token.creator }]);
  const want = reading!.curveLamports + reading!.poolLamports + reading!.creatorLamports;
  expect(want).toBeGreaterThan(0n);
  chain.local.node.advanceSlots(1);
  await waitFor(
    "its reading stored",
    async () => (await svc.json(`/api/tokens/${token.mint}`)).body.vaultLamports === want.toString(),
  );
  expect(indexer.state().reconnects).toBe(0);
}, 30_000);
