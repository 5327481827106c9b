/**
 * The embedded chain answers browsers from loopback pages only, and from the explorer the page
 * links to when `EXPLORER_URL` is set: an explorer given the local RPC URL reads the chain from
 * the browser, and any other site is refused (a page elsewhere airdropping or injecting faults).
 */
import { afterEach, expect, test } from "bun:test";
import { explorerOrigin, startEmbeddedChain } from "../../src/chain/setup";
import { testConfig } from "../../src/config";

let stop: (() => Promise<void>) | null = null;
afterEach(async () => {
  await stop?.();
  stop = null;
});

const health = (rpcUrl: string, origin: string) =>
  fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json", origin },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getHealth" }),
  });

test("the explorer's origin is read from the template", () => {
  expect(explorerOrigin("https://explorer.solana.com/{kind}/{id}?cluster=custom")).toEqual([
    "https://explorer.solana.com",
  ]);
  expect(explorerOrigin(null)).toEqual([]);
  expect(explorerOrigin("not a url {id}")).toEqual([]);
});

test("the configured explorer reads the embedded chain from the browser; another site is refused", async () => {
  const config = testConfig({
    LOCAL_CHAIN_RPC_PORT: "0",
    LOCAL_CHAIN_GRPC_PORT: "0",
    EXPLORER_URL: "https://explorer.solana.com/{kind}/{id}?cluster=custom",
  });
  const { local } = await startEmbeddedChain(config);
  stop = () => local.stop();
  const explorer = await health(local.rpcUrl, "https://explorer.solana.com");
  expect(explorer.status).toBe(200);
  expect(explorer.headers.get("access-control-allow-origin")).toBe("https://explorer.solana.com");
  expect((await health(local.rpcUrl, "https://evil.example")).status).toBe(403);
});
