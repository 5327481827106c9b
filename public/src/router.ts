/**
 * History-API routing: links stay real `<a href>` (so they open in new tabs and work with the
 * keyboard) and same-site clicks are turned into in-page navigation.
 */
import { notFoundView } from "./pages/not-found";

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

export async function render(): Promise<void> {
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
  const page = await match.r.page();
  if (controller.signal.aborted) return;
  const previous = lastPath;
  lastPath = path;
  await page(root, params, controller.signal);
  // A new page moves focus to its heading; the first load and a change of sort or search on the
  // same page leave focus where the user is.
  if (previous !== null && previous !== path && !controller.signal.aborted) focusHeading(root);
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
export function focusHeading(root: HTMLElement): void {
  const heading = root.querySelector<HTMLElement>("h1");
  if (!heading) return;
  heading.tabIndex = -1;
  heading.focus({ preventScroll: true });
}
