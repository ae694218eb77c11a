// From a file, a paste, a drop or a URL to the RGBA bytes the picture view sends to Python.
// The browser decodes (createImageBitmap: off the page's main thread, and scaled while it
// decodes), so a huge picture never freezes the page; what a file is, and what the page
// must say about it, is read from its first bytes before anything is decoded. Every
// refusal is a PictureError with one sentence for #picture-error.

export class PictureError extends Error {}

// Past this many pixels a picture is refused before it is decoded: the decoded bitmap alone
// would take 4 bytes a pixel (a 20000 × 20000 picture, 1.6 GB). Past SCALED_DECODE_PIXELS
// it is decoded straight to the size asked, off the page's thread.
export const MAX_DECODED_PIXELS = 100e6;
export const SCALED_DECODE_PIXELS = 16e6;
// Past this many bytes a file is refused unread.
export const MAX_FILE_BYTES = 64e6;

const startsWith = (bytes, ...values) => values.every((value, i) => bytes[i] === value);
const ascii = (bytes, from, to) => String.fromCharCode(...bytes.subarray(from, to));
const u16be = (b, i) => (b[i] << 8) | b[i + 1];
const u32be = (b, i) => ((b[i] << 24) >>> 0) + (b[i + 1] << 16) + (b[i + 2] << 8) + b[i + 3];

// A JPEG's size and colour components, from its first frame header (SOFn).
function jpegFacts(bytes) {
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1];
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01 || marker === 0xff) {
      at += marker === 0xff ? 1 : 2;
      continue;
    }
    const length = u16be(bytes, at + 2);
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
      return { height: u16be(bytes, at + 5), width: u16be(bytes, at + 7), components: bytes[at + 9] };
    }
    at += 2 + length;
  }
  return null;
}

// What the first bytes say: {format, width, height, notes} (width/height when the format
// says them up front), or a PictureError.
export function sniff(bytes, type = "") {
  if (bytes.length === 0) throw new PictureError("The file is empty: it holds no picture.");
  const head = ascii(bytes, 0, Math.min(bytes.length, 256)).trimStart().toLowerCase();
  if (type === "image/svg+xml" || head.startsWith("<svg") || (head.startsWith("<?xml") && head.includes("<svg"))) {
    throw new PictureError("SVG is a drawing made of shapes, not pixels, so the picture view does not open it (an SVG can also run scripts); save it as PNG or JPEG and open that.");
  }
  const notes = [];
  if (startsWith(bytes, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) {
    if (bytes.length < 33 || ascii(bytes, 12, 16) !== "IHDR") throw new PictureError("The PNG file is cut short or damaged: its header is incomplete.");
    const depth = bytes[24];
    if (depth === 16) notes.push("It is a 16-bit PNG: the browser reduces its values to 8 bits (0–255).");
    return { format: "PNG", width: u32be(bytes, 16), height: u32be(bytes, 20), notes };
  }
  if (startsWith(bytes, 0xff, 0xd8, 0xff)) {
    const facts = jpegFacts(bytes);
    if (facts?.components === 4) notes.push("It is a CMYK JPEG: the browser converted its colours to RGB.");
    return { format: "JPEG", width: facts?.width, height: facts?.height, notes };
  }
  if (head.startsWith("gif87a") || head.startsWith("gif89a")) {
    if (bytes.length < 10) throw new PictureError("The GIF file is cut short or damaged: its header is incomplete.");
    const text = ascii(bytes, 0, bytes.length);
    if (text.includes("NETSCAPE2.0") || text.includes("ANIMEXTS1.0")) notes.push("It is an animated GIF: its first frame is shown.");
    return { format: "GIF", width: bytes[6] | (bytes[7] << 8), height: bytes[8] | (bytes[9] << 8), notes };
  }
  if (head.startsWith("riff") && ascii(bytes, 8, 12) === "WEBP") return { format: "WebP", notes };
  if (head.startsWith("bm")) return { format: "BMP", width: bytes[18] | (bytes[19] << 8) | (bytes[20] << 16), height: Math.abs(new DataView(bytes.buffer, bytes.byteOffset).getInt32(22, true)), notes };
  if (ascii(bytes, 4, 12) === "ftypavif") return { format: "AVIF", notes };
  throw new PictureError("This file is not a picture the page can read: open a PNG, JPEG, GIF, WebP or BMP image.");
}

// The side lengths a picture of `width` × `height` gets for a longer side of `size`: as it
// is when it fits, else scaled down keeping its aspect.
export function fittedSize(width, height, size) {
  const longer = Math.max(width, height);
  if (longer <= size) return { width, height, scaled: false };
  const factor = size / longer;
  return { width: Math.max(1, Math.round(width * factor)), height: Math.max(1, Math.round(height * factor)), scaled: true };
}

// The decoded picture of a Blob: {bitmap, width, height, format, notes}. A picture larger than
// SCALED_DECODE_PIXELS (as its header says) is decoded straight to `size` (createImageBitmap's
// resize), one larger than MAX_DECODED_PIXELS refused unread.
export async function decodePicture(blob, size) {
  if (blob.size === 0) throw new PictureError("The file is empty: it holds no picture.");
  if (blob.size > MAX_FILE_BYTES) throw new PictureError(`The file is ${(blob.size / 1e6).toFixed(0)} MB: the picture view opens files up to ${MAX_FILE_BYTES / 1e6} MB.`);
  const bytes = new Uint8Array(await blob.slice(0, 1 << 16).arrayBuffer());
  const facts = sniff(bytes, blob.type);
  const options = { colorSpaceConversion: "none", premultiplyAlpha: "none", imageOrientation: "from-image" };
  const pixels = facts.width && facts.height ? facts.width * facts.height : 0;
  if (pixels > MAX_DECODED_PIXELS) {
    throw new PictureError(`The picture is ${facts.width} × ${facts.height} pixels (${Math.round(pixels / 1e6)} megapixels): the picture view opens pictures up to ${MAX_DECODED_PIXELS / 1e6} megapixels; scale it down and open it again.`);
  }
  const huge = pixels > SCALED_DECODE_PIXELS;
  if (huge) {
    const fitted = fittedSize(facts.width, facts.height, size);
    Object.assign(options, { resizeWidth: fitted.width, resizeHeight: fitted.height, resizeQuality: "medium" });
  }
  let bitmap;
  try {
    bitmap = await bitmapOf(blob, options);
  } catch {
    if (huge) throw new PictureError(`The picture is ${facts.width} × ${facts.height} pixels (${Math.round(facts.width * facts.height / 1e6)} megapixels), more than this browser can decode; scale it down and open it again.`);
    throw new PictureError(`The ${facts.format} file could not be decoded: it is damaged or cut short.`);
  }
  const width = facts.width && huge ? facts.width : bitmap.width;
  const height = facts.height && huge ? facts.height : bitmap.height;
  return { bitmap, width, height, format: facts.format, notes: facts.notes };
}

// createImageBitmap(source, options). An engine that does not know imageOrientation
// "from-image" (Safari 16, WPE WebKit 2.38) refuses the options with a TypeError: it then
// decodes with its own default orientation rather than call every picture damaged.
export async function bitmapOf(source, options) {
  try {
    return await createImageBitmap(source, options);
  } catch (error) {
    if (!(error instanceof TypeError) || options.imageOrientation === undefined) throw error;
    const { imageOrientation, ...known } = options;
    return createImageBitmap(source, known);
  }
}

// A 2D canvas of `width` × `height` that is not on the page: an OffscreenCanvas, or a
// detached <canvas> where the engine has none (Safari 16, WPE WebKit 2.38).
export function scratchCanvas(width, height) {
  if (typeof OffscreenCanvas === "function") return new OffscreenCanvas(width, height);
  return Object.assign(document.createElement("canvas"), { width, height });
}

// The RGBA bytes of `bitmap` at its fitted size for `size`: {pixels, width, height, scaled,
// transparent}. Drawn with smoothing when scaled (area-like at high quality), pixel for
// pixel otherwise.
export function pixelsOf(picture, size) {
  const fitted = fittedSize(picture.width, picture.height, size);
  const canvas = scratchCanvas(fitted.width, fitted.height);
  const context = canvas.getContext("2d", { willReadFrequently: true, colorSpace: "srgb" });
  context.imageSmoothingEnabled = fitted.scaled || picture.bitmap.width !== fitted.width;
  context.imageSmoothingQuality = "high";
  context.drawImage(picture.bitmap, 0, 0, fitted.width, fitted.height);
  const pixels = new Uint8Array(context.getImageData(0, 0, fitted.width, fitted.height).data.buffer);
  let transparent = false;
  for (let i = 3; i < pixels.length; i += 4) {
    if (pixels[i] !== 255) {
      transparent = true;
      break;
    }
  }
  return { pixels, width: fitted.width, height: fitted.height, scaled: fitted.scaled, transparent };
}

// A picture at `url` (the element's src): fetched with CORS, so a server that does not
// allow this site to read it is refused with a sentence (never a tainted canvas).
export async function fetchPicture(url) {
  let response;
  try {
    response = await fetch(url, { mode: "cors", credentials: "omit" });
  } catch {
    throw new PictureError(`The picture at ${url} could not be fetched: the server does not let other sites read it (no CORS header), or it cannot be reached.`);
  }
  if (!response.ok) throw new PictureError(`The picture at ${url} could not be fetched: the server answered HTTP ${response.status}.`);
  return response.blob();
}
