/**
 * The S3-compatible stores the backup tests run against, each started fresh on a free loopback
 * port with its own bucket and key pair: `test/fakes/s3.ts` (ours; it can also stall) and
 * `@20minutes/s3rver` (a maintained npm server, objects in a temporary directory). A test given
 * a TestStore reads and plants objects through the S3 API with the store's key pair, as anyone
 * holding the bucket's credentials could.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "@20minutes/s3rver";
import { DUMMY_ACCOUNT } from "@20minutes/s3rver/lib/models/account.js";
import { startFakeS3, type FakeS3, type FakeS3Request } from "../fakes/s3";

export interface TestStore {
  /** which server this is ("fake" or "s3rver"), for test names */
  readonly name: string;
  readonly endpoint: string;
  readonly bucket: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** every request answered since the store was started, across outages */
  readonly requests: readonly FakeS3Request[];
  /** the bucket's keys, sorted */
  keys(): string[];
  get(key: string): Promise<Uint8Array>;
  put(key: string, bytes: Uint8Array): Promise<void>;
  delete(key: string): Promise<void>;
  /** Resolves once `condition` holds, checked as each request is answered. */
  until(condition: () => boolean): Promise<void>;
  /** An outage: the port refuses connections until start(); what the bucket holds is kept. */
  stop(): Promise<void>;
  /** Back on the same port with the same objects. */
  start(): Promise<void>;
  /** Stopped for good and its files removed. */
  remove(): Promise<void>;
}

export interface StoreKind {
  name: "fake" | "s3rver";
  start(bucket: string, secretAccessKey: string): Promise<TestStore>;
}

/** An access key id of AWS's shape, one per store: s3rver's key pairs are process-wide. */
function newAccessKeyId(): string {
  return `AKIA${crypto.randomUUID().replaceAll("-", "").slice(0, 16).toUpperCase()}`;
}

/** Conditions waited on, checked whenever the store answers a request. */
class Waiters {
  private readonly waiting: { condition: () => boolean; resolve: () => void }[] = [];
  until(condition: () => boolean): Promise<void> {
    return condition() ? Promise.resolve() : new Promise((resolve) => this.waiting.push({ condition, resolve }));
  }
  changed(): void {
    for (const w of [...this.waiting])
      if (w.condition()) {
        this.waiting.splice(this.waiting.indexOf(w), 1);
        w.resolve();
      }
  }
}

/** Object reads and writes through the S3 API, signed with the store's own key pair. */
function clientFor(endpoint: string, bucket: string, accessKeyId: string, secretAccessKey: string) {
  const client = new Bun.S3Client({ endpoint, bucket, region: "us-east-1", accessKeyId, secretAccessKey });
  return {
    get: (key: string) => client.file(key).bytes(),
    put: async (key: string, bytes: Uint8Array) => {
      await client.write(key, bytes, { type: "application/octet-stream" });
    },
    delete: (key: string) => client.delete(key),
  };
}

const fakeKind: StoreKind = {
  name: "fake",
  async start(bucket, secretAccessKey) {
    const accessKeyId = newAccessKeyId();
    const waiters = new Waiters();
    const begin = (port?: number) =>
      startFakeS3({ accessKeyId, secretAccessKey, buckets: [bucket], port, onChange: () => waiters.changed() });
    let fake: FakeS3 | null = begin();
    const endpoint = fake.endpoint;
    const port = Number(new URL(endpoint).port);
    let held = new Map<string, Uint8Array>();
    const earlier: FakeS3Request[] = [];
    const store: TestStore = {
      name: "fake",
      endpoint,
      bucket,
      accessKeyId,
      secretAccessKey,
      get requests() {
        return [...earlier, ...(fake?.requests ?? [])];
      },
      keys: () => (fake ? fake.keys(bucket) : [...held.keys()].sort()),
      ...clientFor(endpoint, bucket, accessKeyId, secretAccessKey),
      until: (condition) => waiters.until(condition),
      async stop() {
        if (!fake) return;
        const stopping = fake;
        fake = null;
        held = stopping.objects.get(bucket)!;
        earlier.push(...stopping.requests);
        await stopping.stop();
      },
      async start() {
        if (fake) return;
        fake = begin(port);
        for (const [key, bytes] of held) fake.objects.get(bucket)!.set(key, bytes);
      },
      remove: () => store.stop(),
    };
    return store;
  },
};

const OBJECT_SUFFIX = "._S3rver_object";
const METADATA_SUFFIX = "._S3rver_metadata.json";

/**
 * The keys s3rver's filesystem store holds: `<key>._S3rver_object` beside the
 * `<key>._S3rver_metadata.json` it writes once the bytes are in, so an upload still being
 * written is not counted.
 */
function s3rverKeys(bucketDir: string): string[] {
  let entries: Set<string>;
  try {
    entries = new Set(readdirSync(bucketDir, { recursive: true }) as string[]);
  } catch {
    return [];
  }
  return [...entries]
    .filter((path) => path.endsWith(OBJECT_SUFFIX))
    .map((path) => path.slice(0, -OBJECT_SUFFIX.length))
    .filter((key) => entries.has(`${key}${METADATA_SUFFIX}`))
    .sort();
}

export const s3rverKind: StoreKind = {
  name: "s3rver",
  async start(bucket, secretAccessKey) {
    const accessKeyId = newAccessKeyId();
    DUMMY_ACCOUNT.createKeyPair(accessKeyId, secretAccessKey);
    const directory = mkdtempSync(join(tmpdir(), "cfl-s3rver-"));
    const requests: FakeS3Request[] = [];
    const waiters = new Waiters();
    let server: S3rver | null = null;
    let port = 0;

    const begin = async () => {
      const next = new S3rver({
        address: "127.0.0.1",
        port,
        silent: true,
        directory,
        vhostBuckets: false,
        configureBuckets: [{ name: bucket }],
      });
      next.middleware.unshift(async (ctx, proceed) => {
        try {
          await proceed();
          requests.push({ method: ctx.method, path: ctx.path, query: ctx.querystring, status: ctx.status });
        } catch (error) {
          const status = (error as { status?: number }).status ?? 500;
          requests.push({ method: ctx.method, path: ctx.path, query: ctx.querystring, status });
          throw error;
        } finally {
          waiters.changed();
        }
      });
      // s3rver 4.0.4 signs a bucket-level request over "/bucket" whatever path was sent; S3 signs
      // the path as sent, and Bun's client sends ListObjectsV2 as "/bucket/?list-type=2", so every
      // list would be refused as SignatureDoesNotMatch. s3rver's canonical URI for a virtual-host
      // request is "/bucket" + mountPath: a mountPath of "/" makes it the path as sent. The
      // signature is still checked against the store's secret (stores.test.ts).
      next.middleware.splice(next.middleware.length - 1, 0, (ctx, proceed) => {
        if (/^\/[^/]+\/$/.test(ctx.path)) {
          ctx.state.vhost = true;
          ctx.mountPath = "/";
        }
        return proceed();
      });
      port = (await next.run()).port;
      server = next;
    };
    await begin();
    const endpoint = `http://127.0.0.1:${port}`;
    const store: TestStore = {
      name: "s3rver",
      endpoint,
      bucket,
      accessKeyId,
      secretAccessKey,
      requests,
      keys: () => s3rverKeys(join(directory, bucket)),
      ...clientFor(endpoint, bucket, accessKeyId, secretAccessKey),
      until: (condition) => waiters.until(condition),
      async stop() {
        if (!server) return;
        const stopping = server;
        server = null;
        const closed = stopping.close();
        // Idle keep-alive connections would hold close() open; a store that goes down drops them.
        stopping.httpServer?.closeAllConnections();
        await closed;
      },
      async start() {
        if (!server) await begin();
      },
      async remove() {
        await store.stop();
        DUMMY_ACCOUNT.revokeAccessKey(accessKeyId);
        rmSync(directory, { recursive: true, force: true });
      },
    };
    return store;
  },
};

/** Every store a parameterised backup test runs against. */
export const STORES: readonly StoreKind[] = [fakeKind, s3rverKind];
