/**
 * History-API routing: links stay real `<a href>` (so they open in new tabs and work with the
 * keyboard) and same-site clicks are turned into in-page navigation.
 */
import { h } from "./dom";
import { notFoundView } from "./pages/not-found";
import { errorBox } from "./ui";

export type PageFn = (root: HTMLElement, params: Record<string, string>, signal: AbortSignal) => void | Promise<void>;

interface Route {
  pattern: RegExp;
  keys: string[];
  page: () => Promise<PageFn>;
  title: string;
}

const routes: Route[] = [];
let current: AbortController | null = null;
let lastPath: string | null = null;
let onNavigate: (path: string) => void = () => {};

export function route(path: string, title: string, page: () => Promise<PageFn>): void {
  const keys: string[] = [];
  const pattern = new RegExp(
    `^${path.replace(/:(\w+)/g, (_, key: string) => {
      keys.push(key);
      return "([^/]+)";
    })}/?$`,
  );
  routes.push({ pattern, keys, page, title });
}

export function navigate(href: string): void {
  history.pushState(null, "", href);
  void render();
}

export function setOnNavigate(fn: (path: string) => void): void {
  onNavigate = fn;
}

/** The path and query the page shows now. */
let shownUrl: string | null = null;

/**
 * Draws the page for the current address. `focus` moves focus to its heading even on the same path:
 * after signing in or out the form that had focus is gone, and focus would fall to `<body>`.
 */
export async function render(options: { focus?: boolean } = {}): Promise<void> {
  shownUrl = location.pathname + location.search;
  const root = document.getElementById("main")!;
  current?.abort();
  const controller = new AbortController();
  current = controller;
  const path = location.pathname;
  onNavigate(path);
  const match = routes.map((r) => ({ r, m: r.pattern.exec(path) })).find((x) => x.m);
  root.replaceChildren();
  if (!match) {
    notFoundView(root);
    return;
  }
  const params: Record<string, string> = {};
  for (const [i, k] of match.r.keys.entries()) params[k] = decodeURIComponent(match.m![i + 1]!);
  document.title = `${match.r.title} · Fee Ledger`;
  let page: PageFn;
  try {
    page = await match.r.page();
  } catch (error) {
    if (!controller.signal.aborted) await pageCodeFailed(root, match.r.title, error, controller.signal);
    return;
  }
  if (controller.signal.aborted) return;
  forgetCodeReload();
  const previous = lastPath;
  lastPath = path;
  await page(root, params, controller.signal);
  // A new page moves focus to its heading; the first load and a change of sort or search on the
  // same page leave focus where the user is.
  if (((previous !== null && previous !== path) || options.focus) && !controller.signal.aborted) focusHeading(root);
}

/** Set while the page reloads for code a deploy replaced, so a chunk that stays missing cannot loop. */
const CODE_RELOAD_KEY = "fee-ledger:code-reload";

/**
 * A page's code did not load: the service is restarting or unreachable (try again later), or a
 * deploy replaced the build this tab runs (chunk names are content hashes and only the current
 * build is served), which only a reload of the page can fix: done once, never in a loop.
 */
async function pageCodeFailed(root: HTMLElement, title: string, error: unknown, signal: AbortSignal): Promise<void> {
  if ((await codeIsGone(error)) && !signal.aborted && reloadOnce()) return;
  if (signal.aborted) return;
  root.replaceChildren(
    h("h1", null, title),
    errorBox(
      new Error("This page could not be loaded: the service may be restarting. Check your connection and try again."),
      () => void render(),
    ),
  );
}

/**
 * Whether the server no longer has this tab's build: the module that failed (named in the error
 * where the browser says, as Chromium and Firefox do) or the entry script answers 404. A deploy
 * renames every chunk and with them the entry, so the entry tells where the error names nothing.
 */
async function codeIsGone(error: unknown): Promise<boolean> {
  const named = /\bhttps?:\/\/\S+?\.js\b/.exec(error instanceof Error ? error.message : "")?.[0];
  const entry = document.querySelector<HTMLScriptElement>('script[type="module"][src]')?.src;
  for (const url of [named, entry]) {
    if (!url || new URL(url, location.href).origin !== location.origin) continue;
    try {
      if ((await fetch(url, { cache: "no-store" })).status === 404) return true;
    } catch {
      // unreachable: the retry box, not a reload into the browser's error page
    }
  }
  return false;
}

/** Reloads the page unless it already did for missing code; false when it did (or cannot tell). */
function reloadOnce(): boolean {
  try {
    if (sessionStorage.getItem(CODE_RELOAD_KEY) !== null) return false;
    sessionStorage.setItem(CODE_RELOAD_KEY, String(Date.now()));
  } catch {
    return false; // no session storage: no guard against a loop, so no reload
  }
  location.reload();
  return true;
}

function forgetCodeReload(): void {
  try {
    sessionStorage.removeItem(CODE_RELOAD_KEY);
  } catch {
    // nothing was stored
  }
}

export function startRouter(): void {
  document.addEventListener("click", (event) => {
    if (
      event.defaultPrevented ||
      event.button !== 0 ||
      event.metaKey ||
      event.ctrlKey ||
      event.shiftKey ||
      event.altKey
    )
      return;
    const a = (event.target as Element | null)?.closest?.("a");
    if (!a || a.target || a.hasAttribute("download")) return;
    const url = new URL(a.href, location.href);
    if (url.origin !== location.origin || url.pathname.startsWith("/api/")) return;
    // An in-page anchor ("Skip to content") is the browser's job: it scrolls and moves focus.
    if (url.hash && url.pathname === location.pathname && url.search === location.search) return;
    event.preventDefault();
    if (url.pathname + url.search !== location.pathname + location.search) navigate(url.pathname + url.search);
    window.scrollTo(0, 0);
  });
  window.addEventListener("popstate", () => {
    // Following an in-page anchor ("Skip to content") also fires popstate: same page, nothing to render.
    if (location.pathname + location.search === shownUrl) return;
    void render();
  });
  void render();
}

/** Moves focus to the page heading so screen readers and keyboard users start at the new page. */
function focusHeading(root: HTMLElement): void {
  const heading = root.querySelector<HTMLElement>("h1");
  if (!heading) return;
  heading.tabIndex = -1;
  heading.focus({ preventScroll: true });
}
