#!/usr/bin/env python3
"""Writes tests/fixtures/text/<name>.json: what transformers' own tokenizers give
for the streaming of generated text and for the tokenizer API, on the committed
tokenizers of tests/fixtures/models (bert-zh, hf-bert-mlm: WordPiece; gpt2,
hf-qwen2: byte-level BPE; hf-llama: SentencePiece-style BPE with byte fallback;
hf-marian: MarianTokenizer) and of the real trained stories260K (a Llama-2
style tokenizer with byte fallback, copied into tests/fixtures/text/stories260K
from karpathy/tinyllamas, MIT).

- "stream": fixed id sequences, a prompt then new ids (spaces, newlines, the
  byte-fallback or byte-level pieces of 毒蛇, special tokens, eos), with
  tokenizer.decode(skip_special_tokens=True) of the prompt and of every prefix
  (prompt + the first k new ids), the text a generation adds (the whole decoded
  minus the decoded prompt's length, as the text-generation pipeline cuts it
  with return_full_text=False) and what TextStreamer(skip_prompt=True,
  skip_special_tokens=True) prints after each id and at its end.
- "encode": tokenizer(text, text_pair, add_special_tokens, truncation,
  max_length, padding) → input_ids, attention_mask, token_type_ids (what the
  tokenizer returns), or that transformers refuses it (padding without a pad
  token).
- "decode": tokenizer.decode(ids, skip_special_tokens) of the encodings.

And tests/fixtures/text/generated.json: for every generate() case of the
decoders' reference.json (make_decoder_fixtures.py's sequences), the decoded
prompt and the text the generation adds (the whole decoded minus it).

Runs in the Debian sid chroot of tests/tools/make-hf-chroot.sh (python3-
transformers 5.x), from the repository:

    bash tests/tools/make-hf-chroot.sh --run /var/tmp/sid-root --bind "$PWD" -- \
        python3 "$PWD/tests/tools/make_text_cases.py"
"""
import json
import os
import warnings

import torch
import transformers
from transformers import AutoTokenizer, TextStreamer

warnings.filterwarnings("ignore")

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "..", "fixtures", "models")
OUT = os.path.join(HERE, "..", "fixtures", "text")
FOLDERS = {
    "bert-zh": os.path.join(MODELS, "bert-zh"),
    "hf-bert-mlm": os.path.join(MODELS, "hf-bert-mlm"),
    "gpt2": os.path.join(MODELS, "gpt2"),
    "hf-qwen2": os.path.join(MODELS, "hf-qwen2"),
    "hf-llama": os.path.join(MODELS, "hf-llama"),
    "hf-marian": os.path.join(MODELS, "hf-marian"),
    "stories260K": os.path.join(OUT, "stories260K"),
}
# The decoders' and Marian's streams: (name, prompt, continuation).
STREAMS = [
    ("words", "The cat", " and a boy went to the park."),
    ("chinese", "用毒", "毒毒蛇，毒蛇会不会被毒毒死"),
    ("newlines", "Once upon", " a time\n\nthere  was\na snake:\n 毒蛇 \n"),
    ("spaces", "a", "   b  \t c   "),
    ("mixed", "The snake 毒", "蛇 said: 用毒毒毒蛇, ok?\nYes."),
]
# Marian: the decoder's output texts.
MARIAN_STREAMS = [
    ("words", "Will a venomous snake be poisoned by venom?"),
    ("punctuation", "a , b . c ' d n't e ?"),
]
TEXTS = [
    "The cat and a boy went to the park.",
    "用毒毒毒蛇，毒蛇会不会被毒毒死",
    "  two  spaces\nand a newline ",
    "Will a venomous snake be poisoned by venom, if we poison it (2024)?",
]
PAIRS = [
    ("The cat", "用毒毒毒蛇，毒蛇会不会被毒毒死"),
    ("Will a venomous snake be poisoned by venom?", "a snake"),
]


class Recorder(TextStreamer):
    def __init__(self, tokenizer):
        super().__init__(tokenizer, skip_prompt=True, skip_special_tokens=True)
        self.printed = []

    def on_finalized_text(self, text, stream_end=False):
        self.printed.append(text)


def stream_case(tok, name, prompt, new):
    decode = lambda ids: tok.decode(ids, skip_special_tokens=True)
    recorder = Recorder(tok)
    recorder.put(torch.tensor([prompt]))
    printed = []
    for i in new:
        recorder.printed = []
        recorder.put(torch.tensor([i]))
        printed.append("".join(recorder.printed))
    recorder.printed = []
    recorder.end()
    prompt_text = decode(prompt)
    whole = decode(prompt + new)
    return {
        "name": name,
        "promptIds": prompt,
        "newIds": new,
        "promptText": prompt_text,
        "prefixTexts": [decode(prompt + new[: k + 1]) for k in range(len(new))],
        "text": whole[len(prompt_text):],
        "streamer": printed,
        "streamerEnd": "".join(recorder.printed),
    }


def streams(name, tok):
    out = []
    if name == "hf-marian":
        start = 233  # config.json's decoder_start_token_id
        for case, text in MARIAN_STREAMS:
            ids = tok(text_target=text)["input_ids"]
            out.append(stream_case(tok, case, [start], ids))
        return out
    eos = tok.eos_token_id
    for case, prompt, cont in STREAMS:
        prompt_ids = tok(prompt)["input_ids"]
        whole = tok(prompt + cont)["input_ids"]
        # The new ids: the whole text's after the prompt's length (any split is a valid generation).
        new = whole[len(prompt_ids):] + ([eos] if eos is not None else [])
        out.append(stream_case(tok, case, prompt_ids, new))
    # Special tokens inside the output (skipped), and the bytes of 毒 one by one where the tokenizer has them.
    specials = [t for t in tok.all_special_ids if t != eos][:1]
    prompt_ids = tok("The cat")["input_ids"]
    body = tok(" and 毒蛇", add_special_tokens=False)["input_ids"]
    out.append(stream_case(tok, "specials", prompt_ids, specials + body[:2] + specials + body[2:]))
    return out


def encoding(tok, text, pair, **kw):
    try:
        enc = tok(text, pair, **kw) if pair is not None else tok(text, **kw)
    except Exception as error:  # transformers refuses (padding with no pad token)
        return {"error": type(error).__name__}
    return {k: list(v) for k, v in enc.items() if k in ("input_ids", "attention_mask", "token_type_ids")}


def encodes(tok):
    out = []
    option_sets = [
        {},
        {"add_special_tokens": False},
        {"truncation": True, "max_length": 6},
        {"truncation": True, "max_length": 11},
        {"padding": "max_length", "max_length": 48},
        {"truncation": True, "padding": "max_length", "max_length": 9},
    ]
    for text in TEXTS:
        for options in option_sets:
            out.append({"text": text, "options": options, **encoding(tok, text, None, **options)})
    for text, pair in PAIRS:
        for options in option_sets + [{"truncation": True, "max_length": 7}]:
            out.append({"text": text, "textPair": pair, "options": options, **encoding(tok, text, pair, **options)})
    return out


def decodes(tok, encoded):
    out = []
    for e in encoded:
        if "input_ids" not in e:
            continue
        for skip in (False, True):
            out.append({"ids": e["input_ids"], "skipSpecialTokens": skip,
                        "text": tok.decode(e["input_ids"], skip_special_tokens=skip)})
    return out


def generated():
    out = {}
    for name in sorted(os.listdir(MODELS)):
        path = os.path.join(MODELS, name, "reference.json")
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            ref = json.load(f)
        if not ref.get("generate") or not ref.get("cases"):
            continue
        tok = AutoTokenizer.from_pretrained(os.path.join(MODELS, name))
        out[name] = []
        for g in ref["generate"]:
            prompt = tok.decode(g["inputIds"], skip_special_tokens=True)
            whole = tok.decode(g["sequence"], skip_special_tokens=True)
            out[name].append({"name": g["name"], "promptText": prompt, "text": whole[len(prompt):]})
    return out


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "generated.json"), "w", encoding="utf-8") as f:
        json.dump({"transformers": transformers.__version__, "generate": generated()}, f, ensure_ascii=False, indent=1)
        f.write("\n")
    for name, folder in FOLDERS.items():
        tok = AutoTokenizer.from_pretrained(folder)
        encoded = encodes(tok)
        doc = {
            "transformers": transformers.__version__,
            "tokenizer": type(tok).__name__,
            "stream": [] if "bert" in name else streams(name, tok),
            "encode": encoded,
            "decode": decodes(tok, encoded),
            "countTokens": [{"text": t, "count": len(tok(t)["input_ids"])} for t in TEXTS],
        }
        with open(os.path.join(OUT, f"{name}.json"), "w", encoding="utf-8") as f:
            json.dump(doc, f, ensure_ascii=False, indent=1)
            f.write("\n")
        print(name, type(tok).__name__, len(doc["stream"]), len(encoded), flush=True)


if __name__ == "__main__":
    main()
