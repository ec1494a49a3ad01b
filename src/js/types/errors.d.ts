// Declarations of mha-wasm's errors (src/js/index.d.ts re-exports them): the
// stable code every error carries, and the fields an error has besides its
// message.

/**
 * The stable code every error of the library carries (error.code), so that a program tells errors apart
 * without reading their English (src/js/errors.mjs lists what each means). A TypeError or RangeError of a
 * refused argument has 'InvalidArgument'; a size past the engine's memory or limits 'TooLarge'.
 */
export type ErrorCode =
  | 'RepoNotFound'
  | 'GatedRepo'
  | 'RevisionNotFound'
  | 'EntryNotFound'
  | 'Forbidden'
  | 'HubError'
  | 'Unreachable'
  | 'Offline'
  | 'Interrupted'
  | 'StorageFull'
  | 'NoConfig'
  | 'UnsupportedModel'
  | 'BadConfig'
  | 'NoWeights'
  | 'BadCheckpoint'
  | 'BadTokenizer'
  | 'NoChatTemplate'
  | 'NoTaskHead'
  | 'TooLarge'
  | 'InvalidArgument'
  | 'Disposed'
  | 'WorkerFailed'
  | 'Unsupported';

/**
 * What an error of the library carries besides its message (an Error, TypeError or RangeError): its code,
 * and where it is about one, the file (a checkpoint's 'config.json', 'model.safetensors' …), the config
 * field and its value as JSON (UnsupportedModel), the Hub repo and endpoint.
 */
export interface MhaErrorFields {
  code?: ErrorCode;
  file?: string;
  field?: string;
  value?: string;
  repo?: string;
  endpoint?: string;
}
