/**
 * `npm start` as the README runs it: a SIGTERM to the npm process (what a process manager or a
 * terminal's close sends) must stop the service, not leave the Bun process orphaned and still
 * serving the port. The start script replaces its shell with the service, so npm's own forwarding
 * of the signal reaches the service itself.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePortsSync } from "../helpers/socket";
import { appendTail, followStderr } from "../helpers/stderr";

const ROOT = join(import.meta.dir, "..", "..");
const dataDir = mkdtempSync(join(tmpdir(), "cfl-npm-start-"));
let started: number[] = [];

/** The process ids under `pid` (its children, theirs, ...), read from /proc. */
function descendants(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The command name is in parentheses and may hold spaces: the fields after it are fixed.
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parentOf.set(Number(name), ppid);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  let frontier = [pid];
  while (frontier.length > 0) {
    const next = [...parentOf].filter(([, ppid]) => frontier.includes(ppid)).map(([child]) => child);
    found.push(...next);
    frontier = next;
  }
  return found;
}

/** Still running: present and not a zombie waiting for a parent to reap it. */
function alive(pid: number): boolean {
  if (!existsSync(`/proc/${pid}/stat`)) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** When the waits give up: set once the test starts, past any start a loaded machine makes. */
let deadline = 0;

async function until(what: string, probe: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await Promise.resolve(probe()).catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(100);
  }
}

afterAll(() => {
  // Whatever the test left behind (the orphan it looks for), stopped by its own id.
  for (const pid of started)
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  rmSync(dataDir, { recursive: true, force: true });
});

test("SIGTERM to `npm start` stops the service: nothing keeps serving its port", async () => {
  const [rpcPort, , port] = freePortsSync(3) as [number, number, number];
  const base = `http://127.0.0.1:${port}`;
  const npm = Bun.spawn(["npm", "start"], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: "production",
      DATA_DIR: dataDir,
      PORT: String(port),
      LOCAL_CHAIN_RPC_PORT: String(rpcPort),
      LOCAL_CHAIN_GRPC_PORT: "0",
      DEMO: "0",
      JOBS: "0",
    },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  let stderr = "";
  followStderr(npm.stderr, (text) => {
    stderr = appendTail(stderr, text);
  });
  // A start from the sources on a loaded machine: the test's own timeout is the real bound.
  deadline = Date.now() + 170_000;
  await until("the service to answer", async () => {
    if (npm.exitCode !== null) throw new Error(`npm start exited ${npm.exitCode}: ${stderr}`);
    return (await fetch(`${base}/api/stats`)).ok;
  });
  started = descendants(npm.pid);
  expect(started.length).toBeGreaterThan(0);

  npm.kill("SIGTERM");
  await npm.exited;
  await until("every process npm started to exit", () => started.every((pid) => !alive(pid)));
  const refused = await fetch(`${base}/api/stats`).then(
    () => false,
    () => true,
  );
  expect(refused).toBe(true);
}, 180_000);
