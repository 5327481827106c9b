/**
 * An integrator's walkthrough of the public API with a typed client (docs/integrating.md):
 *
 *   npm run example:client -- http://localhost:3000   # types from the served document
 *   npm run example -- http://localhost:3000          # page every list, follow the stream
 *   WEBHOOK_SECRET=whsec_… npm run example -- webhook-receiver 8080
 *   CRON_SECRET=… ADMIN_SECRET=… npm run example -- operator http://localhost:3000 sweep
 *
 * Under Node, the same with `npx tsx examples/walkthrough.ts …` in place of `npm run example -- …`.
 * A failure is printed on stderr and the command exits with status 1.
 *
 * The client is openapi-fetch over the types openapi-typescript made from `/api/openapi.json`:
 * every path, parameter and answer below is checked by the compiler against the document.
 */
import { createServer, type Server } from "node:http";
import createClient, { type Client } from "openapi-fetch";
import { Webhook } from "standardwebhooks";
import type { components, paths } from "./generated/api";
import { runAsCommand, sleep } from "./main";
import { operatorCommand } from "./operator";

export type Token = components["schemas"]["Token"];
export type LedgerEvent = components["schemas"]["LedgerEvent"];
export type AccountToken = components["schemas"]["AccountToken"];
export type Payout = components["schemas"]["Payout"];
type Api = Client<paths>;
type Sort = NonNullable<NonNullable<paths["/api/tokens"]["get"]["parameters"]["query"]>["sort"]>;

export const connect = (baseUrl: string): Api => createClient<paths>({ baseUrl });

/** A refusal of the service: its status and its one sentence (`{error}`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(`${status}: ${message}`);
  }
}

interface Answer<T> {
  data?: T;
  error?: { error: string } | unknown;
  response: Response;
}

/**
 * The body of a successful answer. 429 waits the `retry-after` seconds and asks again; 500, 502
 * and 503 back off exponentially; anything else is an ApiError (SPEC: do not retry 4xx).
 */
export async function call<T>(ask: () => Promise<Answer<T>>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const { data, error, response } = await ask();
    if (response.ok && data !== undefined) return data;
    const retryable = response.status === 429 || response.status >= 500;
    if (!retryable || attempt >= attempts) {
      const sentence = (error as { error?: string } | undefined)?.error ?? response.statusText;
      throw new ApiError(response.status, sentence);
    }
    const retryAfterSec = Number(response.headers.get("retry-after") ?? Number.NaN);
    const waitMs = Number.isFinite(retryAfterSec) ? retryAfterSec * 1000 : 250 * 2 ** attempt;
    await sleep(waitMs);
  }
}

/** Every token of the Explore list in one sort, paged with `nextCursor` to the end; a repeat is an error. */
export async function allTokens(api: Api, sort: Sort): Promise<Token[]> {
  const tokens: Token[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await call(() => api.GET("/api/tokens", { params: { query: { sort, limit: 60, cursor } } }));
    for (const token of page.tokens) {
      if (seen.has(token.mint)) throw new Error(`sort=${sort}: ${token.mint} came twice`);
      seen.add(token.mint);
      tokens.push(token);
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return tokens;
}

/** The whole ledger feed, newest first, paged with `before`/`nextBefore` to the end. */
export async function allLedgerEvents(api: Api): Promise<LedgerEvent[]> {
  const events: LedgerEvent[] = [];
  let before: string | undefined;
  do {
    const page = await call(() => api.GET("/api/ledger", { params: { query: { limit: 100, before } } }));
    events.push(...page.events);
    before = page.nextBefore ?? undefined;
  } while (before);
  return events;
}

/** An account's whole lists: the record carries the first 100 of each, the pages the rest. */
export async function accountLists(api: Api, handle: string): Promise<{ tokens: AccountToken[]; payouts: Payout[] }> {
  const path = { handle };
  const record = await call(() => api.GET("/api/idp/{handle}", { params: { path } }));
  const tokens = [...record.tokens];
  for (let cursor = record.tokensNextCursor; cursor !== null; ) {
    const query = { cursor, limit: 100 };
    const page = await call(() => api.GET("/api/idp/{handle}/tokens", { params: { path, query } }));
    tokens.push(...page.tokens);
    cursor = page.nextCursor;
  }
  const payouts = [...record.payouts];
  for (let cursor = record.payoutsNextCursor; cursor !== null; ) {
    const query = { cursor, limit: 100 };
    const page = await call(() => api.GET("/api/idp/{handle}/payouts", { params: { path, query } }));
    payouts.push(...page.payouts);
    cursor = page.nextCursor;
  }
  return { tokens, payouts };
}

/** One line per event; the compiler checks every `type` is handled and each one's own fields. */
export function describeEvent(event: LedgerEvent): string {
  switch (event.type) {
    case "launch":
      return `${event.at} launch ${event.symbol} naming ${event.recipients} recipient(s)`;
    case "sweep":
      return `${event.at} sweep ${event.symbol}: ${event.totalLamports} lamports (${event.platformLamports} to the platform)`;
    case "payout":
      return `${event.at} payout ${event.kind} to @${event.handle}: ${event.lamports} lamports, ${event.status}`;
    case "payoutStatus":
      return `${event.at} payout #${event.payoutId} to @${event.handle} is ${event.status}`;
    case "burn":
      return `${event.at} burn ${event.symbol ?? event.mint} (${event.source}): ${event.tokenAmount} base units for ${event.lamports} lamports`;
    default: {
      const unknown: never = event;
      return `unknown event ${JSON.stringify(unknown)}`;
    }
  }
}

export interface StreamedEvent {
  /** the event's id: the same cursor string `/api/ledger` takes as `before` */
  id: string;
  event: LedgerEvent;
}

/**
 * Follows `GET /api/ledger/stream` (Server-Sent Events). After `lastEventId` the service first
 * replays every event committed since, then sends live ones; a dropped connection is opened
 * again from the last id received, so nothing is missed or repeated.
 */
export async function* followLedger(
  baseUrl: string,
  options: { lastEventId?: string; signal?: AbortSignal } = {},
): AsyncGenerator<StreamedEvent> {
  let lastEventId = options.lastEventId;
  let retryMs = 3000;
  while (!options.signal?.aborted) {
    const headers: Record<string, string> = { accept: "text/event-stream" };
    if (lastEventId) headers["last-event-id"] = lastEventId;
    let response: Response;
    try {
      response = await fetch(`${baseUrl}/api/ledger/stream`, { headers, signal: options.signal });
    } catch (error) {
      if (options.signal?.aborted) return;
      throw error;
    }
    if (response.status === 429 || response.status >= 500) {
      await sleep(Number(response.headers.get("retry-after") ?? 3) * 1000);
      continue;
    }
    if (!response.ok || !response.body) throw new ApiError(response.status, await response.text());
    const decoder = new TextDecoder();
    let buffered = "";
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value: chunk } = await reader.read();
        if (done) break;
        buffered += decoder.decode(chunk, { stream: true });
        for (let end = buffered.indexOf("\n\n"); end >= 0; end = buffered.indexOf("\n\n")) {
          const frame = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const fields = { id: "", data: [] as string[] };
          for (const line of frame.split("\n")) {
            if (line.startsWith(":")) continue; // a heartbeat
            const colon = line.indexOf(":");
            const name = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
            if (name === "id") fields.id = value;
            else if (name === "data") fields.data.push(value);
            else if (name === "retry" && /^\d+$/.test(value)) retryMs = Number(value);
          }
          if (fields.data.length === 0) continue;
          lastEventId = fields.id || lastEventId;
          yield { id: fields.id, event: JSON.parse(fields.data.join("\n")) as LedgerEvent };
        }
      }
    } catch (error) {
      if (options.signal?.aborted) return;
      if (!(error instanceof Error)) throw error;
    } finally {
      reader.releaseLock();
    }
    await sleep(retryMs);
  }
}

/** What a webhook delivery carries: the event's type and time, and the event as the feed serves it. */
export interface WebhookDelivery {
  /** `webhook-id`: the event's id, the same on every retry; dedupe by it */
  id: string;
  type: LedgerEvent["type"];
  at: string;
  data: LedgerEvent;
}

/**
 * Checks a delivery's Standard Webhooks signature (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) with the endpoint's `whsec_` secret; throws when it does not verify or is
 * older than five minutes. Verify the raw body, before any JSON parsing.
 */
export function verifyWebhook(secret: string, rawBody: string, headers: Headers): WebhookDelivery {
  const signed = Object.fromEntries(
    ["webhook-id", "webhook-timestamp", "webhook-signature"].map((name) => [name, headers.get(name) ?? ""]),
  );
  const payload = new Webhook(secret).verify(rawBody, signed) as Omit<WebhookDelivery, "id">;
  return { id: signed["webhook-id"]!, ...payload };
}

/** A receiver: answers 204 to a verified delivery (printed as a JSON line), 400 to anything else. */
export function webhookReceiver(port: number, secret: string): Promise<Server> {
  const seen = new Set<string>();
  const server = createServer((request, response) => {
    if (request.method !== "POST") {
      response.writeHead(405).end();
      return;
    }
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers))
        if (typeof value === "string") headers.set(name, value);
      let delivery: WebhookDelivery;
      try {
        delivery = verifyWebhook(secret, body, headers);
      } catch {
        response.writeHead(400).end("signature does not verify");
        return;
      }
      // A retry of a delivery already handled is acknowledged again and not handled twice.
      if (!seen.has(delivery.id)) {
        seen.add(delivery.id);
        process.stdout.write(`${JSON.stringify({ verified: delivery.id, line: describeEvent(delivery.data) })}\n`);
      }
      response.writeHead(204).end();
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

/** Pages every public list of the service at `baseUrl` and follows the stream for a moment. */
async function walkthrough(baseUrl: string): Promise<void> {
  const api = connect(baseUrl);
  const sorts: Sort[] = ["new", "fees", "mcap"];
  const tokens: Record<string, number> = {};
  let sample: Token | undefined;
  for (const sort of sorts) {
    const list = await allTokens(api, sort);
    tokens[sort] = list.length;
    sample ??= list[0];
  }
  const events = await allLedgerEvents(api);
  const byType: Record<string, number> = {};
  for (const event of events) byType[event.type] = (byType[event.type] ?? 0) + 1;
  for (const event of events.slice(0, 3)) process.stdout.write(`${describeEvent(event)}\n`);

  const handle = sample?.recipients[0]?.handle;
  const account = handle ? await accountLists(api, handle) : null;

  // Resume the stream from the fifth-newest event: the service replays what was committed after it.
  const fifth = await call(() => api.GET("/api/ledger", { params: { query: { limit: 5 } } }));
  const streamed: string[] = [];
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), 3000);
  const lastEventId = fifth.nextBefore ?? undefined;
  for await (const { id, event } of followLedger(baseUrl, { lastEventId, signal: stop.signal })) {
    streamed.push(`${id} ${event.type}`);
    if (streamed.length >= 5) break;
  }
  clearTimeout(timer);
  stop.abort();

  const summary = {
    tokens,
    ledgerEvents: events.length,
    byType,
    account: account && handle ? { handle, tokens: account.tokens.length, payouts: account.payouts.length } : null,
    streamed,
  };
  process.stdout.write(`${JSON.stringify(summary)}\n`);
}

async function command(): Promise<void> {
  const [first, ...rest] = process.argv.slice(2);
  if (first === "webhook-receiver") {
    const secret = process.env.WEBHOOK_SECRET;
    if (!secret) throw new Error("set WEBHOOK_SECRET to the whsec_… secret POST /api/admin/webhooks answered");
    const server = await webhookReceiver(Number(rest[0] ?? 8080), secret);
    const address = server.address();
    process.stdout.write(`${JSON.stringify({ listening: typeof address === "object" ? address?.port : address })}\n`);
  } else if (first === "operator") {
    await operatorCommand(rest);
  } else {
    await walkthrough((first ?? "http://localhost:3000").replace(/\/$/, ""));
  }
}

runAsCommand(import.meta.url, command);
