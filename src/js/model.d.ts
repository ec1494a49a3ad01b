// Type declarations for 'mha-wasm/model': the API of 'mha-wasm', whose
// engines' loadModel() loads Hugging Face checkpoints in browsers too (in Node,
// every entry's engines load models). Checked by tests/types/example.ts.
export * from './index.js';

import type { LoadModelOptions } from './index.js';
export { pipeline } from './types/tasks.js';

/** A Hub repo's top-level file, with its size in bytes as the Hub's file list gives it. */
export interface ModelFile {
  name: string;
  size?: number;
}

/** What listModelFiles() tells of a Hub repo, with one request and no download. */
export interface ModelFiles {
  repo: string;
  /** The revision asked for ('main' by default), and the commit it is at. */
  revision: string;
  commit: string;
  /** The origin asked. */
  endpoint: string;
  files: ModelFile[];
  /**
   * What loadModel() would download of them (config, tokenizer, the weights): their names and bytes (`exact`
   * false when the shards' sizes were summed from the list rather than from the index), or null when the repo
   * has no weights the engine reads.
   */
  download: { names: string[]; bytes: number; exact: boolean } | null;
}

/**
 * A Hugging Face Hub repo's files and sizes, and what loading it would download — before loading it. `name`:
 * 'org/name' or a Hub page's URL. The options, token rules and errors are loadModel's (a token goes to the
 * endpoint's origin only; errors carry codes: RepoNotFound, GatedRepo, Unreachable …).
 */
export function listModelFiles(
  name: string | URL,
  options?: Pick<LoadModelOptions, 'revision' | 'endpoint' | 'token' | 'signal'>,
): Promise<ModelFiles>;

/** The repo a model name or Hub URL names ({ repo, revision? }), or null for text that names none. No request. */
export function parseModelName(name: string | URL): { repo: string; revision?: string } | null;

/**
 * Which of a user's local files loadModel() takes as the checkpoint, before loading them (no file is read).
 * `entries`: records with a `path` relative to what was given, '/' or '\' separated (a dropped or picked
 * folder's files, e.g. { path: 'bert/config.json', file }). `files`: the records of the one folder loadModel
 * takes from such files (the folder holding config.json nearest the top; hidden files and folders and other
 * folders left out; of two files with one name, the first), `folder` its path ('' at the top); `read`: those of
 * `files` it reads besides the weights (config.json, generation_config.json, the tokenizer's files). The records
 * themselves, in their order.
 */
export function pickModelFiles<T extends { path: string }>(
  entries: readonly T[],
): { folder: string; files: T[]; read: T[] };

/** The Hub asked when no endpoint is given (in Node, $HF_ENDPOINT comes first). */
export const DEFAULT_HUB_ENDPOINT: string;
