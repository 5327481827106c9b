/**
 * A stop with BACKUP_URL set ends within its bound (issue 63, item 6): stops took 11–13 s, past
 * Docker's default 10 s grace, because the scheduled upload in flight and the upload at SIGTERM
 * each waited 5 s on a store that did not answer. Now BACKUP_STOP_TIMEOUT_MS, counted from the
 * signal, bounds both together; an upload still running then is abandoned and logged, and the
 * next start's schedule takes a fresh generation.
 */
import { afterEach, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import type { FakeS3 } from "../fakes/s3";
import { answering, serviceExecutable } from "../helpers/executable";
import { appendTail, followStderr } from "../helpers/stderr";
import { freePort } from "../helpers/socket";
import { BUCKET, dataDir, fakeStore, s3Env, uniqueSecret } from "./support";

const BOUND_MS = 2_000;
/** Docker's default stop grace is 10 s; the issue asks the stop to end within 8. */
const STOP_LIMIT_MS = 8_000;

let fake: FakeS3 | null = null;
const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await fake?.stop();
  fake = null;
});

/** The executable with its schedules on (the backup every second), until its health answers. */
async function startService(dir: string, env: Record<string, string>) {
  const port = freePort();
  const child = Bun.spawn([await serviceExecutable()], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      DATA_DIR: dir,
      PORT: String(port),
      HOST: "127.0.0.1",
      LOCAL_CHAIN_RPC_PORT: "0",
      LOCAL_CHAIN_GRPC_PORT: "0",
      LOCAL_CHAIN_STATE: "0",
      DEMO: "0",
      LOG_LEVEL: "info",
      ...env,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  cleanups.push(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });
  const stdout = new Response(child.stdout).text();
  const [watched, kept] = child.stderr.tee();
  const stderr = new Response(kept).text();
  let tail = "";
  followStderr(watched, (text) => {
    tail = appendTail(tail, text);
  });
  await answering(child, `http://127.0.0.1:${port}/api/stats`, () => tail);
  return { child, output: async () => `${await stdout}${await stderr}` };
}

test("SIGTERM while a scheduled upload hangs on a store that never answers: out within the bound, the abandoned upload logged; the next start uploads afresh", async () => {
  const secret = uniqueSecret();
  const store = fakeStore(secret);
  fake = store;
  store.stallMs = 600_000; // never answers within this test
  const dir = dataDir();
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const env = s3Env(fake, secret, {
    BACKUP_URL: `s3://${BUCKET}/svc`,
    BACKUP_SCHEDULE: "* * * * * *",
    BACKUP_STOP_TIMEOUT_MS: String(BOUND_MS),
  });
  const service = await startService(dir, env);
  // A scheduled upload is in flight, held by the store.
  await store.until(() => store.stalled > 0);

  const signalledAt = Date.now();
  service.child.kill("SIGTERM");
  expect(await service.child.exited).toBe(0);
  const stoppedInMs = Date.now() - signalledAt;
  const output = await service.output();
  expect(stoppedInMs).toBeLessThan(STOP_LIMIT_MS);
  expect(output).toContain('"msg":"backup upload abandoned at stop: still running at the bound"');
  expect(output).toContain(`"boundMs":${BOUND_MS}`);
  expect(output).toContain('"msg":"stopped"');
  expect(output).not.toContain(secret);
  expect(fake.keys(BUCKET)).toEqual([]); // an abandoned upload leaves no generation

  // The store answers again: the next start's schedule uploads a generation of its own.
  fake.stallMs = 0;
  const again = await startService(dir, env);
  await store.until(() => store.keys(BUCKET).length > 0);
  again.child.kill("SIGTERM");
  expect(await again.child.exited).toBe(0);
}, 180_000);
