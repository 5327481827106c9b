/**
 * The launch image: its type is sniffed from its bytes (never from the file name or the declared
 * content type), its size and pixel count are bounded before anything decodes it fully, and the
 * stored preview is a small WebP made with sharp.
 */
import type { Metadata } from "sharp";
import { AppError } from "../lib/errors";
import { loadImageLibrary } from "../lib/native-libraries";

export type ImageType = "png" | "jpeg" | "gif" | "webp";

export const CONTENT_TYPES: Record<ImageType, string> = {
  png: "image/png",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
};

/**
 * Pixels a launch image may have. A small file can declare a huge canvas (a decompression bomb):
 * 40 megapixels is far beyond any token image and keeps a decode at a few hundred MB at worst.
 */
const MAX_IMAGE_PIXELS = 40_000_000;
const PREVIEW_SIZE = 256;

function sniffImageType(bytes: Uint8Array): ImageType | null {
  const b = bytes;
  const at = (offset: number, ...values: number[]) => values.every((v, i) => b[offset + i] === v);
  if (b.length >= 8 && at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return "png";
  if (b.length >= 3 && at(0, 0xff, 0xd8, 0xff)) return "jpeg";
  if (b.length >= 6 && (at(0, 0x47, 0x49, 0x46, 0x38, 0x37, 0x61) || at(0, 0x47, 0x49, 0x46, 0x38, 0x39, 0x61)))
    return "gif";
  if (b.length >= 12 && at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return "webp";
  return null;
}

const unsupportedImage = () => new AppError("LAUNCH_IMAGE_UNSUPPORTED");
const imageTooLarge = (maxBytes: number) => new AppError("LAUNCH_IMAGE_TOO_LARGE", { maxBytes });

/** Checks size and type; the caller then makes the preview, which also proves the file decodes. */
export function checkImage(bytes: Uint8Array, maxBytes: number): ImageType {
  if (bytes.length > maxBytes) throw imageTooLarge(maxBytes);
  if (bytes.length === 0) throw unsupportedImage();
  const type = sniffImageType(bytes);
  if (!type) throw unsupportedImage();
  return type;
}

/**
 * The stored preview: square, PREVIEW_SIZE pixels, WebP, first frame only. The header is read
 * first so a bomb is refused (413) before its pixels are decoded; sharp's own pixel limit stays
 * on as a second guard for headers that lie.
 */
export async function makePreview(bytes: Uint8Array, type: ImageType): Promise<Uint8Array> {
  const sharp = await loadSharp();
  const options = { limitInputPixels: MAX_IMAGE_PIXELS, failOn: "error" as const, animated: false };
  let meta: Metadata;
  try {
    meta = await sharp(bytes, options).metadata();
  } catch (error) {
    if (/pixel limit/i.test(String((error as Error)?.message))) throw bombRefused();
    throw unreadable(error);
  }
  if (meta.format !== type) throw unsupportedImage();
  const width = meta.width ?? 0;
  const height = meta.pageHeight ?? meta.height ?? 0;
  if (width <= 0 || height <= 0) throw unsupportedImage();
  if (width * height > MAX_IMAGE_PIXELS) throw bombRefused();
  try {
    const out = await sharp(bytes, options)
      .rotate()
      .resize(PREVIEW_SIZE, PREVIEW_SIZE, { fit: "cover" })
      .webp({ quality: 80 })
      .toBuffer();
    return new Uint8Array(out);
  } catch (error) {
    if (/pixel limit/i.test(String((error as Error)?.message))) throw bombRefused();
    throw unreadable(error);
  }
}

/**
 * sharp and libvips, loaded on the first launch image rather than with this module (at startup):
 * libvips is ~6 MB of resident code that a process making no launch never needs.
 */
let sharpModule: Promise<typeof import("sharp")> | null = null;
async function loadSharp(): Promise<typeof import("sharp")["default"]> {
  // Inside the single executable libvips must be in the process before sharp's addon loads.
  sharpModule ??= loadImageLibrary().then(() => import("sharp"));
  return (await sharpModule).default;
}

const bombRefused = () => new AppError("LAUNCH_IMAGE_TOO_MANY_PIXELS", { maxPixels: MAX_IMAGE_PIXELS });
const unreadable = (cause: unknown) => new AppError("LAUNCH_IMAGE_UNREADABLE", {}, { cause });
