/**
 * The web page's bundle as one file, built by scripts/build.ts and embedded in the single
 * executable: the executable carries no page sources and no bundler input, and serves at once what
 * the service would otherwise build (and compress) as it starts. The compressed forms are stored
 * too, since brotli at quality 11 is the slow part.
 */
/** A page asset as served: its bytes, type, and compressed forms. */
export interface Asset {
  body: Uint8Array;
  type: string;
  /** brotli and gzip forms of a text asset; absent when compression would not pay */
  br?: Uint8Array;
  gzip?: Uint8Array;
}

export interface Bundle {
  html: string;
  assets: Map<string, Asset>;
}

/** Where the file is, by its path in the checkout (see src/lib/app-files.ts). */
export const PREBUILT_BUNDLE_PATH = ["dist", "stage", "web-bundle.json"] as const;

interface StoredAsset {
  type: string;
  body: string;
  br?: string;
  gzip?: string;
}

const encode = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const decode = (text: string) => new Uint8Array(Buffer.from(text, "base64"));

export function serializeBundle(bundle: Bundle): string {
  const assets: Record<string, StoredAsset> = {};
  for (const [path, asset] of bundle.assets) {
    assets[path] = {
      type: asset.type,
      body: encode(asset.body),
      ...(asset.br ? { br: encode(asset.br) } : {}),
      ...(asset.gzip ? { gzip: encode(asset.gzip) } : {}),
    };
  }
  return JSON.stringify({ html: bundle.html, assets });
}

export function deserializeBundle(text: string): Bundle {
  const stored = JSON.parse(text) as { html: string; assets: Record<string, StoredAsset> };
  const assets = new Map<string, Asset>();
  for (const [path, asset] of Object.entries(stored.assets)) {
    assets.set(path, {
      type: asset.type,
      body: decode(asset.body),
      ...(asset.br ? { br: decode(asset.br) } : {}),
      ...(asset.gzip ? { gzip: decode(asset.gzip) } : {}),
    });
  }
  return { html: stored.html, assets };
}
