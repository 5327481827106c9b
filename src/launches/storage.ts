/**
 * Where launch images and metadata JSON go: pinned to IPFS through a Pinata-compatible API when
 * PINATA_JWT is set, otherwise stored in `local_objects` and served by this service. Both are
 * content-addressed, so storing the same bytes twice gives the same address.
 */
import { createHash } from "node:crypto";
import type { Db } from "../../db/client";
import { localObjects } from "../../db/schema";
import { columnsOf, statement, type TableRow } from "../../db/statement";
import type { Config } from "../config";
import { AppError } from "../lib/errors";
import { log } from "../lib/log";

interface StoredObject {
  /** the address wallets and explorers fetch */
  uri: string;
}

export interface ObjectStore {
  readonly kind: "ipfs" | "local";
  putFile(bytes: Uint8Array, contentType: string, name: string): Promise<StoredObject>;
  putJson(value: unknown, name: string): Promise<StoredObject>;
}

const PIN_TIMEOUT_MS = 20_000;
export const LOCAL_OBJECTS_PATH = "/api/launch/objects";

const ipfsDown = () => new AppError("LAUNCH_UPLOAD_FAILED");

const insertObject = statement<
  never,
  [cid: string, contentType: string, body: Uint8Array, createdAtMs: number, pending: number, intentId: string | null]
>(
  `INSERT INTO local_objects (cid, content_type, body, created_at_ms, pending, intent_id) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (cid) DO UPDATE SET intent_id = excluded.intent_id WHERE local_objects.pending = 1 AND excluded.pending = 1`,
);
const SERVED_FIELDS = ["contentType", "body"] as const;
const servedObject = statement<Pick<TableRow<typeof localObjects>, (typeof SERVED_FIELDS)[number]>, [cid: string]>(
  `SELECT ${columnsOf(localObjects, { only: SERVED_FIELDS })} FROM local_objects WHERE cid = ? AND pending = 0`,
);

class PinataStore implements ObjectStore {
  readonly kind = "ipfs" as const;

  constructor(
    private readonly apiUrl: string,
    private readonly jwt: string,
    private readonly gatewayUrl: string,
    private readonly timeoutMs = PIN_TIMEOUT_MS,
  ) {}

  async putFile(bytes: Uint8Array, contentType: string, name: string): Promise<StoredObject> {
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(bytes)], { type: contentType }), name);
    form.append("pinataMetadata", JSON.stringify({ name }));
    return this.pin("/pinning/pinFileToIPFS", { body: form });
  }

  async putJson(value: unknown, name: string): Promise<StoredObject> {
    return this.pin("/pinning/pinJSONToIPFS", {
      body: JSON.stringify({ pinataContent: value, pinataMetadata: { name } }),
      headers: { "content-type": "application/json" },
    });
  }

  private async pin(path: string, init: { body: BodyInit; headers?: Record<string, string> }): Promise<StoredObject> {
    let response: Response;
    try {
      response = await fetch(`${this.apiUrl}${path}`, {
        method: "POST",
        body: init.body,
        headers: { ...init.headers, authorization: `Bearer ${this.jwt}` },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      // The API address and the token stay out of the log: only the kind of failure is kept.
      log.warn("ipfs pin failed", { reason: (error as Error)?.name ?? "error" });
      throw ipfsDown();
    }
    let body: unknown = null;
    try {
      body = await response.json();
    } catch {
      body = null;
    }
    const cid = (body as { IpfsHash?: unknown } | null)?.IpfsHash;
    if (!response.ok || typeof cid !== "string" || !/^[A-Za-z0-9]{20,100}$/.test(cid)) {
      log.warn("ipfs pin refused", { status: response.status });
      throw ipfsDown();
    }
    return { uri: `${this.gatewayUrl}/${cid}` };
  }
}

class LocalStore implements ObjectStore {
  readonly kind = "local" as const;

  constructor(
    private readonly db: Db,
    private readonly publicUrl: string,
    private readonly now: () => number,
    /** the launch intent storing: its objects stay pending (not served) until it is confirmed */
    private readonly intentId: string | null = null,
  ) {}

  async putFile(bytes: Uint8Array, contentType: string): Promise<StoredObject> {
    return this.put(bytes, contentType);
  }

  async putJson(value: unknown): Promise<StoredObject> {
    return this.put(new TextEncoder().encode(JSON.stringify(value)), "application/json");
  }

  private put(bytes: Uint8Array, contentType: string): StoredObject {
    const cid = createHash("sha256").update(bytes).digest("hex");
    // A pending object named again belongs to the newest launch naming it, so it outlives the old one.
    insertObject(this.db).run(cid, contentType, bytes, this.now(), this.intentId ? 1 : 0, this.intentId);
    return { uri: `${this.publicUrl}${LOCAL_OBJECTS_PATH}/${cid}` };
  }
}

export function objectStoreFor(config: Config, db: Db, now: () => number, intentId: string | null = null): ObjectStore {
  if (config.ipfs.pinataJwt)
    return new PinataStore(config.ipfs.pinataApiUrl, config.ipfs.pinataJwt, config.ipfs.gatewayUrl);
  return new LocalStore(db, config.publicUrl, now, intentId);
}

export function readLocalObject(db: Db, cid: string): { contentType: string; body: Uint8Array } | null {
  if (!/^[0-9a-f]{64}$/.test(cid)) return null;
  // Pending objects belong to a launch not confirmed yet: not served.
  return servedObject(db).get(cid);
}
