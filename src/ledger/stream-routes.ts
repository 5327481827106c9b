/** `GET /api/ledger/stream`: the ledger feed as Server-Sent Events, live and resumable. */
import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import { clientIp, limitKeyOf } from "../http/client-ip";
import { errorResponse } from "../http/errors";

import { requestMeta } from "../http/request-meta";
import { ErrorSchema } from "../http/public-schemas";
import { LedgerStreamHub, type StreamOptions } from "./stream";

const STREAM_DESCRIPTION = [
  "Server-Sent Events (`text/event-stream`). Each ledger event arrives as",
  "`id: <cursor>`, `event: <type>`, `data: <the event JSON exactly as /api/ledger serves it>`; the cursor is",
  "the event's time with microseconds, the same string `/api/ledger` takes as `before` and the event's own `id` field.",
  "Send the last id received as the `Last-Event-ID` header (browsers' EventSource does so by itself) or as",
  "`?lastEventId=` to replay every event committed after it, oldest first, before live events; without it the",
  "stream starts with the next event. An id newer than the newest event, or older than the last 50,000 events",
  "(read those from /api/ledger instead), is a 400. Events are sent in the order they were committed, which can",
  "differ from the order of their times (a launch carries its block time). A comment line (`: heartbeat`) is",
  "sent every 15 seconds. At most 60 opens a minute and 5 open streams per client IP (429 beyond). The same id",
  "is each event's webhook-id.",
].join(" ");

const STREAM_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-store",
  // Proxies such as nginx would otherwise buffer the stream.
  "x-accel-buffering": "no",
};

export function feedStreamRoutes(ctx: AppContext, options: Partial<StreamOptions> = {}) {
  const hub = new LedgerStreamHub(ctx.db, options);
  return new Elysia({ name: "ledger-stream", seed: options }).get(
    "/api/ledger/stream",
    ({ request, query, server }) => {
      // A HEAD opens nothing: an endless body would hold the connection and a stream slot forever.
      if (request.method === "HEAD") return new Response(null, { headers: STREAM_HEADERS });
      // The front door's client key (TRUSTED_PROXIES, IPv6 per /64), so streams count as the limits do.
      const meta = requestMeta(request);
      const ip = meta
        ? limitKeyOf(meta.ip)
        : clientIp(request, server?.requestIP(request)?.address ?? null, { trustProxyHeader: null });
      const lastEventId = request.headers.get("last-event-id") ?? query.lastEventId ?? null;
      const opened = hub.open(ip, lastEventId);
      if (!opened.ok) {
        return errorResponse(opened.status, opened.message, opened.status === 429 ? { "retry-after": "15" } : {});
      }
      // Bun closes a connection idle for 10 s by default; a stream is idle between heartbeats.
      server?.timeout(request, 0);
      request.signal.addEventListener("abort", () => void opened.stream.cancel().catch(() => {}));
      return new Response(opened.stream, { headers: STREAM_HEADERS });
    },
    {
      query: t.Object({
        lastEventId: t.Optional(
          t.String({
            maxLength: 64,
            description: "the last event id received, when a Last-Event-ID header cannot be sent",
          }),
        ),
      }),
      headers: t.Object({
        "last-event-id": t.Optional(
          t.String({
            maxLength: 64,
            description: "the id of the last event received; replays every event committed after it",
          }),
        ),
      }),
      // Documented here rather than as a response schema: the 200 is an endless text/event-stream,
      // not a JSON body, and a response schema would make the generator call it JSON.
      detail: {
        tags: ["public"],
        summary: "The public ledger feed, live (Server-Sent Events)",
        description: STREAM_DESCRIPTION,
        responses: {
          200: {
            description: "An endless event stream",
            content: { "text/event-stream": { schema: { type: "string" } } },
          },
          ...Object.fromEntries(
            [400, 429, 503].map((status) => [
              status,
              { description: ErrorSchema.description, content: { "application/json": { schema: ErrorSchema } } },
            ]),
          ),
        },
      },
    },
  );
}
