/**
 * The web page, served by the API process: `public/src` is bundled with Bun's bundler once, in
 * memory, and served under content-hashed names (cached for a year); `index.html` answers every
 * page path so deep links work. Other paths outside /api and /assets get the page with status 404
 * (it shows its not-found view); /api and /assets keep the API's JSON 404.
 *
 * The operator and launch pages are their own chunks, loaded only when visited; every text asset
 * is minified and kept compressed (brotli and gzip, made once at build) so a request costs a copy.
 */
import { AppError } from "../lib/errors";
import { Elysia } from "elysia";
import { join } from "node:path";
import { brotliCompressSync, constants as zlib, gzipSync } from "node:zlib";
import type { AppContext } from "../context";
import { CACHE } from "../http/cache";
import { errorResponse } from "../http/errors";
import { appFile, insideExecutable } from "../lib/app-files";
import { log } from "../lib/log";
import { readSetting, SOL_USD_KEY } from "../settings";
import { docsRoutes } from "./docs";
import { type Asset, type Bundle, deserializeBundle, PREBUILT_BUNDLE_PATH } from "./prebuilt";

export { PREBUILT_BUNDLE_PATH, serializeBundle } from "./prebuilt";

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

/** Below this a compressed answer saves less than its own overhead (and Lighthouse ignores it). */
const COMPRESS_FROM_BYTES = 512;

function compressed(body: Uint8Array, type: string): Asset {
  if (body.length < COMPRESS_FROM_BYTES) return { body, type };
  return {
    body,
    type,
    br: new Uint8Array(
      brotliCompressSync(body, {
        params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length },
      }),
    ),
    gzip: new Uint8Array(gzipSync(body, { level: 9 })),
  };
}

/** The encoding to answer with, from the request's Accept-Encoding (q=0 refuses one). */
function chooseEncoding(acceptEncoding: string | null, asset: Asset): "br" | "gzip" | null {
  if (!acceptEncoding) return null;
  const accepted = new Map<string, number>();
  for (const part of acceptEncoding.toLowerCase().split(",")) {
    const [name, ...params] = part.trim().split(";");
    if (!name) continue;
    const q = params.map((x) => /^\s*q=([\d.]+)\s*$/.exec(x)?.[1]).find((x) => x !== undefined);
    accepted.set(name.trim(), q === undefined ? 1 : Number(q));
  }
  const ok = (name: string) => (accepted.get(name) ?? accepted.get("*") ?? 0) > 0;
  if (asset.br && ok("br")) return "br";
  if (asset.gzip && ok("gzip")) return "gzip";
  return null;
}

/** The asset's bytes in the best encoding the client takes, with the headers that say so. */
function encodedBody(request: Request | null, asset: Asset): { body: Uint8Array; headers: Record<string, string> } {
  const vary: Record<string, string> = asset.br || asset.gzip ? { vary: "Accept-Encoding" } : {};
  const encoding = chooseEncoding(request?.headers.get("accept-encoding") ?? null, asset);
  if (encoding === null) return { body: asset.body, headers: vary };
  return { body: asset[encoding]!, headers: { ...vary, "content-encoding": encoding } };
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
  // The single executable has no page sources: it carries the bundle built with it (scripts/build.ts).
  if (insideExecutable) return deserializeBundle(await Bun.file(appFile(...PREBUILT_BUNDLE_PATH)).text());
  const started = performance.now();
  const result = await Bun.build({
    entrypoints: [join(PUBLIC_DIR, "src", "main.ts")],
    target: "browser",
    format: "esm",
    minify: true,
    // The operator and launch pages (and what only they use) load when visited, not with every page.
    splitting: true,
    naming: { entry: "app-[hash].[ext]", chunk: "chunk-[hash].[ext]" },
    sourcemap: "none",
  });
  if (!result.success) {
    throw new AppError("WEB_BUILD_FAILED", { part: "web bundle", logs: result.logs.map((l) => l.message).join("; ") });
  }
  const assets = new Map<string, Asset>();
  let appPath: string | null = null;
  let appBytes = 0;
  for (const output of result.outputs) {
    const name = output.path.replace(/^.*[\\/]/, "");
    const body = new Uint8Array(await output.arrayBuffer());
    assets.set(`/assets/${name}`, compressed(body, "text/javascript; charset=utf-8"));
    if (output.kind === "entry-point") {
      appPath = `/assets/${name}`;
      appBytes = body.length;
    }
  }
  if (!appPath) throw new AppError("WEB_BUILD_FAILED", { part: "web bundle", logs: "no entry point" });

  const styles = await Bun.build({ entrypoints: [join(PUBLIC_DIR, "styles.css")], minify: true });
  if (!styles.success || !styles.outputs[0])
    throw new AppError("WEB_BUILD_FAILED", { part: "styles", logs: styles.logs.map((l) => l.message).join("; ") });
  const css = new Uint8Array(await styles.outputs[0].arrayBuffer());
  const stylesPath = `/assets/styles-${Bun.hash(css).toString(36)}.css`;
  assets.set(stylesPath, compressed(css, "text/css; charset=utf-8"));
  assets.set(
    "/favicon.svg",
    compressed(new Uint8Array(await Bun.file(join(PUBLIC_DIR, "favicon.svg")).arrayBuffer()), "image/svg+xml"),
  );

  const html = (await Bun.file(join(PUBLIC_DIR, "index.html")).text())
    .replace("%APP%", appPath)
    .replace("%STYLES%", stylesPath);
  log.info("web bundle built", {
    ms: Math.round(performance.now() - started),
    bytes: appBytes,
  });
  return { html, assets };
}

/**
 * The page's HTML for one deployment: the explorer link template and SOL's price in USD (when the
 * market source gave one lately) ride in meta tags, so the shared bundle stays the same.
 */
export function pageHtml(bundle: Bundle, explorerUrl: string | null, solUsd: number | null = null): string {
  const escaped = (explorerUrl ?? "")
    .replace(/&/g, "&amp;")
    .replace(/"/g, "&quot;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
  const price = solUsd !== null && Number.isFinite(solUsd) && solUsd > 0 ? String(solUsd) : "";
  return bundle.html.replace("%EXPLORER%", escaped).replace("%SOLUSD%", price);
}

/** A price older than this is not shown: USD beside SOL must be about now, or not at all. */
const SOL_USD_FRESH_MS = 6 * 3_600_000;

/** SOL's price in USD as the market job last stored it, while fresh; null otherwise. */
function currentSolUsd(ctx: AppContext): number | null {
  const raw = readSetting(ctx.db, SOL_USD_KEY);
  if (!raw) return null;
  try {
    const { usd, atMs } = JSON.parse(raw) as { usd?: unknown; atMs?: unknown };
    if (typeof usd !== "number" || !Number.isFinite(usd) || usd <= 0 || typeof atMs !== "number") return null;
    return ctx.now() - atMs <= SOL_USD_FRESH_MS ? usd : null;
  } catch {
    return null;
  }
}

/** The filled-in page, compressed once per bundle and deployment. */
const pageCache = new WeakMap<Bundle, Map<string, Asset>>();

function pageAsset(bundle: Bundle, explorerUrl: string | null, solUsd: number | null): Asset {
  let byPage = pageCache.get(bundle);
  if (!byPage) {
    byPage = new Map();
    pageCache.set(bundle, byPage);
  }
  const key = `${explorerUrl ?? ""}\u0000${solUsd ?? ""}`;
  let asset = byPage.get(key);
  if (!asset) {
    // The price moves on every market run; the copies of older prices are dropped now and then.
    if (byPage.size >= 16) byPage.clear();
    asset = compressed(new TextEncoder().encode(pageHtml(bundle, explorerUrl, solUsd)), PAGE_HEADERS["content-type"]!);
    byPage.set(key, asset);
  }
  return asset;
}

async function page(
  request: Request,
  explorerUrl: string | null,
  solUsd: () => number | null,
  status = 200,
): Promise<Response> {
  try {
    const bundle = await webBundle();
    const { body, headers } = encodedBody(request, pageAsset(bundle, explorerUrl, solUsd()));
    return new Response(body as BodyInit, { status, headers: { ...PAGE_HEADERS, ...headers } });
  } catch (error) {
    log.error("web page unavailable", { error });
    return errorResponse(503, "The web page is not available right now; the API still is.");
  }
}

async function asset(request: Request, path: string): Promise<Response> {
  let bundle: Bundle;
  try {
    bundle = await webBundle();
  } catch {
    return errorResponse(503, "The web page is not available right now; the API still is.");
  }
  const found = bundle.assets.get(path);
  if (!found) return errorResponse(404, "No such file.");
  const { body, headers } = encodedBody(request, found);
  return new Response(body as BodyInit, {
    headers: {
      ...headers,
      "content-type": found.type,
      // Hashed names never change content; the favicon keeps a plain name, so it revalidates.
      "cache-control": path.startsWith("/assets/") ? CACHE.immutable : "public, max-age=3600",
      "x-content-type-options": "nosniff",
    },
  });
}

export function webRoutes(ctx: AppContext) {
  const explorerUrl = ctx.config.explorerUrl;
  const solUsd = () => currentSolUsd(ctx);
  const app = new Elysia({ name: "web" })
    // Build when the server starts listening, so the first visitor does not wait for it.
    .onStart(() => {
      void webBundle().catch((error) => log.error("web bundle failed", { error }));
    })
    .get("/assets/:file", ({ params, request }) => asset(request, `/assets/${params.file}`), {
      detail: { hide: true },
    })
    .get("/favicon.svg", ({ request }) => asset(request, "/favicon.svg"), { detail: { hide: true } })
    // Browsers ask for /favicon.ico on pages that name no icon (and some always do).
    .get("/favicon.ico", ({ request }) => asset(request, "/favicon.svg"), { detail: { hide: true } })
    .use(docsRoutes());
  for (const path of PAGE_PATHS)
    app.get(path, ({ request }) => page(request, explorerUrl, solUsd), { detail: { hide: true } });
  // A mistyped page path gets the page's own not-found view (status 404); the API and assets keep JSON.
  app.get(
    "/*",
    ({ request }) => {
      const path = new URL(request.url).pathname;
      if (path.startsWith("/api/") || path === "/api" || path.startsWith("/assets/"))
        return errorResponse(404, "No such route.");
      return page(request, explorerUrl, solUsd, 404);
    },
    { detail: { hide: true } },
  );
  return app;
}
