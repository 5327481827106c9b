/**
 * The web page, served by the API process: `public/src` is bundled with Bun's bundler once, in
 * memory, and served under content-hashed names (cached for a year); `index.html` answers every
 * page path so deep links work. Other paths outside /api and /assets get the page with status 404
 * (it shows its not-found view); /api and /assets keep the API's JSON 404.
 */
import { Elysia } from "elysia";
import { join } from "node:path";
import type { AppContext } from "../context";
import { CACHE } from "../http/cache";
import { errorResponse } from "../http/errors";
import { log } from "../lib/log";
import { docsRoutes } from "./docs";

const PUBLIC_DIR = join(import.meta.dir, "..", "..", "public");

/** Page paths of the router in public/src/main.ts. */
export const PAGE_PATHS = [
  "/",
  "/token/:mint",
  "/idp/:handle",
  "/me",
  "/launch",
  "/ledger",
  "/stats",
  "/proof",
  "/admin",
] as const;

interface Asset {
  body: Uint8Array;
  type: string;
}

interface Bundle {
  html: string;
  assets: Map<string, Asset>;
}

/**
 * Nothing else may be loaded: the page works offline on the local chain and a wallet extension
 * cannot be tricked into running injected scripts. Token images may come from IPFS over https.
 */
const PAGE_HEADERS: Record<string, string> = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-cache",
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob: https:; connect-src 'self'; " +
    "font-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "strict-origin-when-cross-origin",
};

let building: Promise<Bundle> | null = null;

/** The bundle does not depend on configuration, so one build serves every app in the process. */
export function webBundle(): Promise<Bundle> {
  building ??= buildBundle().catch((error) => {
    building = null; // a later request tries again (e.g. after the file is fixed in development)
    throw error;
  });
  return building;
}

async function buildBundle(): Promise<Bundle> {
  const started = performance.now();
  const result = await Bun.build({
    entrypoints: [join(PUBLIC_DIR, "src", "main.ts")],
    target: "browser",
    format: "esm",
    minify: true,
    sourcemap: "none",
  });
  if (!result.success) {
    throw new Error(`web bundle failed: ${result.logs.map((l) => l.message).join("; ")}`);
  }
  const assets = new Map<string, Asset>();
  const entry = result.outputs.find((o) => o.kind === "entry-point");
  if (!entry) throw new Error("web bundle produced no entry point");
  const appPath = `/assets/app-${entry.hash}.js`;
  assets.set(appPath, { body: new Uint8Array(await entry.arrayBuffer()), type: "text/javascript; charset=utf-8" });

  const css = new Uint8Array(await Bun.file(join(PUBLIC_DIR, "styles.css")).arrayBuffer());
  const stylesPath = `/assets/styles-${Bun.hash(css).toString(36)}.css`;
  assets.set(stylesPath, { body: css, type: "text/css; charset=utf-8" });
  assets.set("/favicon.svg", {
    body: new Uint8Array(await Bun.file(join(PUBLIC_DIR, "favicon.svg")).arrayBuffer()),
    type: "image/svg+xml",
  });

  const html = (await Bun.file(join(PUBLIC_DIR, "index.html")).text())
    .replace("%APP%", appPath)
    .replace("%STYLES%", stylesPath);
  log.info("web bundle built", {
    ms: Math.round(performance.now() - started),
    bytes: assets.get(appPath)!.body.length,
  });
  return { html, assets };
}

/** The page's HTML for one deployment: the explorer link template rides in a meta tag. */
export function pageHtml(bundle: Bundle, explorerUrl: string | null): string {
  const escaped = (explorerUrl ?? "")
    .replace(/&/g, "&amp;")
    .replace(/"/g, "&quot;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
  return bundle.html.replace("%EXPLORER%", escaped);
}

async function page(explorerUrl: string | null, status = 200): Promise<Response> {
  try {
    const bundle = await webBundle();
    return new Response(pageHtml(bundle, explorerUrl), { status, headers: PAGE_HEADERS });
  } catch (error) {
    log.error("web page unavailable", { error });
    return errorResponse(503, "The web page is not available right now; the API still is.");
  }
}

async function asset(path: string): Promise<Response> {
  let bundle: Bundle;
  try {
    bundle = await webBundle();
  } catch {
    return errorResponse(503, "The web page is not available right now; the API still is.");
  }
  const found = bundle.assets.get(path);
  if (!found) return errorResponse(404, "No such file.");
  return new Response(found.body as BodyInit, {
    headers: {
      "content-type": found.type,
      // Hashed names never change content; the favicon keeps a plain name, so it revalidates.
      "cache-control": path.startsWith("/assets/") ? CACHE.immutable : "public, max-age=3600",
      "x-content-type-options": "nosniff",
    },
  });
}

export function webRoutes(ctx: AppContext) {
  const explorerUrl = ctx.config.explorerUrl;
  const app = new Elysia({ name: "web" })
    // Build when the server starts listening, so the first visitor does not wait for it.
    .onStart(() => {
      void webBundle().catch((error) => log.error("web bundle failed", { error }));
    })
    .get("/assets/:file", ({ params }) => asset(`/assets/${params.file}`), { detail: { hide: true } })
    .get("/favicon.svg", () => asset("/favicon.svg"), { detail: { hide: true } })
    // Browsers ask for /favicon.ico on pages that name no icon (and some always do).
    .get("/favicon.ico", () => asset("/favicon.svg"), { detail: { hide: true } })
    .use(docsRoutes());
  for (const path of PAGE_PATHS) app.get(path, () => page(explorerUrl), { detail: { hide: true } });
  // A mistyped page path gets the page's own not-found view (status 404); the API and assets keep JSON.
  app.get(
    "/*",
    ({ request }) => {
      const path = new URL(request.url).pathname;
      if (path.startsWith("/api/") || path === "/api" || path.startsWith("/assets/"))
        return errorResponse(404, "No such route.");
      return page(explorerUrl, 404);
    },
    { detail: { hide: true } },
  );
  return app;
}
