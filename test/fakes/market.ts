/**
 * A market-data API on loopback shaped like DexScreener's token endpoint:
 * `GET /tokens/v1/solana/{comma-separated addresses}` answers an array of pairs
 * (`chainId`, `baseToken.address`, `marketCap`, `fdv`, `volume.h24`, `liquidity.usd`).
 * Tests set `pairs` per mint; `down = true` answers 503. Every request's address list is kept.
 */
interface FakePair {
  chainId?: string;
  baseToken: { address: string; symbol?: string };
  marketCap?: number | null;
  fdv?: number | null;
  volume?: { h24?: number | null };
  liquidity?: { usd?: number | null };
}

export interface FakeMarket {
  url: string;
  pairs: Map<string, FakePair[]>;
  requests: string[][];
  down: boolean;
  stop(): Promise<void>;
}

export function startFakeMarket(): FakeMarket {
  const pairs = new Map<string, FakePair[]>();
  const requests: string[][] = [];
  const state = { down: false };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const match = /^\/tokens\/v1\/solana\/([^/]+)$/.exec(new URL(request.url).pathname);
      if (!match) return new Response("not found", { status: 404 });
      if (state.down) return new Response("unavailable", { status: 503 });
      const addresses = decodeURIComponent(match[1]!).split(",");
      requests.push(addresses);
      if (addresses.length > 30) return Response.json({ error: "too many addresses" }, { status: 400 });
      return Response.json(addresses.flatMap((a) => (pairs.get(a) ?? []).map((p) => ({ chainId: "solana", ...p }))));
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    pairs,
    requests,
    get down() {
      return state.down;
    },
    set down(value: boolean) {
      state.down = value;
    },
    stop: async () => {
      await server.stop(true);
    },
  };
}
