// The tokenizers of tests/fixtures/text's references (make_text_cases.py):
// each folder's tokenizer files read as the loader reads them (texts, and a
// Marian folder's .spm files as bytes), and the references by name.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BINARY_FILES, tokenizerFilesToRead } from '../../../src/js/models/checkpoint-files.mjs';
import { createTokenizer } from '../../../src/js/models/tokenizers/tokenizer.mjs';

const MODELS = fileURLToPath(new URL('../../fixtures/models/', import.meta.url));
export const TEXT = fileURLToPath(new URL('../../fixtures/text/', import.meta.url));

/** The references' names (bert-zh, gpt2, …, stories260K), each a JSON of tests/fixtures/text (generated.json is generate()'s). */
export const TEXT_CASES = readdirSync(TEXT)
  .filter((name) => name.endsWith('.json') && name !== 'generated.json')
  .map((name) => name.slice(0, -5))
  .sort();

/** A reference's JSON. */
export const textCases = (name) => JSON.parse(readFileSync(path.join(TEXT, `${name}.json`), 'utf8'));

/** The folder a reference's tokenizer is in: a model fixture's, or tests/fixtures/text/<name> (stories260K). */
export const tokenizerFolder = (name) =>
  existsSync(path.join(TEXT, name)) ? path.join(TEXT, name) : path.join(MODELS, name);

/** The folder's tokenizer as createTokenizer makes it for a load, on `host`. */
export function folderTokenizer(name, host) {
  const folder = tokenizerFolder(name);
  const files = {};
  for (const file of tokenizerFilesToRead((n) => existsSync(path.join(folder, n)))) {
    const bytes = readFileSync(path.join(folder, file));
    files[file] = BINARY_FILES.includes(file) ? new Uint8Array(bytes) : bytes.toString('utf8');
  }
  return createTokenizer(files, host);
}
