/**
 * Headless Chromium (Debian's packages) driven by playwright-core, with a fresh profile per run,
 * console-error capture and screenshots saved to test/artifacts/ (kept by CI, ignored by git).
 *
 * The browser is Debian's `chromium-headless-shell` when it is installed (`.ci/run` installs it):
 * the same Chromium build's headless shell, which is also what Playwright launches for headless
 * tests. It renders with the same Blink and V8 but runs no desktop browser UI; the browser tests
 * took a third less CPU with it (134 against 197 s, all of test/web and the liabilities
 * end-to-end on two workers) and a third less time. The full `chromium` is the fallback.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, setDefaultTimeout } from "bun:test";
import AxeBuilder from "@axe-core/playwright";
import { chromium, type BrowserContext, type Page } from "playwright-core";

const HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell";
const FULL_CHROMIUM = "/usr/bin/chromium";
const CHROMIUM =
  process.env.CHROMIUM_PATH ??
  (existsSync(HEADLESS_SHELL) || !existsSync(FULL_CHROMIUM) ? HEADLESS_SHELL : FULL_CHROMIUM);
const ARTIFACTS = join(import.meta.dir, "..", "artifacts");

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 360, height: 740 };

export interface Browser {
  context: BrowserContext;
  /** console errors and uncaught exceptions, per page, as text */
  errors: string[];
  newPage(viewport?: { width: number; height: number }): Promise<Page>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}: run apt-get install -y chromium-headless-shell (.ci/run does).`,
    );
  }
  const profile = mkdtempSync(join(tmpdir(), "cfl-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--headless",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    viewport: DESKTOP,
  });
  const errors: string[] = [];
  const watch = (page: Page) => {
    page.on("console", (msg) => {
      if (msg.type() === "error") errors.push(`${page.url()}: ${msg.text()}`);
    });
    page.on("pageerror", (error) => errors.push(`${page.url()}: ${error.message}`));
  };
  context.on("page", watch);
  for (const page of context.pages()) watch(page);
  return {
    context,
    errors,
    async newPage(viewport = DESKTOP) {
      const page = await context.newPage();
      await page.setViewportSize(viewport);
      return page;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * The browser tests' common setup: one Chromium per test file, launched before its first test and
 * closed after its last, and the longer per-test timeout that browser steps on real timers need.
 * A Chromium that died under a test (a timed-out step on a loaded machine can take it down) is
 * launched again for the next page, so one failure stays one failure instead of failing every
 * test after it. `onLaunch` sets up each launched context (routes, listeners), the first and any
 * relaunch alike. Call at the top level of the file; the handle is usable once the tests run.
 */
export function useBrowser(
  options: { testTimeoutMs?: number; onLaunch?: (context: BrowserContext) => Promise<void> | void } = {},
): Browser {
  setDefaultTimeout(options.testTimeoutMs ?? 45_000);
  let launched: Browser | null = null;
  let died = false;
  let closing = false;
  const launch = async () => {
    const browser = await launchBrowser();
    died = false;
    browser.context.on("close", () => {
      if (!closing) died = true;
    });
    await options.onLaunch?.(browser.context);
    launched = browser;
  };
  beforeAll(launch, 90_000);
  afterAll(async () => {
    closing = true;
    await launched?.close();
  });
  const current = (): Browser => {
    if (!launched) throw new Error("the browser is launched in beforeAll; use it inside hooks and tests");
    return launched;
  };
  return {
    get context() {
      return current().context;
    },
    get errors() {
      return current().errors;
    },
    async newPage(viewport) {
      if (died) {
        const dead = current();
        await dead.close().catch(() => {});
        await launch();
      }
      return current().newPage(viewport);
    },
    close: () => {
      closing = true;
      return current().close();
    },
  };
}

/**
 * A full-page JPEG in test/artifacts/. JPEG at quality 85: about half the CPU of a PNG of the same
 * page (0.15 against 0.33 s measured on a long page), and the suite takes ~46 of them.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.jpg`), fullPage: true, type: "jpeg", quality: 85 });
}

/** True when nothing on the page is wider than the viewport (no sideways scrolling on a phone). */
export async function overflowsHorizontally(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const wide: string[] = [];
    if (document.documentElement.scrollWidth > width)
      wide.push(`document ${document.documentElement.scrollWidth}px > ${width}px`);
    return wide;
  });
}

/**
 * axe-core's violations on what the page shows now (within `include` when given), one line each:
 * "where: rule (targets)". Every rule runs; two options only make it cheaper (~0.4 s a run, measured):
 * legacy mode runs axe in the page itself, where the partial mode opens a blank page per run to
 * merge frames' results (the pages have no cross-origin frames); and only violations are collected,
 * not the passes nobody reads.
 */
export async function axeViolations(page: Page, where: string, include?: string): Promise<string[]> {
  let builder = new AxeBuilder({ page }).setLegacyMode(true).options({ resultTypes: ["violations"] });
  if (include) builder = builder.include(include);
  const result = await builder.analyze();
  return result.violations.map((v) => `${where}: ${v.id} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
}

/**
 * A liveness wait: returns as soon as `check` holds, polling every 50 ms. The bound (20 s) is for a
 * loaded parallel run; it is never a duration a test relies on.
 */
export async function until(check: () => Promise<boolean> | boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await Bun.sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}
