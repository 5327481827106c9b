/**
 * A small S3-compatible server on loopback for tests: path-style buckets, PUT/GET/HEAD/DELETE of
 * objects, multipart uploads (as Bun's client sends a large body), and ListObjectsV2 with
 * continuation. Every request must carry an AWS Signature V4 `Authorization` header made with the
 * configured key pair, checked as S3 checks it (canonical request, scope, HMAC chain), so a wrong
 * secret is refused the way a real store refuses it. Not modelled: versioning, ACLs, checksums.
 */
import { createHash, createHmac } from "node:crypto";

export interface FakeS3Options {
  accessKeyId: string;
  secretAccessKey: string;
  buckets: string[];
  /** the most keys one ListObjectsV2 page returns (S3's own cap is 1,000); small values test paging */
  maxKeysPerPage?: number;
  /** a fixed port (a store brought back where it was); any free one by default */
  port?: number;
  /** called as each request is held, answered or released (a wrapper's own waits) */
  onChange?: () => void;
}

export interface FakeS3Request {
  method: string;
  path: string;
  query: string;
  status: number;
}

export interface FakeS3 {
  endpoint: string;
  /** bucket → key → bytes */
  objects: Map<string, Map<string, Uint8Array>>;
  requests: FakeS3Request[];
  /** every request waits this long before it is answered (a slow store); 0 by default */
  stallMs: number;
  /** requests held by the stall right now (an upload in flight) */
  readonly stalled: number;
  keys(bucket: string): string[];
  /** Resolves once `condition` holds, checked as each request is held, answered or released. */
  until(condition: () => boolean): Promise<void>;
  stop(): Promise<void>;
}

export function startFakeS3(options: FakeS3Options): FakeS3 {
  const objects = new Map<string, Map<string, Uint8Array>>(options.buckets.map((b) => [b, new Map()]));
  const uploads = new Map<string, { bucket: string; key: string; parts: Map<number, Uint8Array> }>();
  const requests: FakeS3Request[] = [];
  const pageCap = options.maxKeysPerPage ?? 1000;
  const state = { stallMs: 0, stalled: 0 };
  const waiters: { condition: () => boolean; resolve: () => void }[] = [];
  const changed = () => {
    options.onChange?.();
    for (const w of [...waiters])
      if (w.condition()) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    // A stalled answer must not be cut by the server's own idle timer.
    idleTimeout: 120,
    async fetch(request) {
      try {
        return await answer(request);
      } finally {
        changed();
      }
    },
  });

  async function answer(request: Request): Promise<Response> {
    if (state.stallMs > 0) {
      state.stalled++;
      changed();
      try {
        await Bun.sleep(state.stallMs);
      } finally {
        state.stalled--;
      }
    }
    const url = new URL(request.url);
    const body = new Uint8Array(await request.arrayBuffer());
    const response = handle(request, url, body);
    requests.push({ method: request.method, path: url.pathname, query: url.search, status: response.status });
    return response;
  }

  function handle(request: Request, url: URL, body: Uint8Array): Response {
    const refused = checkSignature(request, url, body, options);
    if (refused) return refused;
    const [, bucketName = "", ...rest] = url.pathname.split("/");
    const bucket = objects.get(decodeURIComponent(bucketName));
    if (!bucket) return s3Error(404, "NoSuchBucket", "The specified bucket does not exist");
    const key = rest.map(decodeURIComponent).join("/");
    const q = url.searchParams;
    const method = request.method;

    if (key === "") {
      if (method === "GET" && q.get("list-type") === "2") return list(bucket, q);
      return s3Error(405, "MethodNotAllowed", "not modelled by the fake");
    }
    if (method === "POST" && q.has("uploads")) {
      const uploadId = crypto.randomUUID();
      uploads.set(uploadId, { bucket: bucketName, key, parts: new Map() });
      return xml(
        `<InitiateMultipartUploadResult><Bucket>${bucketName}</Bucket><Key>${esc(key)}</Key><UploadId>${uploadId}</UploadId></InitiateMultipartUploadResult>`,
      );
    }
    const uploadId = q.get("uploadId");
    if (uploadId !== null) {
      const upload = uploads.get(uploadId);
      if (!upload) return s3Error(404, "NoSuchUpload", "The specified upload does not exist");
      if (method === "PUT") {
        upload.parts.set(Number(q.get("partNumber")), body);
        return new Response(null, { headers: { etag: etagOf(body) } });
      }
      if (method === "DELETE") {
        uploads.delete(uploadId);
        return new Response(null, { status: 204 });
      }
      if (method === "POST") {
        const ordered = [...upload.parts.entries()].sort((a, b) => a[0] - b[0]).map(([, bytes]) => bytes);
        const whole = Buffer.concat(ordered);
        bucket.set(key, new Uint8Array(whole));
        uploads.delete(uploadId);
        return xml(
          `<CompleteMultipartUploadResult><Bucket>${bucketName}</Bucket><Key>${esc(key)}</Key><ETag>${etagOf(whole)}</ETag></CompleteMultipartUploadResult>`,
        );
      }
    }
    if (method === "PUT") {
      bucket.set(key, body);
      return new Response(null, { headers: { etag: etagOf(body) } });
    }
    if (method === "GET" || method === "HEAD") {
      const bytes = bucket.get(key);
      if (!bytes) return s3Error(404, "NoSuchKey", "The specified key does not exist.", method === "HEAD");
      const headers = { etag: etagOf(bytes), "content-length": String(bytes.length) };
      return new Response(method === "HEAD" ? null : bytes.slice(), { headers });
    }
    if (method === "DELETE") {
      bucket.delete(key);
      return new Response(null, { status: 204 });
    }
    return s3Error(405, "MethodNotAllowed", "not modelled by the fake");
  }

  function list(bucket: Map<string, Uint8Array>, q: URLSearchParams): Response {
    const prefix = q.get("prefix") ?? "";
    const after = q.get("continuation-token") ?? q.get("start-after") ?? "";
    const max = Math.min(Number(q.get("max-keys") ?? 1000), pageCap);
    const all = [...bucket.keys()].filter((k) => k.startsWith(prefix) && k > after).sort();
    const page = all.slice(0, max);
    const truncated = all.length > page.length;
    const contents = page
      .map(
        (k) =>
          `<Contents><Key>${esc(k)}</Key><LastModified>2026-01-01T00:00:00.000Z</LastModified><ETag>${esc(etagOf(bucket.get(k)!))}</ETag><Size>${bucket.get(k)!.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`,
      )
      .join("");
    const next = truncated ? `<NextContinuationToken>${esc(page.at(-1)!)}</NextContinuationToken>` : "";
    return xml(
      `<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Prefix>${esc(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${max}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${contents}${next}</ListBucketResult>`,
    );
  }

  return {
    endpoint: `http://127.0.0.1:${server.port}`,
    objects,
    requests,
    get stallMs() {
      return state.stallMs;
    },
    set stallMs(ms: number) {
      state.stallMs = ms;
    },
    get stalled() {
      return state.stalled;
    },
    keys: (bucket) => [...(objects.get(bucket)?.keys() ?? [])].sort(),
    until: (condition) =>
      condition() ? Promise.resolve() : new Promise((resolve) => waiters.push({ condition, resolve })),
    stop: async () => {
      await server.stop(true);
    },
  };
}

/** SigV4 as S3 checks it; null when the request is signed with the configured key pair. */
function checkSignature(request: Request, url: URL, body: Uint8Array, options: FakeS3Options): Response | null {
  const header = request.headers.get("authorization");
  const match = header?.match(
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/,
  );
  if (!match) return s3Error(403, "AccessDenied", "Access Denied");
  const [, accessKeyId, date, region, signedHeaders, signature] = match as unknown as string[];
  if (accessKeyId !== options.accessKeyId)
    return s3Error(403, "InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.");
  const payloadHash = request.headers.get("x-amz-content-sha256") ?? "";
  if (payloadHash !== "UNSIGNED-PAYLOAD" && payloadHash !== sha256Hex(body))
    return s3Error(400, "XAmzContentSHA256Mismatch", "The provided 'x-amz-content-sha256' header does not match");
  const canonicalHeaders = signedHeaders!
    .split(";")
    .map((name) => `${name}:${(request.headers.get(name) ?? "").trim().replace(/\s+/g, " ")}\n`)
    .join("");
  const canonicalQuery = [...url.searchParams.entries()]
    .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
    .sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  const canonicalRequest = [
    request.method,
    url.pathname,
    canonicalQuery,
    canonicalHeaders,
    signedHeaders,
    payloadHash,
  ].join("\n");
  const scope = `${date}/${region}/s3/aws4_request`;
  const stringToSign = [
    "AWS4-HMAC-SHA256",
    request.headers.get("x-amz-date") ?? "",
    scope,
    sha256Hex(new TextEncoder().encode(canonicalRequest)),
  ].join("\n");
  let key: Buffer = hmac(`AWS4${options.secretAccessKey}`, date!);
  for (const part of [region!, "s3", "aws4_request"]) key = hmac(key, part);
  const expected = createHmac("sha256", key).update(stringToSign).digest("hex");
  if (expected !== signature)
    return s3Error(
      403,
      "SignatureDoesNotMatch",
      "The request signature we calculated does not match the signature you provided.",
    );
  return null;
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac("sha256", key).update(data).digest();
}

function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function uriEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function etagOf(bytes: Uint8Array): string {
  return `"${createHash("md5").update(bytes).digest("hex")}"`;
}

function esc(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
}

function xml(body: string, status = 200): Response {
  return new Response(`<?xml version="1.0" encoding="UTF-8"?>\n${body}`, {
    status,
    headers: { "content-type": "application/xml" },
  });
}

function s3Error(status: number, code: string, message: string, headOnly = false): Response {
  if (headOnly) return new Response(null, { status });
  return xml(`<Error><Code>${code}</Code><Message>${esc(message)}</Message></Error>`, status);
}
