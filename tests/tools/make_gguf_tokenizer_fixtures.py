#!/usr/bin/env python3
"""Writes the GGUF tokenizer fixtures of tests/fixtures/gguf/ and their reference,
every one made by independent code (llama.cpp's converter, the `tokenizers`
library, transformers):

  stories260K-q8_0.gguf
                    the real trained stories260K (karpathy/tinyllamas, a Llama
                    with a 512-piece SentencePiece vocabulary; the folder
                    STORIES260K names, default /work/shared/fixtures/real/
                    stories260K) converted by llama.cpp's convert_hf_to_gguf.py
                    at q8_0 (its tokenizer as tokenizer.ggml.model "llama":
                    tokens, scores, token types, bos/eos/unk, add_bos);
  stories260K-q8_0.json
                    transformers' from_pretrained(gguf_file=...) logits and
                    attention of REAL_TEXT's ids (as make_gguf_fixtures.py's
                    {model}-{type}.json, without llama.cpp's greedy ids);
  llama-bpe-f32.gguf
                    a Llama-3-style byte-level BPE (tokenizer.ggml.model "gpt2"
                    with merges) on a tiny random Llama: the vocabulary trained
                    here by the `tokenizers` library with GPT-2's pre-tokenizer
                    (so tokenizer.ggml.pre "gpt-2"), BOS/EOS/pad special tokens,
                    converted by the converter;
  tokenizer-reference.json
                    transformers' AutoTokenizer.from_pretrained(folder,
                    gguf_file=...) on TEXTS for each GGUF file of FILES: encode()
                    ids, decode() text, special_tokens_map, the file's own
                    special ids, and (for the files of BACKEND) transformers'
                    whole converted tokenizer.json (backend_tokenizer.to_str()),
                    and "pre": for the tokenizer.ggml.pre values Llama 3
                    ("llama-bpe") and SmolLM2 ("smollm") declare, a vocabulary
                    trained with that pre-tokenizer, its own tokenizer.json's ids
                    (without its BOS: transformers' GGUF tokenizer adds none)
                    and transformers' ids of the GGUF the converter writes of it
                    (transformers ignores tokenizer.ggml.pre: its GGUF Llama
                    converter always pre-tokenizes with GPT-2's regex); and
                    "mergesFromScores": transformers' merges (GGUFTokenizerSkeleton)
                    of a few pieces with emoji and equal scores.

Runs in the chroot of tests/tools/make-hf-chroot.sh as make_gguf_fixtures.py does
(which calls this for --tokenizer-only and at its end):

    bash tests/tools/make-hf-chroot.sh --run --bind "$PWD" --bind /work/shared/fixtures/real -- \\
        python3 "$PWD/tests/tools/make_gguf_tokenizer_fixtures.py"
"""
import importlib.metadata
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_gguf_fixtures as base  # noqa: E402  (its CONVERT wrapper, TEXTS, transformers_reference)

OUT = base.OUT
STORIES = os.environ.get("STORIES260K", "/work/shared/fixtures/real/stories260K")
REAL_TEXT = "Once upon a time, there was a little girl named Lily."
FILES = ["qwen2-f32.gguf", "qwen3-f32.gguf", "llama-f32.gguf", "stories260K-q8_0.gguf", "llama-bpe-f32.gguf"]
BACKEND = ["llama-f32.gguf", "stories260K-q8_0.gguf", "llama-bpe-f32.gguf"]

# Pre-tokenizers as the released tokenizer.json files declare them.
LLAMA3_REGEX = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|"
                r"\s*[\r\n]+|\s+(?!\S)|\s+")
CORPUS = base.TEXTS + [
    "Once upon a time there was a little snake. The snake was very poisonous, and everyone knew it.",
    "One day, a boy named Tom found the snake in the garden. He said: \"Don't bite me!\" The snake didn't.",
    "It's 12:30 on 2026-12-05, and we've counted 1, 2, 3, 10, 100, 1000 and 12345 snakes so far.",
    "毒蛇在花园里。小男孩看见了毒蛇，他很害怕。毒蛇会不会咬人？我们不知道。",
    "Numbers: 3.14159, 2.71828, 1.41421; words: poison, poisoned, poisonous, snake, snakes.",
]
# Where a pre-tokenizer's differences show: runs of digits, spaces before digits ("smollm" isolates every digit
# before GPT-2's regex sees the spaces), an upper-case contraction.
PRE_TEXTS = ["Total:  42 snakes,   1234 bites in 2026.", "IT'S 12345678 o'clock", "x  1  22   333"]
SPECIAL = ["<|begin_of_text|>", "<|end_of_text|>", "<|pad|>"]


def pre_tokenizer(pre):
    from tokenizers import Regex, pre_tokenizers
    if pre == "gpt-2":
        return pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    if pre == "llama-bpe":
        return pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(LLAMA3_REGEX), behavior="isolated"),
                                        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    if pre == "smollm":
        return pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True),
                                        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)])
    raise ValueError(pre)


def train_bpe(pre):
    """A byte-level BPE tokenizer trained on CORPUS with `pre`'s pre-tokenizer, as a transformers folder's files."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizer(pre)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=420, special_tokens=SPECIAL, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(CORPUS * 3, trainer)
    bos = tok.token_to_id(SPECIAL[0])
    tok.post_processor = processors.TemplateProcessing(single=f"{SPECIAL[0]} $A", pair=f"{SPECIAL[0]} $A {SPECIAL[0]} $B",
                                                       special_tokens=[(SPECIAL[0], bos)])
    config = {"tokenizer_class": "PreTrainedTokenizerFast", "bos_token": SPECIAL[0], "eos_token": SPECIAL[1],
              "pad_token": SPECIAL[2], "clean_up_tokenization_spaces": False}
    return tok, config


def bpe_llama(pre, out):
    """A tiny random Llama with train_bpe(pre)'s tokenizer, converted to f32 GGUF at `out` (tokenizer.ggml.pre `pre`)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM
    tok, tok_config = train_bpe(pre)
    vocab = tok.get_vocab_size()
    config = LlamaConfig(vocab_size=vocab, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                         num_attention_heads=4, num_key_value_heads=2, head_dim=8, max_position_embeddings=64,
                         rms_norm_eps=1e-5, bos_token_id=tok.token_to_id(SPECIAL[0]),
                         eos_token_id=tok.token_to_id(SPECIAL[1]), pad_token_id=tok.token_to_id(SPECIAL[2]),
                         tie_word_embeddings=True)
    torch.manual_seed(39)
    net = LlamaForCausalLM(config)
    with tempfile.TemporaryDirectory() as tmp:
        folder = os.path.join(tmp, "llama-bpe")
        net.save_pretrained(folder)
        tok.save(os.path.join(folder, "tokenizer.json"))
        with open(os.path.join(folder, "tokenizer_config.json"), "w") as f:
            json.dump(tok_config, f)
        subprocess.run([sys.executable, "-c", base.CONVERT, base.CONVERTER, folder, "--outtype", "f32",
                        "--outfile", out, pre], check=True, capture_output=True)
    return tok


def stories():
    out = os.path.join(OUT, "stories260K-q8_0.gguf")
    subprocess.run([sys.executable, base.CONVERTER, STORIES, "--outtype", "q8_0", "--outfile", out],
                   check=True, capture_output=True)
    return out


def gguf_tokenizer(name, folder=OUT):
    base.gguf.__version__ = importlib.metadata.version("gguf")
    import transformers
    from transformers import AutoTokenizer
    transformers.logging.set_verbosity_error()
    return AutoTokenizer.from_pretrained(folder, gguf_file=name)


def special_ids(path):
    reader = base.gguf.GGUFReader(path)
    out = {}
    for key in ["bos_token_id", "eos_token_id", "unknown_token_id", "padding_token_id"]:
        field = reader.get_field(f"tokenizer.ggml.{key}")
        if field is not None:
            out[key] = int(field.contents())
    return out


def real_reference():
    """stories260K-q8_0.json: transformers' own float model of the file on REAL_TEXT's ids (its own tokenizer's)."""
    file = os.path.join(OUT, "stories260K-q8_0.gguf")
    ids = gguf_tokenizer("stories260K-q8_0.gguf")(REAL_TEXT)["input_ids"]
    out = {"model": "stories260K", "file": os.path.basename(file), "text": REAL_TEXT, "inputIds": ids}
    out.update(base.transformers_reference("llama", file, ids))
    with open(file[:-len(".gguf")] + ".json", "w") as f:
        json.dump(out, f)
        f.write("\n")


# Pieces beyond the Basic Multilingual Plane, equal scores (the sorts' ties) and a piece whose splits' left halves
# score the same (xyz: ordered by the right halves), for transformers' own merge rebuilding (GGUFTokenizerSkeleton).
MERGE_PIECES = ["<unk>", "<s>", "</s>", "\u2581", "a", "b", "\U0001F40D", "\u2620", "\u2581a", "ab", "ba", "aba",
                "\u2581\U0001F40D", "\U0001F40D\U0001F40D", "\u2581\U0001F40D\U0001F40D", "\U0001F40Da", "b\u2620",
                "ab\u2620", "\u2581ab", "\u2581aba", "bab", "abab", "x", "xy", "y", "yz", "z", "xyz"]
MERGE_SCORES = [0.0, 0.0, 0.0, -1.0, -2.0, -2.0, -3.0, -3.0, -4.0, -4.0, -4.0, -5.0, -5.0, -6.0, -6.0, -6.0, -7.0,
                -7.0, -8.0, -8.5, -8.5, -9.0, -2.0, -2.0, -2.5, -3.0, -1.0, -6.5]


def merges_reference():
    from transformers.integrations.ggml import GGUFTokenizerSkeleton
    merges = GGUFTokenizerSkeleton({"tokens": MERGE_PIECES, "scores": MERGE_SCORES}).merges
    return {"tokens": MERGE_PIECES, "scores": MERGE_SCORES, "merges": [list(m) for m in merges]}


def tokenizer_reference():
    import transformers
    texts = base.TEXTS
    out = {"source": f"transformers {transformers.__version__} AutoTokenizer.from_pretrained(gguf_file=...); "
                     f"tokenizers {importlib.metadata.version('tokenizers')}",
           "texts": texts, "mergesFromScores": merges_reference(), "files": {}, "preTexts": texts + PRE_TEXTS, "pre": {}}
    for name in FILES:
        tok = gguf_tokenizer(name)
        entry = {
            "class": type(tok).__name__,
            "special": {k: v for k, v in tok.special_tokens_map.items() if isinstance(v, str)},
            "specialIds": special_ids(os.path.join(OUT, name)),
            "cleanUpTokenizationSpaces": bool(tok.clean_up_tokenization_spaces),
            "cases": [{"ids": tok(t)["input_ids"], "decoded": tok.decode(tok(t)["input_ids"])} for t in texts],
        }
        if name in BACKEND:
            entry["backend"] = json.loads(tok.backend_tokenizer.to_str())
        out["files"][name] = entry
    # What transformers makes of the pre-tokenizers it does not read.
    with tempfile.TemporaryDirectory() as tmp:
        for pre in ["llama-bpe", "smollm"]:
            name = f"{pre}.gguf"
            tok = bpe_llama(pre, os.path.join(tmp, name))
            converted = gguf_tokenizer(name, tmp)
            out["pre"][pre] = [{"own": tok.encode(t, add_special_tokens=False).ids, "transformers": converted(t)["input_ids"]}
                              for t in texts + PRE_TEXTS]
    with open(os.path.join(OUT, "tokenizer-reference.json"), "w") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
        f.write("\n")


if __name__ == "__main__":
    if "--reference-only" not in sys.argv:
        stories()
        bpe_llama("gpt-2", os.path.join(OUT, "llama-bpe-f32.gguf"))
    real_reference()
    tokenizer_reference()
