/**
 * Each store the backup tests run against (stores.ts) answers the S3 calls the service makes
 * (Bun's S3 client: PUT, multipart PUT, GET, HEAD, DELETE, ListObjectsV2 with continuation) as S3
 * does, and refuses what S3 refuses: a request signed with another secret or an unknown key id.
 * A store that accepted a wrong signature would let the refused-credentials tests pass for nothing.
 *
 * Paged listing is shown on the fake only: under Bun, s3rver 4.0.4 answers a truncated
 * ListObjectsV2 with InternalError (its continuation token is DES-encrypted, a cipher neither
 * Bun nor Node's OpenSSL 3 offers by default) and lists keys in directory order, not S3's sorted
 * order (it relies on Node's sorted readdir; Bun's is not), so a page boundary would skip keys.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { STORES, type TestStore } from "./stores";
import { BUCKET, uniqueSecret } from "./support";

let store: TestStore | null = null;
afterEach(async () => {
  await store?.remove();
  store = null;
});

const clientOf = (s: TestStore, secretAccessKey = s.secretAccessKey, accessKeyId = s.accessKeyId) =>
  new Bun.S3Client({ endpoint: s.endpoint, bucket: s.bucket, region: "us-east-1", accessKeyId, secretAccessKey });

async function codeOf(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
    return "accepted";
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

describe.each(STORES)("the $name store", (kind) => {
  test("answers Bun's S3 client as S3 does: objects, HEAD, multipart, ListObjectsV2", async () => {
    store = await kind.start(BUCKET, uniqueSecret());
    const client = clientOf(store);
    for (const name of ["a", "b", "c", "d", "e"]) await client.write(`svc/${name}.db`, `bytes of ${name}`);
    await client.write("other/z.db", "elsewhere");
    expect(await client.file("svc/c.db").text()).toBe("bytes of c");
    expect(await client.exists("svc/c.db")).toBe(true);
    expect(await client.exists("svc/none.db")).toBe(false);
    expect(await codeOf(() => client.file("svc/none.db").bytes())).toBe("NoSuchKey");

    // Past Bun's 5 MiB part size the client uploads in parts; the store joins them in order.
    const large = new Uint8Array(11 * 1024 * 1024).map((_, i) => i % 251);
    await client.write("svc/large.db", large, { partSize: 5 * 1024 * 1024 });
    expect(Buffer.from(await client.file("svc/large.db").bytes()).equals(Buffer.from(large))).toBe(true);

    // One page, in whatever order: the service sorts generation names and audit ids itself.
    const listed = await client.list({ prefix: "svc/" });
    expect(listed.isTruncated).toBe(false);
    const seen = (listed.contents ?? []).map((object) => object.key).sort();
    expect(seen).toEqual(["svc/a.db", "svc/b.db", "svc/c.db", "svc/d.db", "svc/e.db", "svc/large.db"]);
    expect(store.keys()).toEqual([...seen, "other/z.db"].sort());

    await client.delete("svc/a.db");
    expect(store.keys()).not.toContain("svc/a.db");
  }, 60_000);

  test("refuses a request signed with another secret, or with a key id it does not know", async () => {
    store = await kind.start(BUCKET, uniqueSecret());
    await store.put("svc/there.db", new TextEncoder().encode("there"));
    const wrongSecret = clientOf(store, uniqueSecret());
    expect(await codeOf(() => wrongSecret.write("svc/new.db", "x"))).toBe("SignatureDoesNotMatch");
    expect(await codeOf(() => wrongSecret.file("svc/there.db").bytes())).toBe("SignatureDoesNotMatch");
    expect(await codeOf(() => wrongSecret.list({ prefix: "svc/" }))).toBe("SignatureDoesNotMatch");
    expect(await codeOf(() => wrongSecret.delete("svc/there.db"))).toBe("SignatureDoesNotMatch");
    const unknownKey = clientOf(store, store.secretAccessKey, "AKIAUNKNOWNKEY000000");
    expect(await codeOf(() => unknownKey.list({ prefix: "svc/" }))).toBe("InvalidAccessKeyId");
    expect(store.keys()).toEqual(["svc/there.db"]);
    expect(store.requests.filter((r) => r.status === 403)).toHaveLength(5);
  }, 60_000);

  test("stopped, it refuses connections; started again, it serves what it held on the same port", async () => {
    store = await kind.start(BUCKET, uniqueSecret());
    await store.put("svc/kept.db", new TextEncoder().encode("kept"));
    await store.stop();
    expect(await codeOf(() => store!.get("svc/kept.db"))).toBe("ConnectionRefused");
    await store.start();
    expect(new TextDecoder().decode(await store.get("svc/kept.db"))).toBe("kept");
  }, 60_000);
});

test("the fake pages ListObjectsV2 with continuation, in S3's sorted order (past 1,000 keys the service reads pages)", async () => {
  store = await STORES.find((kind) => kind.name === "fake")!.start(BUCKET, uniqueSecret());
  const client = clientOf(store);
  for (const name of ["e", "c", "a", "d", "b"]) await client.write(`svc/${name}.db`, name);
  const seen: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.list({ prefix: "svc/", maxKeys: 2, ...(token ? { continuationToken: token } : {}) });
    expect(page.contents?.length ?? 0).toBeLessThanOrEqual(2);
    seen.push(...(page.contents ?? []).map((object) => object.key));
    token = page.isTruncated ? page.nextContinuationToken : undefined;
  } while (token);
  expect(seen).toEqual(["svc/a.db", "svc/b.db", "svc/c.db", "svc/d.db", "svc/e.db"]);
}, 60_000);
