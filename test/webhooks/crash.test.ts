/**
 * End to end: the real service process is SIGKILLed after an event committed and while its webhook
 * is on the wire, unacknowledged. After the restart the event is delivered under the same
 * webhook-id and body; once acknowledged it is never sent again, across another kill and restart
 * (the next event arrives alone).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { openDatabase } from "../../db/client";
import { launch, T0 } from "../helpers/read-world";
import { connectFeedListeners } from "../../src/feed-listeners";
import { Receiver } from "./receiver";
import { freePortsSync } from "../helpers/socket";
import { serviceExecutable } from "../helpers/executable";

const dataDir = mkdtempSync(join(tmpdir(), "cfl-webhook-kill-"));
const [port] = freePortsSync(1) as [number];
const receiver = new Receiver().start();

afterAll(async () => {
  await receiver.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function startService() {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  const child = Bun.spawn([await serviceExecutable()], {
    env: {
      ...env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      LOCAL_CHAIN_RPC_PORT: "0",
      LOCAL_CHAIN_GRPC_PORT: "0",
      LOCAL_CHAIN_SLOT_MS: "50",
      ADMIN_SECRET: "admin-secret-for-tests-0123456789abcdef",
      WEBHOOKS_ALLOW_PRIVATE: "1",
      DEMO: "0",
      JOBS: "1",
      LOG_LEVEL: "warn",
    },
    stdout: "ignore",
    stderr: "inherit",
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (
      await fetch(`http://127.0.0.1:${port}/api/stats`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return child;
    if (Date.now() > deadline) throw new Error("the service did not start");
    await Bun.sleep(100);
  }
}

describe("webhooks across a SIGKILL", () => {
  test("killed between commit and acknowledgement: delivered once after the restart, never again", async () => {
    let child = await startService();
    const created = await fetch(`http://127.0.0.1:${port}/api/admin/webhooks`, {
      method: "POST",
      headers: { authorization: "Bearer admin-secret-for-tests-0123456789abcdef", "content-type": "application/json" },
      body: JSON.stringify({ url: receiver.url }),
    });
    expect(created.status).toBe(200);
    const hook = (await created.json()) as { id: string; secret: string };

    // The first request hangs: the event is committed and sent, the receiver has not answered.
    receiver.answers = ["hang", 200];
    // This process writes the event itself, so it connects the webhook outbox as the service does.
    connectFeedListeners();
    const db = openDatabase(join(dataDir, "service.db"));
    launch(db, { launchedAtMs: T0, symbol: "KILL" });
    db.$client.close();
    const [first] = await receiver.waitFor(1, 10_000);
    child.kill("SIGKILL");
    expect(await child.exited).not.toBe(0);

    child = await startService();
    const [, second] = await receiver.waitFor(2, 15_000);
    expect(second!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
    expect(second!.body).toBe(first!.body);
    const payload = new Webhook(hook.secret).verify(second!.body, second!.headers) as {
      type: string;
      data: { symbol: string };
    };
    expect(payload).toMatchObject({ type: "launch", data: { symbol: "KILL" } });
    const deliveries = async () =>
      (
        (await (
          await fetch(`http://127.0.0.1:${port}/api/admin/webhooks/${hook.id}/deliveries`, {
            headers: { authorization: "Bearer admin-secret-for-tests-0123456789abcdef" },
          })
        ).json()) as {
          deliveries: { status: string }[];
        }
      ).deliveries;
    const deadline = Date.now() + 5_000;
    while ((await deliveries())[0]?.status !== "delivered" && Date.now() < deadline) await Bun.sleep(50);
    expect((await deliveries()).map((d) => d.status)).toEqual(["delivered"]);

    // Acknowledged and recorded: another crash and restart sends nothing more.
    child.kill("SIGKILL");
    await child.exited;
    child = await startService();
    // A later event is sent after any due one (deliveries go out in the order they fell due): once
    // it has arrived, a resend of the acknowledged one would have arrived before it.
    const again = openDatabase(join(dataDir, "service.db"));
    launch(again, { launchedAtMs: T0 + 1, symbol: "AFTER" });
    again.$client.close();
    const [, , third] = await receiver.waitFor(3, 15_000);
    expect(JSON.parse(third!.body)).toMatchObject({ type: "launch", data: { symbol: "AFTER" } });
    expect(receiver.received).toHaveLength(3);
    child.kill("SIGTERM");
    expect(await child.exited).toBe(0);
  }, 90_000);
});
