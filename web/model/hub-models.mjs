// The models the real-model view suggests by name: checkpoints of the
// architectures the engine runs (src/model/arch), with the files it reads on
// their Hub pages' main branch (README.md: "Hub models"). Their sizes are not
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
]);
