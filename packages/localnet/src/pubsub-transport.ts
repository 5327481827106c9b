/**
 * The WebSocket server under PubSub, on either runtime: Bun's own server under Bun (its native
 * backpressure and pings), the `ws` package over node:http under Node. PubSubServer sees only
 * sockets that send text and close, so its notifications are the same bytes on both.
 */
import { createServer, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";

export interface PubSubSocket {
  send(text: string): void;
  close(code: number, reason: string): void;
}

interface SocketRefusal {
  status: number;
  body: string;
}

export interface SocketHandlers<C> {
  /** The upgrade request's verdict from its Host and Origin headers: null admits it. */
  admit(host: string | null, origin: string | null): SocketRefusal | null;
  open(socket: PubSubSocket): C;
  message(conn: C, text: string): void;
  close(conn: C): void;
}

export interface SocketLimits {
  maxMessageBytes: number;
  /** a client this far behind is disconnected rather than buffered without bound */
  maxBufferedBytes: number;
}

export interface SocketServer {
  port: number;
  stop(): Promise<void>;
}

export function serveSockets<C>(
  port: number,
  handlers: SocketHandlers<C>,
  limits: SocketLimits,
): Promise<SocketServer> {
  return typeof Bun === "undefined"
    ? serveOnNode(port, handlers, limits)
    : Promise.resolve(serveOnBun(port, handlers, limits));
}

function serveOnBun<C>(port: number, handlers: SocketHandlers<C>, limits: SocketLimits): SocketServer {
  const server = Bun.serve<{ conn: C | null }>({
    hostname: "127.0.0.1",
    port,
    fetch: (req, bun) => {
      const refusal = handlers.admit(req.headers.get("host"), req.headers.get("origin"));
      if (refusal) return new Response(refusal.body, { status: refusal.status });
      if (bun.upgrade(req, { data: { conn: null } })) return undefined;
      return new Response("expected a WebSocket upgrade", { status: 426 });
    },
    websocket: {
      data: {} as { conn: C | null },
      maxPayloadLength: limits.maxMessageBytes,
      backpressureLimit: limits.maxBufferedBytes,
      closeOnBackpressureLimit: true,
      idleTimeout: 120,
      open: (ws) => {
        ws.data.conn = handlers.open({ send: (text) => void ws.send(text), close: (code, why) => ws.close(code, why) });
      },
      message: (ws, message) => {
        if (ws.data.conn === null) return;
        handlers.message(ws.data.conn, typeof message === "string" ? message : Buffer.from(message).toString("utf8"));
      },
      close: (ws) => {
        if (ws.data.conn !== null) handlers.close(ws.data.conn);
      },
    },
  });
  return { port: server.port ?? port, stop: () => server.stop(true) };
}

async function serveOnNode<C>(port: number, handlers: SocketHandlers<C>, limits: SocketLimits): Promise<SocketServer> {
  const http = createServer((_req, res) => {
    res.writeHead(426, { "content-type": "text/plain" }).end("expected a WebSocket upgrade");
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxMessageBytes });
  http.on("upgrade", (req, socket: Duplex, head: Buffer) => {
    const refusal = handlers.admit(req.headers.host ?? null, req.headers.origin ?? null);
    if (refusal) {
      refuseUpgrade(socket, refusal);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => adopt(ws, handlers, limits));
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(port, "127.0.0.1", () => resolve());
  });
  const address = http.address();
  return {
    port: typeof address === "object" && address ? address.port : port,
    stop: async () => {
      for (const ws of wss.clients) ws.terminate();
      wss.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function adopt<C>(ws: WebSocket, handlers: SocketHandlers<C>, limits: SocketLimits): void {
  const conn = handlers.open({
    send: (text) => {
      // As Bun's closeOnBackpressureLimit: a reader this far behind loses its connection, and its
      // subscriptions go with it, instead of the node buffering notifications without bound.
      if (ws.bufferedAmount > limits.maxBufferedBytes) ws.terminate();
      else ws.send(text);
    },
    close: (code, why) => ws.close(code, why),
  });
  ws.on("message", (data) => handlers.message(conn, rawText(data)));
  ws.on("close", () => handlers.close(conn));
  // A socket error is followed by its close event; the connection's end is handled there.
  ws.on("error", () => {});
}

function rawText(data: Buffer | ArrayBuffer | Buffer[]): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.from(data as ArrayBuffer).toString("utf8");
}

function refuseUpgrade(socket: Duplex, refusal: SocketRefusal): void {
  const body = Buffer.from(refusal.body, "utf8");
  socket.end(
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? ""}\r\n` +
      `content-type: text/plain\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${refusal.body}`,
  );
}
