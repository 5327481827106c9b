/** A tiny JSON-RPC fake on 127.0.0.1 (port 0) with scriptable answers and faults. */
import type { Server } from "bun";

type Reply =
  | { result: unknown }
  | { error: { code: number; message: string } }
  | { status: number; body?: string; headers?: Record<string, string> }
  | { raw: string }
  | { delayMs: number; thenReply?: Reply };

export interface FakeRpc {
  url: string;
  /** requests in arrival order: [method, params] */
  requests: { method: string; params: unknown[] }[];
  /** answer for a method; called with params and the 0-based attempt count for that method */
  handle(method: string, fn: (params: unknown[], attempt: number) => Reply): void;
  stop(): Promise<void>;
}

interface Call {
  id: unknown;
  method: string;
  params?: unknown[];
}

/**
 * What a node with its whole history and an idle fee market answers unless a test says otherwise:
 * the history floor read with every outcome, and the recent fees read with every prepare.
 */
const DEFAULTS: Record<string, (params: unknown[], attempt: number) => Reply> = {
  minimumLedgerSlot: () => ({ result: 0 }),
  getFirstAvailableBlock: () => ({ result: 0 }),
  getRecentPrioritizationFees: () => ({ result: [] }),
};

export function startFakeRpc(path = "/"): FakeRpc {
  const handlers = new Map<string, (params: unknown[], attempt: number) => Reply>();
  const attempts = new Map<string, number>();
  const requests: FakeRpc["requests"] = [];
  const replyTo = (call: Call): Reply => {
    const params = call.params ?? [];
    requests.push({ method: call.method, params });
    const attempt = attempts.get(call.method) ?? 0;
    attempts.set(call.method, attempt + 1);
    const handler = handlers.get(call.method) ?? DEFAULTS[call.method];
    if (!handler) return { error: { code: -32601, message: "Method not found" } };
    return handler(params, attempt);
  };
  const respond = async (id: unknown, reply: Reply): Promise<Response> => {
    if ("delayMs" in reply) {
      await new Promise((r) => setTimeout(r, reply.delayMs));
      return respond(id, reply.thenReply ?? { result: null });
    }
    if ("status" in reply) return new Response(reply.body ?? "", { status: reply.status, headers: reply.headers });
    if ("raw" in reply) return new Response(reply.raw, { headers: { "content-type": "application/json" } });
    return Response.json({ jsonrpc: "2.0", id, ...reply });
  };
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 30,
    async fetch(req) {
      const body = (await req.json()) as Call | Call[];
      if (!Array.isArray(body)) return respond(body.id, replyTo(body));
      // A batch: one node answers every call; an HTTP-level reply (status, delay, raw) of any call
      // is the whole request's.
      const replies = body.map((call) => ({ id: call.id, reply: replyTo(call) }));
      const whole = replies.find((r) => "status" in r.reply || "delayMs" in r.reply || "raw" in r.reply);
      if (whole) return respond(whole.id, whole.reply);
      return Response.json(replies.map((r) => ({ jsonrpc: "2.0", id: r.id, ...r.reply })));
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}${path}`,
    requests,
    handle: (method, fn) => void handlers.set(method, fn),
    stop: async () => void (await server.stop(true)),
  };
}

export const context = (value: unknown) => ({ result: { context: { slot: 1 }, value } });
