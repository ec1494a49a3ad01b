#!/usr/bin/env python3
"""Writes tests/fixtures/models/batch/<folder>.json: transformers' own batched run of sentences of different
lengths, tokenized with padding=True (its pad token, on the right), on the tiny checkpoints
tests/tools/make_hf_fixtures.py saved (hf-bert-mlm: BertForMaskedLM, with its logits; hf-roberta:
RobertaModel, whose positions skip <pad>; the decoders hf-llama, hf-qwen2 and hf-gpt2-lm teacher-forced by their
*ForCausalLM, padded on the right, the attention mask passed; hf-marian: MarianMTModel teacher-forced over pairs of
a source and a target, both padded on the right, with both attention masks), in float64 with eager attention.
tests/js/model-batch.test.mjs and model-batch-seq2seq.test.mjs compare model.run([...]) against it: the real tokens'
rows, and zeros where transformers' attention mask is 0.

Runs in the Debian sid chroot of tests/tools/make-hf-chroot.sh, from the repository:

    bash tests/tools/make-hf-chroot.sh --run --bind "$PWD" -- \
        python3 "$PWD/tests/tools/make_batch_fixtures.py"
"""
import json
import os

import numpy as np
import torch
import transformers

MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "models")
OUT_DIR = os.path.join(MODELS, "batch")
SENTENCES = ["用毒毒毒蛇，毒蛇会不会被毒毒死", "We poison the snake.", "毒蛇会被毒死吗？", "用毒"]
FOLDERS = {"hf-bert-mlm": transformers.AutoModelForMaskedLM, "hf-roberta": transformers.AutoModel}
# Decoders, teacher-forced: *ForCausalLM with the attention mask of padding=True on the right (a tokenizer without a
# pad token pads with its eos, as transformers' docs do); hf-qwen2 has grouped-query attention.
DECODERS = {name: transformers.AutoModelForCausalLM for name in ("hf-llama", "hf-qwen2", "hf-gpt2-lm")}
# An encoder-decoder, teacher-forced: each sentence (the source) with a target of its own length; the decoder's
# input is decoder_start_token_id then the target's ids (what shift_tokens_right makes of the labels).
TARGETS = ["Will the snake be poisoned by venom?", "Poison.", "Will a venomous snake be poisoned?", "With venom"]


def tokenizer_of(path):
    try:
        return transformers.AutoTokenizer.from_pretrained(path)
    except TypeError:
        # transformers 5.12's RobertaTokenizer rebuilds tokenizer.json's RobertaProcessing with arguments
        # tokenizers 0.23 no longer takes (make_hf_fixtures.py's rereference): the generic fast tokenizer.
        config = json.load(open(os.path.join(path, "tokenizer_config.json"), encoding="utf-8"))
        specials = {k: v for k, v in config.items() if k.endswith("_token")}
        return transformers.PreTrainedTokenizerFast(tokenizer_file=os.path.join(path, "tokenizer.json"), **specials)


def flat(tensor):
    return [float(v) for v in tensor.detach().numpy().ravel()]


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    for folder, model_class in {**FOLDERS, **DECODERS}.items():
        path = os.path.join(MODELS, folder)
        tokenizer = tokenizer_of(path)
        tokenizer.padding_side = "right"
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        model = model_class.from_pretrained(path, dtype=torch.float64, attn_implementation="eager").eval()
        enc = tokenizer(SENTENCES, padding=True, return_tensors="pt")
        with torch.no_grad():
            out = model(**enc, output_attentions=True, output_hidden_states=True)
        ids = enc["input_ids"]
        B, L = ids.shape
        reference = {
            "source": "Hugging Face transformers %s (%s.from_pretrained of %s, eager attention) on torch %s, float64; "
            "%s(sentences, padding=True)" % (transformers.__version__, type(model).__name__, folder,
                                             torch.__version__, type(tokenizer).__name__),
            "sentences": SENTENCES,
            "padTokenId": tokenizer.pad_token_id,
            "shape": [B, L],
            "inputIds": ids.tolist(),
            "attentionMask": enc["attention_mask"].tolist(),
            "hiddenSize": model.config.hidden_size,
            # [numLayers + 1, B, L, D] and [numLayers, B, H, L, L], as transformers returns them padded.
            "hiddenStates": flat(torch.stack(out.hidden_states)),
            "attention": flat(torch.stack(out.attentions)),
        }
        if hasattr(out, "logits"):
            reference["logits"] = flat(out.logits)  # [B, L, vocabSize]
        else:
            reference["lastHiddenState"] = flat(out.last_hidden_state)
        with open(os.path.join(OUT_DIR, folder + ".json"), "w", encoding="utf-8") as f:
            json.dump(reference, f)
        print(folder, B, "sentences of", enc["attention_mask"].sum(1).tolist(), "tokens, padded to", L)


def seq2seq(folder):
    """hf-marian's batch: MarianTokenizer pads the sources, the decoder inputs are padded here with its pad id."""
    path = os.path.join(MODELS, folder)
    tokenizer = transformers.MarianTokenizer.from_pretrained(path)
    model = transformers.MarianMTModel.from_pretrained(path, dtype=torch.float64, attn_implementation="eager").eval()
    enc = tokenizer(SENTENCES, padding=True, return_tensors="pt")
    start, pad = model.config.decoder_start_token_id, tokenizer.pad_token_id
    targets = [[start] + tokenizer(text_target=t)["input_ids"] for t in TARGETS]
    T = max(len(t) for t in targets)
    decoder_ids = torch.tensor([t + [pad] * (T - len(t)) for t in targets])
    decoder_mask = torch.tensor([[1] * len(t) + [0] * (T - len(t)) for t in targets])
    with torch.no_grad():
        out = model(**enc, decoder_input_ids=decoder_ids, decoder_attention_mask=decoder_mask,
                    output_attentions=True, output_hidden_states=True)
    B, S = enc["input_ids"].shape
    reference = {
        "source": "Hugging Face transformers %s (MarianMTModel.from_pretrained of %s, eager attention) on torch %s, "
        "float64; MarianTokenizer(sentences, padding=True), the decoder inputs [decoder_start_token_id] + "
        "MarianTokenizer(text_target=target) padded on the right with pad_token_id, with their attention mask"
        % (transformers.__version__, folder, torch.__version__),
        "sentences": SENTENCES,
        "targets": TARGETS,
        "padTokenId": pad,
        "shape": [B, S],
        "decoderShape": [B, T],
        "inputIds": enc["input_ids"].tolist(),
        "attentionMask": enc["attention_mask"].tolist(),
        "decoderInputIds": decoder_ids.tolist(),
        "decoderAttentionMask": decoder_mask.tolist(),
        "hiddenSize": model.config.d_model,
        # As transformers returns them, padded: [layers + 1, B, S or T, D], [layers, B, H, rows, keys], [B, T, V].
        "encoderHiddenStates": flat(torch.stack(out.encoder_hidden_states)),
        "decoderHiddenStates": flat(torch.stack(out.decoder_hidden_states)),
        "encoderAttention": flat(torch.stack(out.encoder_attentions)),
        "decoderAttention": flat(torch.stack(out.decoder_attentions)),
        "crossAttention": flat(torch.stack(out.cross_attentions)),
        "logits": flat(out.logits),
    }
    with open(os.path.join(OUT_DIR, folder + ".json"), "w", encoding="utf-8") as f:
        json.dump(reference, f)
    print(folder, B, "pairs of", enc["attention_mask"].sum(1).tolist(), "and", decoder_mask.sum(1).tolist(), "tokens")


if __name__ == "__main__":
    np.set_printoptions(precision=17)
    main()
    seq2seq("hf-marian")
