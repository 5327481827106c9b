/**
 * A Pinata-compatible pinning API on loopback: `POST /pinning/pinFileToIPFS` (multipart `file`) and
 * `POST /pinning/pinJSONToIPFS` (`{pinataContent}`), both behind `Authorization: Bearer <jwt>`,
 * answering `{IpfsHash, PinSize, Timestamp}`; `GET /ipfs/:cid` serves what was pinned (the gateway).
 * `down = true` makes every pin answer 500, as a failing provider does.
 */
import { createHash } from "node:crypto";
import bs58 from "bs58";

interface Pinned {
  cid: string;
  kind: "file" | "json";
  contentType: string;
  body: Uint8Array;
  name: string | null;
}

export interface FakeIpfs {
  apiUrl: string;
  gatewayUrl: string;
  jwt: string;
  down: boolean;
  pins: Map<string, Pinned>;
  /** env for testService */
  env(): Record<string, string>;
  json(cid: string): unknown;
  stop(): Promise<void>;
}

const cidOf = (bytes: Uint8Array) => `Qm${bs58.encode(createHash("sha256").update(bytes).digest())}`.slice(0, 46);

export function startFakeIpfs(): FakeIpfs {
  const jwt = `test-jwt-${crypto.randomUUID()}`;
  const pins = new Map<string, Pinned>();
  const state = { down: false };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      if (request.method === "GET" && url.pathname.startsWith("/ipfs/")) {
        const pin = pins.get(url.pathname.slice(6));
        return pin
          ? new Response(new Uint8Array(pin.body), { headers: { "content-type": pin.contentType } })
          : new Response("not found", { status: 404 });
      }
      if (state.down) return new Response(JSON.stringify({ error: "internal" }), { status: 500 });
      if (request.headers.get("authorization") !== `Bearer ${jwt}`)
        return Response.json({ error: "unauthorized" }, { status: 401 });
      let pin: Pinned;
      if (url.pathname === "/pinning/pinFileToIPFS") {
        const form = await request.formData();
        const file = form.get("file");
        if (!(file instanceof Blob)) return Response.json({ error: "file missing" }, { status: 400 });
        const body = new Uint8Array(await file.arrayBuffer());
        const meta = form.get("pinataMetadata");
        pin = {
          cid: cidOf(body),
          kind: "file",
          contentType: file.type,
          body,
          name: typeof meta === "string" ? (JSON.parse(meta).name ?? null) : null,
        };
      } else if (url.pathname === "/pinning/pinJSONToIPFS") {
        const parsed = (await request.json()) as { pinataContent?: unknown; pinataMetadata?: { name?: string } };
        if (parsed.pinataContent === undefined) return Response.json({ error: "content missing" }, { status: 400 });
        const body = new TextEncoder().encode(JSON.stringify(parsed.pinataContent));
        pin = {
          cid: cidOf(body),
          kind: "json",
          contentType: "application/json",
          body,
          name: parsed.pinataMetadata?.name ?? null,
        };
      } else {
        return new Response("not found", { status: 404 });
      }
      pins.set(pin.cid, pin);
      return Response.json({ IpfsHash: pin.cid, PinSize: pin.body.length, Timestamp: new Date().toISOString() });
    },
  });
  const base = `http://127.0.0.1:${server.port}`;
  return {
    apiUrl: base,
    gatewayUrl: `${base}/ipfs`,
    jwt,
    get down() {
      return state.down;
    },
    set down(value: boolean) {
      state.down = value;
    },
    pins,
    env: () => ({ PINATA_JWT: jwt, PINATA_API_URL: base, IPFS_GATEWAY_URL: `${base}/ipfs` }),
    json: (cid: string) => JSON.parse(new TextDecoder().decode(pins.get(cid)!.body)),
    stop: async () => {
      await server.stop(true);
    },
  };
}
