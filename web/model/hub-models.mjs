// The models the real-model view suggests by name: checkpoints of the
// architectures the engine runs (src/model/arch), with the files it reads on
// their Hub pages' main branch (docs/api-hub.md: the table of models); a GGUF repo's
// suggestion names its one file (loadModel's `file`). Their sizes are not
// written here: the view computes them from the Hub's file lists.
export const SUGGESTED_MODELS = Object.freeze([
  { repo: 'google-bert/bert-base-chinese', note: 'real.hub.model.bertZh' },
  { repo: 'hfl/chinese-roberta-wwm-ext', note: 'real.hub.model.robertaZh' },
  { repo: 'FacebookAI/xlm-roberta-base', note: 'real.hub.model.xlmr' },
  { repo: 'FacebookAI/roberta-base', note: 'real.hub.model.roberta' },
  { repo: 'openai-community/gpt2', note: 'real.hub.model.gpt2' },
  { repo: 'Helsinki-NLP/opus-mt-zh-en', note: 'real.hub.model.opusMt' },
  { repo: 'Qwen/Qwen2.5-0.5B', note: 'real.hub.model.qwen25' },
  { repo: 'Qwen/Qwen3-0.6B', note: 'real.hub.model.qwen3' },
  {
    repo: 'Qwen/Qwen2.5-0.5B-Instruct-GGUF',
    file: 'qwen2.5-0.5b-instruct-q4_k_m.gguf',
    note: 'real.hub.model.qwen25GgufQ4',
  },
  {
    repo: 'Qwen/Qwen2.5-0.5B-Instruct-GGUF',
    file: 'qwen2.5-0.5b-instruct-q8_0.gguf',
    note: 'real.hub.model.qwen25GgufQ8',
  },
]);

/** A suggestion's key in the sizes the view keeps: its repo, and its file when it names one. */
export const suggestionKey = ({ repo, file }) => (file ? `${repo}/${file}` : repo);

/**
 * A suggestion's download from its repo's file list (listModelFiles'): a GGUF file's own size, else what
 * loading reads; null when the list has no such file or no weights the engine reads.
 */
export function suggestionDownload({ file }, { files, download }) {
  if (!file) return download;
  const size = files.find((f) => f.name === file)?.size;
  return size === undefined ? null : { names: [file], bytes: size, exact: true };
}
