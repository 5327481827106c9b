/** Helpers for the hardening tests: a real listening socket and a raw chunked upload. */
import { connect } from "node:net";
import type { TestService } from "./service";

/** Serves the test service on a real socket (port 0), so Bun's own request handling is exercised. */
export function listen(svc: TestService): { port: number; stop(): void } {
  const app = svc.app.listen({ port: 0, hostname: "127.0.0.1" });
  const port = app.server!.port!;
  return { port, stop: () => void app.server?.stop(true) };
}

/**
 * Where picks fall: below Linux's ephemeral range (32768-60999), where the OS places outgoing
 * connections and port-0 listeners. A pick there could be taken by any of the suite's thousands of
 * loopback connections between the probe and the child's own bind (a service then exits at start,
 * "Is port N in use?"); below it, only another worker's pick of the same number can.
 */
const PICK_PORT_MIN = 15_000;
const PICK_PORT_MAX = 32_000;

/** A port nothing listens on right now, for a spawned process to take. */
export function freePort(): number {
  return freePortsSync(1)[0]!;
}

/**
 * `count` consecutive ports nothing listens on right now, found without awaiting (for a file's
 * constants). The local chain takes its RPC port and the next (its WebSocket, where web3.js looks
 * for it), so the pair must be free together.
 */
export function freePortsSync(count: number): number[] {
  for (let attempt = 0; attempt < 50; attempt++) {
    const first = PICK_PORT_MIN + Math.floor(Math.random() * (PICK_PORT_MAX - PICK_PORT_MIN - count));
    const held: ReturnType<typeof Bun.serve>[] = [];
    try {
      for (let i = 0; i < count; i++)
        held.push(Bun.serve({ port: first + i, hostname: "127.0.0.1", fetch: () => new Response() }));
      return Array.from({ length: count }, (_, i) => first + i);
    } catch {
      // one of them is taken: try another
    } finally {
      for (const server of held) void server.stop(true);
    }
  }
  throw new Error(`no ${count} consecutive free ports`);
}

function dechunk(raw: string): string {
  let out = "";
  let rest = raw;
  for (;;) {
    const line = rest.indexOf("\r\n");
    if (line < 0) return out;
    const size = parseInt(rest.slice(0, line), 16);
    if (!size) return out;
    out += rest.slice(line + 2, line + 2 + size);
    rest = rest.slice(line + 2 + size + 2);
  }
}

export interface ChunkedResult {
  status: number;
  head: string;
  body: string;
  /** body bytes the client had written when the answer arrived */
  bytesSentBeforeAnswer: number;
}

/**
 * Streams `totalBytes` of chunked body (64 KiB chunks, honouring backpressure) and stops as soon as
 * the server answers: what the server read is at most what was sent by then.
 */
export function sendChunked(
  port: number,
  path: string,
  headers: Record<string, string>,
  totalBytes: number,
): Promise<ChunkedResult> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    let sent = 0;
    let answeredAt: number | null = null;
    let finished = false;
    const done = () => {
      if (finished) return;
      const split = received.indexOf("\r\n\r\n");
      if (split < 0) return;
      const head = received.slice(0, split);
      const length = /content-length: *(\d+)/i.exec(head);
      let body = received.slice(split + 4);
      if (length) {
        if (body.length < Number(length[1])) return;
      } else if (/transfer-encoding: *chunked/i.test(head)) {
        if (!body.endsWith("0\r\n\r\n")) return;
        body = dechunk(body);
      } else return; // no framing: the body ends when the connection closes
      finished = true;
      socket.destroy();
      resolve({ status: Number(head.split(" ")[1]), head, body, bytesSentBeforeAnswer: answeredAt ?? sent });
    };
    socket.on("data", (data) => {
      if (answeredAt === null) answeredAt = sent;
      received += data.toString("latin1");
      done();
    });
    socket.on("error", (error) => {
      if (!finished && received) done();
      else if (!finished) reject(error);
    });
    socket.on("close", () => {
      if (!finished) {
        if (received) {
          finished = true;
          const split = received.indexOf("\r\n\r\n");
          const head = received.slice(0, split);
          const raw = received.slice(split + 4);
          const body = /transfer-encoding: *chunked/i.test(head) ? dechunk(raw) : raw;
          resolve({ status: Number(received.split(" ")[1]), head, body, bytesSentBeforeAnswer: answeredAt ?? sent });
        } else reject(new Error("closed without an answer"));
      }
    });
    socket.on("connect", async () => {
      const lines = [
        `POST ${path} HTTP/1.1`,
        "Host: 127.0.0.1",
        "Transfer-Encoding: chunked",
        ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      ];
      socket.write(`${lines.join("\r\n")}\r\n\r\n`);
      const chunk = Buffer.alloc(64 * 1024, "a");
      const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]);
      while (sent < totalBytes && answeredAt === null && !finished && !socket.destroyed) {
        const flushed = socket.write(frame);
        sent += chunk.length;
        // Let the answer's data event in between chunks: a loop of accepted writes would otherwise
        // send everything before it could see that the server already answered.
        await new Promise<void>((r) => setImmediate(r));
        if (!flushed) {
          await new Promise<void>((r) => {
            const t = setTimeout(r, 200);
            socket.once("drain", () => {
              clearTimeout(t);
              r();
            });
          });
        }
      }
      if (answeredAt === null && !finished && !socket.destroyed) socket.write("0\r\n\r\n");
    });
  });
}

/** Sends only a request's head (no body byte) and reads the status the server answers with. */
export function sendHeadOnly(port: number, path: string, headers: Record<string, string>): Promise<{ status: number }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error("no answer to the head alone"));
    }, 10_000);
    socket.on("connect", () => {
      const lines = [
        `POST ${path} HTTP/1.1`,
        "Host: 127.0.0.1",
        ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      ];
      socket.write(`${lines.join("\r\n")}\r\n\r\n`);
    });
    socket.on("data", (data) => {
      received += data.toString("latin1");
      if (received.includes("\r\n")) {
        clearTimeout(timer);
        socket.destroy();
        resolve({ status: Number(received.split(" ")[1]) });
      }
    });
    socket.on("error", (error) => {
      clearTimeout(timer);
      if (received) resolve({ status: Number(received.split(" ")[1]) });
      else reject(error);
    });
  });
}
