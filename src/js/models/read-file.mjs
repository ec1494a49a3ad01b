// A checkpoint file's text, bytes and JSON as the loader reads them (a
// source's file: { name, size, read(begin, end) }, sources/files.mjs),
// bounded in size, with an Error naming the file when it is too large, cut
// short or not a JSON object. Read by the loader, the weight files' index
// (formats/weight-files.mjs) and the tokenizers.
import { fileError } from '../errors.mjs';

// The largest text file of a checkpoint this reads (config.json, a tokenizer's files, an index):
// real ones are under 20 MB; anything larger is not read whole into a string.
export const MAX_TEXT_BYTES = 64 << 20;

/** A file's bytes as UTF-8 text. */
export async function readText(file) {
  if (file.size > MAX_TEXT_BYTES)
    throw fileError(
      file.name,
      `${file.name}: ${file.size} bytes, more than the ${MAX_TEXT_BYTES} a checkpoint's text file has`,
    );
  return new TextDecoder().decode(await file.read(0, file.size));
}

/**
 * A file's bytes (a tokenizer's binary file: Marian's SentencePiece models),
 * under the same bound as a text file's.
 */
export async function readBytes(file) {
  if (file.size > MAX_TEXT_BYTES)
    throw fileError(
      file.name,
      `${file.name}: ${file.size} bytes, more than the ${MAX_TEXT_BYTES} a checkpoint's tokenizer file has`,
    );
  const bytes = await file.read(0, file.size);
  if (bytes.byteLength !== file.size)
    throw fileError(file.name, `${file.name}: ended at byte ${bytes.byteLength} of ${file.size}`);
  return bytes;
}

/** A file's JSON; an Error naming the file when it is not JSON. */
export async function readJson(file) {
  return parseJsonObject(file.name, await readText(file));
}

/**
 * The JSON object of the text of file `name`. Every JSON file of a checkpoint
 * is an object: null, a number or a list is a damaged file, an Error naming it.
 */
export function parseJsonObject(name, text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw fileError(name, `${name}: not valid JSON (${error.message})`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw fileError(
      name,
      `${name}: expected a JSON object, got ${value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value}`,
    );
  return value;
}
