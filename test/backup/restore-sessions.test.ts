/**
 * A restore ends every session (issue 63, item 3): a backup holds the sessions open when it was
 * taken, so without this a cookie signed out since (the operator's "sign out all sessions", a
 * user's sign-out) answered as signed in again once that backup was restored.
 */
import { afterEach, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { testService, type TestService } from "../helpers/service";
import { devLogin, ORIGIN } from "../accounts/support";
import { runCommand } from "./support";

const ADMIN_SECRET = "s3cret-for-the-operator-page-0123456789";
const services: TestService[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const svc of services.splice(0)) await svc.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function serviceOn(dataDir: string): TestService {
  const svc = testService({ DATA_DIR: dataDir, PUBLIC_URL: ORIGIN, ADMIN_SECRET });
  services.push(svc);
  return svc;
}

async function adminSignIn(svc: TestService): Promise<string> {
  const response = await svc.call("/api/admin/session", {
    method: "POST",
    headers: { "content-type": "application/json", origin: ORIGIN },
    body: JSON.stringify({ secret: ADMIN_SECRET }),
  });
  expect(response.status).toBe(200);
  return response.headers.get("set-cookie")!.split(";")[0]!;
}

const adminSignedIn = async (svc: TestService, cookie: string) =>
  (await svc.json("/api/admin/session", { headers: { cookie } })).body.signedIn as boolean;
const userSignedIn = async (svc: TestService, cookie: string) =>
  (await svc.json("/api/me", { headers: { cookie } })).body.signedIn as boolean;

test("`restore` of a backup taken while sessions were open brings none back: admin and user cookies are signed out", async () => {
  const dataDir = `/tmp/cfl-restore-sessions-${crypto.randomUUID()}`;
  const backupPath = `${dataDir}-backup.db`;
  dirs.push(dataDir, backupPath);
  const before = serviceOn(dataDir);
  const admin = await adminSignIn(before);
  const user = await devLogin(before, "alice_demo");
  expect(await adminSignedIn(before, admin)).toBe(true);
  expect(await userSignedIn(before, user)).toBe(true);

  // The backup holds both sessions open.
  expect((await runCommand("backup", [backupPath], { DATA_DIR: dataDir })).exitCode).toBe(0);

  // Signed out everywhere after it: the operator's "sign out all sessions", the user's sign-out.
  const signOutAll = await before.call("/api/admin/sessions", {
    method: "DELETE",
    headers: { cookie: admin, origin: ORIGIN },
  });
  expect(signOutAll.status).toBe(200);
  const logout = await before.call("/api/auth/logout", { method: "POST", headers: { cookie: user, origin: ORIGIN } });
  expect(logout.status).toBeLessThan(400);
  expect(await adminSignedIn(before, admin)).toBe(false);
  expect(await userSignedIn(before, user)).toBe(false);
  await before.close();

  const restored = await runCommand("restore", [backupPath], { DATA_DIR: dataDir });
  expect(restored.exitCode).toBe(0);
  expect(restored.stdout).toContain(`to ${join(dataDir, "service.db")}`);

  const after = serviceOn(dataDir);
  expect(await adminSignedIn(after, admin)).toBe(false);
  expect(await userSignedIn(after, user)).toBe(false);
  expect((await after.json("/api/admin/overview", { headers: { cookie: admin } })).status).toBe(404);
  // No session row survived in the file the service opened, not only the two cookies tried.
  const count = (table: string) =>
    Number((after.ctx.db.$client.query(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: bigint }).n);
  expect(count("sessions")).toBe(0);
  expect(count("admin_sessions")).toBe(0);
  // Signing in again works as before.
  expect(await adminSignedIn(after, await adminSignIn(after))).toBe(true);
  expect(await userSignedIn(after, await devLogin(after, "alice_demo"))).toBe(true);
}, 60_000);
