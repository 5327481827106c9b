/**
 * A Chromium that dies under one test (a timed-out step on a loaded machine took it down once and
 * the next 10 tests of the file failed with it) is launched again for the next test's page.
 */
import { describe, expect, test } from "bun:test";
import { useBrowser } from "./browser";

const browser = useBrowser();

describe("the shared browser of a test file", () => {
  test("crashes under a test", async () => {
    const page = await browser.newPage();
    await page.setContent("<p>before</p>");
    const closed = new Promise<void>((resolve) => browser.context.once("close", () => resolve()));
    const cdp = await browser.context.newCDPSession(page);
    await cdp.send("Browser.crash").catch(() => {});
    await closed;
  });

  test("the next test gets a page of a relaunched browser", async () => {
    const page = await browser.newPage();
    await page.setContent("<p>after</p>");
    expect(await page.textContent("p")).toBe("after");
  });
});
