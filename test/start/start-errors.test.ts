/**
 * A start that cannot go on ends at once with one line on stderr and exit status 1 (issue 63,
 * items 7 and 13): a port another process listens on (before the chain or the demo start, instead
 * of sharing the port through SO_REUSEPORT), a DATA_DIR the service cannot write, a secret file
 * that is not one (naming the _FILE setting that was set), a database a newer version migrated.
 * The real process, `bun run src/main.ts`, as the other end-to-end tests start the sources.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDatabase, openDatabase } from "../../db/client";
import { freePortsSync } from "../helpers/socket";

const ROOT = join(import.meta.dir, "..", "..");
const work = mkdtempSync(join(tmpdir(), "cfl-start-errors-"));
const children: ReturnType<typeof Bun.spawn>[] = [];
const journal = JSON.parse(readFileSync(join(ROOT, "db", "migrations", "meta", "_journal.json"), "utf8")) as {
  entries: { tag: string; when: number }[];
};

afterAll(() => {
  // A child that started where it should have refused (the old behaviour) is stopped by its id.
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  rmSync(work, { recursive: true, force: true });
});

interface Ended {
  code: number;
  stdout: string;
  stderr: string;
  lines: string[];
}

/** Starts the service from the sources with `env` on free ports, and waits for it to end. */
async function startService(env: Record<string, string>): Promise<Ended> {
  const [rpcPort, , port] = freePortsSync(3) as [number, number, number];
  const child = Bun.spawn([process.execPath, "run", join(ROOT, "src", "main.ts")], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: "production",
      LOG_LEVEL: "info",
      PORT: String(port),
      LOCAL_CHAIN_RPC_PORT: String(rpcPort),
      LOCAL_CHAIN_GRPC_PORT: "0",
      DEMO: "0",
      JOBS: "0",
      ...env,
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  children.push(child);
  const [code, stdout, stderr] = await Promise.all([
    child.exited,
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  return { code, stdout, stderr, lines: stderr.trimEnd().split("\n") };
}

function dataDir(name: string): string {
  return join(work, name);
}

describe("a start that cannot go on prints one line and exits 1", () => {
  test("a port another process listens on: refused before the chain or the demo start", async () => {
    const [port] = freePortsSync(1) as [number];
    // As another copy of the service listens (Elysia turns SO_REUSEPORT on): the kernel would let
    // a second process with the same option share the port and take part of its connections.
    const other = Bun.serve({
      port,
      hostname: "0.0.0.0",
      reusePort: true,
      fetch: () => new Response("the other process"),
    });
    try {
      const ended = await startService({ PORT: String(port), DATA_DIR: dataDir("port"), DEMO: "1" });
      expect(ended.code).toBe(1);
      expect(ended.lines).toEqual([`Cannot start: port ${port} on 0.0.0.0 is in use by another process (PORT, HOST)`]);
      // Nothing started: no chain, no demo, not even the database.
      expect(ended.stdout).toBe("");
      expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe("the other process");
    } finally {
      void other.stop(true);
    }
  }, 120_000);

  test("a DATA_DIR that cannot be written: one line naming it, no source or stack", async () => {
    // Below a regular file, so it cannot be made whoever runs the test (root writes read-only modes).
    const file = join(work, "a-file");
    writeFileSync(file, "");
    const unwritable = join(file, "data");
    const ended = await startService({ DATA_DIR: unwritable });
    expect(ended.code).toBe(1);
    expect(ended.lines).toHaveLength(1);
    expect(ended.lines[0]).toStartWith(`Cannot start: DATA_DIR ${unwritable} is not usable: `);
    expect(ended.lines[0]).toContain("ENOTDIR");
  }, 120_000);

  test("MASTER_SECRET_FILE that names no file: the line names MASTER_SECRET_FILE", async () => {
    const ended = await startService({ DATA_DIR: dataDir("master"), MASTER_SECRET_FILE: join(work, "missing") });
    expect(ended.code).toBe(1);
    expect(ended.lines).toHaveLength(1);
    expect(ended.lines[0]).toStartWith("Invalid configuration: MASTER_SECRET_FILE is not valid: ");
    expect(ended.stderr).not.toContain(join(work, "missing"));
  }, 120_000);

  test("TREASURY_KEY_FILE holding no key: the line names TREASURY_KEY_FILE", async () => {
    const keyFile = join(work, "not-a-key.json");
    writeFileSync(keyFile, "[1,2,3]\n");
    const ended = await startService({ DATA_DIR: dataDir("treasury"), TREASURY_KEY_FILE: keyFile });
    expect(ended.code).toBe(1);
    expect(ended.lines).toHaveLength(1);
    expect(ended.lines[0]).toStartWith("Invalid configuration: TREASURY_KEY_FILE is not valid: ");
  }, 120_000);
});

describe("migrations", () => {
  test("a database a newer version migrated (two migrations this build does not know) is refused", async () => {
    const dir = dataDir("newer");
    mkdirSync(dir);
    const path = join(dir, "service.db");
    closeDatabase(openDatabase(path));
    // What a newer build leaves: its two later migrations recorded as drizzle records them.
    const newer = new Database(path);
    const last = journal.entries[journal.entries.length - 1]!.when;
    newer.run("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('a', ?), ('b', ?)", [last + 1, last + 2]);
    newer.close();

    const ended = await startService({ DATA_DIR: dir });
    expect(ended.code).toBe(1);
    expect(ended.lines).toHaveLength(1);
    expect(ended.lines[0]).toStartWith(
      `Cannot start: the database ${path} has 2 migration(s) this build does not know`,
    );
    const after = new Database(path, { readonly: true });
    expect(after.query("SELECT count(*) AS n FROM __drizzle_migrations").get()).toEqual({
      n: journal.entries.length + 2,
    });
    after.close();
  }, 120_000);

  test("each migration applied is logged, once", async () => {
    const path = join(dataDir("fresh"), "service.db");
    // Another process, so its log is the one the service writes (a test's own log is silenced).
    const script = `import { closeDatabase, openDatabase } from ${JSON.stringify(join(ROOT, "db", "client.ts"))};
closeDatabase(openDatabase(process.argv[1]));
closeDatabase(openDatabase(process.argv[1]));`;
    const child = Bun.spawn([process.execPath, "-e", script, path], {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: "production", LOG_LEVEL: "info" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [code, stdout] = await Promise.all([child.exited, new Response(child.stdout).text()]);
    expect(code).toBe(0);
    const applied = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { msg: string; migration?: string })
      .filter((line) => line.msg === "migration applied")
      .map((line) => line.migration);
    expect(applied).toEqual(journal.entries.map((entry) => entry.tag));
  }, 60_000);
});
