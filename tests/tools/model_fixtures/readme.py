"""README.md of tests/fixtures/models: the format, the folders, the rules."""
import json
import os

from .common import OUT_DIR
from .folders import source_text
from .vocabularies import bert_vocab, bpe_vocab, GPT2_EOT, GPT2_MERGES, ROBERTA_MERGES


README = """# Hugging Face checkpoint fixtures

Tiny random checkpoints laid out like folders downloaded from the Hugging Face
Hub, with reference outputs, for the tests of the checkpoint loader (C++ and
JS). Written by `tests/tools/make_model_fixtures.py` (run it with Debian's
`/usr/bin/python3` and `python3-torch`); do not edit by hand: change the
script and run it again. The `hf-*` folders are made by Hugging Face
transformers itself, by `tests/tools/make_hf_fixtures.py`: see
[TRANSFORMERS.md](TRANSFORMERS.md). That script also replaces the
`reference.json` of every folder here with what transformers computes for it
(`AutoModel.from_pretrained` of the folder's own files, float64, eager
attention; ids from `AutoTokenizer`, which must give the committed ones): the
files stay hand-written, since they are layouts `save_pretrained` never writes,
and the script's own reference below agreed to 5e-12.

Every model has hidden size 32, 4 heads (dK 8), 2 layers; BERT/RoBERTa have
intermediate size 64, GPT-2 `n_inner: null` (= 4·32 = 128). Weights are
seeded `torch.randn * 0.2` (embeddings `* 0.5`), LayerNorm weights
`1 + 0.1·randn`, LayerNorm biases `0.1·randn`, every bias nonzero.

## Folders

| folder | files | weights | cases | MHA check | layer check | f32 use |
|---|---|---|---|---|---|---|
%s

* `bert-zh`: BERT (`hidden_act "gelu"` = erf GELU, `layer_norm_eps 1e-12`, `type_vocab_size 2`, post-LN,
  positions 0…L-1), `model.safetensors` keys `bert.embeddings.*`, `bert.encoder.layer.{i}.*` (`nn.Linear`
  weights `[out, in]`, y = x·Wᵀ + b) plus entries a loader must skip: `bert.embeddings.position_ids` (I64 `[1,64]`), `bert.pooler.dense.{weight,bias}`,
  `cls.predictions.bias`, `cls.predictions.transform.dense.weight`, `cls.predictions.transform.LayerNorm.weight`.
* `bert-zh-vocab`: the same float32 weights and config (except `torch_dtype`), stored as F16 with keys
  **without** prefix (`embeddings.*`, `encoder.*`, `pooler.*`, `cls.*`) and the old LayerNorm names
  `LayerNorm.gamma` / `LayerNorm.beta`; no `tokenizer.json`: the WordPiece tokenizer must be built from
  `vocab.txt` (+ `tokenizer_config.json`: `do_lower_case`). Its references use the F16-rounded weights.
* `bert-bf16`: as `bert-zh` but BF16 (upper 16 bits of the float32, round to nearest even); own references.
* `roberta`: RoBERTa, keys `roberta.*` plus `lm_head.dense.weight`, `lm_head.bias` to skip;
  `pad_token_id 1`, `type_vocab_size 1`, `layer_norm_eps 1e-5`, `max_position_embeddings 66`; position ids are
  `pad_token_id + 1 + i` = 2, 3, … (no padding in the inputs). Byte-level BPE `tokenizer.json` with
  `RobertaProcessing` (`<s>` … `</s>`); its merges leave `用` and `，` as 3 one-byte pieces each.
* `gpt2`: GPT-2, keys without prefix (`wte`, `wpe`, `h.{i}.*`, `ln_f`), Conv1D weights `[in, out]`
  (`c_attn.weight [32, 96]`: columns 0–31 Q, 32–63 K, 64–95 V), plus buffers to skip `h.{i}.attn.bias`
  (F32 `[1,1,64,64]` lower-triangular ones) and `h.{i}.attn.masked_bias` (F32 scalar, shape `[]`, -1e4).
  Unpadded header like the real hub gpt2 file. Pre-LN, causal, `gelu_new` (tanh approximation),
  output `ln_f(h)`. Byte-level BPE without post-processor (no special tokens added).
* `gpt2-sharded`: another seed, keys `transformer.*` plus `lm_head.weight [V, 32]` (to skip), split into
  `model-00001-of-00002.safetensors` (F32: `wte`, `wpe`, `h.0.*`) and `model-00002-of-00002.safetensors`
  (BF16: `h.1.*` including its buffers, `ln_f.*`, `lm_head.weight`), with `model.safetensors.index.json`
  (`{"metadata": {"total_size": bytes of tensor data}, "weight_map": {name: file}}`). Same tokenizer as `gpt2`.

safetensors layout: u64 little-endian header length N, N bytes of JSON
(`{"__metadata__": {"format": "pt"}, name: {"dtype", "shape", "data_offsets": [begin, end)}}`), then the
data; offsets count from the start of the data; tensors contiguous, C order, little-endian. "Padded":
the JSON is followed by spaces so that 8 + N is a multiple of 8. "Unpadded": no spaces and 8 + N is
**not** a multiple of 4, so the F32/F16 data are misaligned in the file (the loader must not read them
through a typed array view on the file buffer at that offset).

## Tokenizers

* BERT vocabulary (`vocab.txt`, one token per line, id = 0-based line number): %s.
  Special ids: `[PAD]` 0, `[UNK]` 1, `[CLS]` 2, `[SEP]` 3, `[MASK]` 4. `tokenizer.json`: `BertNormalizer`
  (clean_text, handle_chinese_chars, strip_accents null, lowercase), `BertPreTokenizer`, `WordPiece`
  (`##`, max 100 chars), `TemplateProcessing` (`[CLS] $A [SEP]`, pair `[CLS] $A [SEP] $B:1 [SEP]:1`).
* RoBERTa: `<s>` 0, `<pad>` 1, `</s>` 2, `<unk>` 3, then the 256 byte characters of GPT-2's
  `bytes_to_unicode` (ids 4–259, in the order of the real gpt2 vocabulary), then one token per merge.
  Merges: %s.
* GPT-2: the 256 byte characters (ids 0–255, `Ġ` = 220 as in the real gpt2), then one token per merge,
  then `<|endoftext|>` = %d (special added token; `bos_token_id` = `eos_token_id` = %d). Merges: %s.
  They leave `用` as 3 one-byte pieces and `蛇` as a 2-byte and a 1-byte piece, while `毒` is one token.
* BPE pre-split: the GPT-2 pattern `'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+`;
  `add_prefix_space: false`.

The ids in the references come from the script's own tokenizers (BERT basic tokenization + greedy
longest-match-first WordPiece; GPT-2 pre-split + byte-level BPE by merge rank), not from a library.
When the fixtures were written they were also checked once, outside the script, with the npm package
`@huggingface/tokenizers` 0.2.0 (`new Tokenizer(tokenizerJson, tokenizerConfig).encode(text, {text_pair,
return_token_type_ids: true})`): same ids, tokens and token types for every text case of the folders with
a `tokenizer.json`. That library gives no `token_type_ids` when `post_processor` is null (GPT-2): use zeros.

## reference.json

```
{ "source": "...",
  "config": {"modelType", "numLayers", "numHeads", "hiddenSize", "vocabSize", "maxPositions"},
  "tolerance": {"attentionAbs": 1e-5, "hiddenRel": 1e-4, "hiddenAbs": 1e-5},
  "specialTokens": {...},
  "cases": [{"name", "input", "inputIds", "tokenTypeIds", "positionIds", "tokens", "readable",
             "lastHiddenState", "hiddenStates", "attention"}] }
```

| field | meaning |
|---|---|
| `config.maxPositions` | `max_position_embeddings` / `n_positions` (66 for `roberta`, of which 64 usable) |
| `specialTokens` | BERT/RoBERTa `{cls, sep, pad, unk}` (BERT also `mask`); GPT-2 `{bos, eos}` |
| `input` | exactly what the JS API is called with: a string, `{"text", "textPair"}`, or `{"inputIds": [...]}` (token types then omitted: all 0) |
| `inputIds` | the ids, special tokens included (L = its length); the `input_ids` case of `gpt2-sharded` holds a lone lead byte (`ç` = E7) on purpose |
| `tokenTypeIds` | `[L]`; BERT pair: 0 up to and including the first `[SEP]`, then 1; otherwise all 0 (GPT-2: not used) |
| `positionIds` | `[L]`: 0…L-1, RoBERTa 2…L+1 (informative; follows from the model type) |
| `tokens` | the vocabulary strings of the ids (`[CLS]`, `毒`, `##s`, `Ġsnake`, `æ`, …) |
| `readable` | display strings, see below |
| `lastHiddenState` | flat `[L, 32]` |
| `hiddenStates` | flat `[numLayers + 1, L, 32]`, as Hugging Face `output_hidden_states`: BERT/RoBERTa the embeddings' output (after the embedding LayerNorm), then each layer's output (the last = `lastHiddenState`); GPT-2 each block's input (the first = `wte + wpe`), then `ln_f` of the last block's output (= `lastHiddenState`) |
| `attention` | flat `[numLayers, numHeads, L, L]`, `attention[layer][head][query][key]`, after softmax (GPT-2: exactly 0 above the diagonal) |

Numbers are the float64 results rounded to 12 significant digits (as in `tests/fixtures/grad`),
written as the shortest decimal of that value; the rounding is far inside the tolerance. Comparison: attention
`|got - want| <= attentionAbs`; hidden states `|got - want| <= hiddenAbs + hiddenRel·|want|`.
Column "f32 use" above: the largest fraction of that budget used by the same model run by torch in
float32 (over all cases). Column "MHA check": layer 0's attention (weights and output projection) against
`torch.nn.MultiheadAttention(need_weights=True, average_attn_weights=False)` in float64; column "layer check":
the whole layer 0 against `torch.nn.TransformerEncoderLayer` in float64 (BERT/RoBERTa: post-LN with erf
GELU; GPT-2: `norm_first` with tanh GELU and a causal mask); both on the first case's input.

### The `readable` rule

* WordPiece (BERT): `readable` = `tokens`.
* Special tokens (`<s>`, `</s>`, `<pad>`, `<unk>`, `<|endoftext|>`): their content.
* Any other byte-level piece: map each character back to its byte (inverse `bytes_to_unicode`). If the
  piece's bytes are valid UTF-8 on their own, show them decoded (`Ġsnake` → `" snake"`, `æ¯Ĵ` → `"毒"`,
  `Ġ` → `" "`).
* Otherwise take the maximal run of consecutive pieces that are not valid UTF-8 on their own (and not
  special), concatenate their bytes and decode left to right: at each byte, if a complete valid UTF-8
  sequence starts there (length given by the lead byte) it is one character; else that single byte is a
  unit shown as `<0xHH>` (uppercase hex). Each piece then shows, in order, every unit that overlaps its
  bytes: the unit's text if the unit lies entirely inside the piece, else the text followed by the
  subscript digit (₁ ₂ ₃ ₄) of this piece's position among the pieces the unit overlaps.
  So `用` as 3 one-byte pieces gives `"用₁"`, `"用₂"`, `"用₃"`; `蛇` as a 2-byte and a 1-byte piece gives
  `"蛇₁"`, `"蛇₂"`; a lone lead byte E7 gives `"<0xE7>"`; a piece ending one character and starting the
  next would show e.g. `"毒₂蛇₁"`.

## Cases

%s

Source: `%s`.
"""


def write_readme(results):
    """Writes README.md of the fixtures: a row per folder (files, sizes, checks), the vocabularies, the cases."""
    rows, case_lines = [], []
    for r in results:
        folder = os.path.join(OUT_DIR, r["folder"])
        files = ", ".join("`%s` (%d B)" % (f, os.path.getsize(os.path.join(folder, f))) for f in sorted(os.listdir(folder)))
        use = max(c["f32use"] for c in r["cases"])
        rows.append("| `%s/` | %s | %s | %d | %.0e | %.0e | %.1f%% |" % (
            r["folder"], files, r["note"], len(r["cases"]), r["check"], r["layerCheck"], 100 * use))
        case_lines.append("* `%s`: %s" % (r["folder"], "; ".join(
            "`%s` (L=%d) %s" % (c["name"], len(c["inputIds"]), json.dumps(c["input"], ensure_ascii=False)) for c in r["cases"])))
        print(rows[-1])
    bert = bert_vocab()
    roberta_note = ", ".join("`%s`" % m for m in ROBERTA_MERGES)
    gpt2_vocab = bpe_vocab(GPT2_MERGES, [], [GPT2_EOT])
    eot = gpt2_vocab.index(GPT2_EOT)
    text = README % ("\n".join(rows), " ".join("`%s`" % t for t in bert), roberta_note, eot, eot,
                     ", ".join("`%s`" % m for m in GPT2_MERGES), "\n".join(case_lines),
                     source_text("", 0.0, 0.0).split(", hand-written")[0])
    with open(os.path.join(OUT_DIR, "README.md"), "w", encoding="utf-8") as f:
        f.write(text)
