"""The vocabularies, merges and tokenizer files of the folders."""
from .common import SENTENCE, SENTENCE_2
from .tokenizers import BYTE_ORDER, byte_chars


BERT_SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def bert_vocab():
    vocab = list(BERT_SPECIALS)
    for c in SENTENCE + SENTENCE_2:
        if c not in vocab:
            vocab.append(c)
    vocab += "hello world the snake venom".split() + ["##s", "##ed", ",", ".", "?", "!"]
    assert len(set(vocab)) == len(vocab)
    return vocab


def added_token(i, content, normalized):
    return {"id": i, "content": content, "single_word": False, "lstrip": False, "rstrip": False,
            "normalized": normalized, "special": True}


def bert_tokenizer_json(vocab):
    ids = {t: i for i, t in enumerate(vocab)}
    special = lambda t, type_id: {"SpecialToken": {"id": t, "type_id": type_id}}
    sequence = lambda s, type_id: {"Sequence": {"id": s, "type_id": type_id}}
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [added_token(ids[t], t, False) for t in BERT_SPECIALS],
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [special("[CLS]", 0), sequence("A", 0), special("[SEP]", 0)],
            "pair": [special("[CLS]", 0), sequence("A", 0), special("[SEP]", 0), sequence("B", 1), special("[SEP]", 1)],
            "special_tokens": {t: {"id": t, "ids": [ids[t]], "tokens": [t]} for t in ("[CLS]", "[SEP]")},
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": ids},
    }


def bpe_vocab(merges, before, after):
    """before + the 256 byte characters (GPT-2 order) + one token per merge + after."""
    vocab = list(before) + [c for _, c in BYTE_ORDER]
    for m in merges:
        a, b = m.split(" ")
        assert a in vocab and b in vocab, m
        if a + b not in vocab:
            vocab.append(a + b)
    vocab += after
    assert len(set(vocab)) == len(vocab)
    return vocab


def merge_of(text):
    """The merges that glue the bytes of one character into one token, left to right."""
    chars = byte_chars(text)
    return ["%s %s" % (chars[:k], chars[k]) for k in range(1, len(chars))]


def bpe_tokenizer_json(vocab, merges, added, post_processor):
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": post_processor,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                  "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False,
                  "vocab": {t: i for i, t in enumerate(vocab)}, "merges": merges},
    }


ROBERTA_SPECIALS = ["<s>", "<pad>", "</s>", "<unk>"]
ROBERTA_MERGES = (["h e", "l l", "he ll", "hell o", "Ġ v", "e n", "Ġv en", "o m", "Ġven om"]
                  + [m for c in "毒蛇会不被死" for m in merge_of(c)])  # not 用 nor ，

GPT2_EOT = "<|endoftext|>"
GPT2_MERGES = (["t h", "th e", "Ġ s", "n a", "k e", "Ġs na", "Ġsna ke", "Ġ w", "Ġw o", "r l", "h e", "l l", "he ll"]
               + merge_of("毒") + merge_of("蛇")[:1])
GPT2_TEXT = "the snake 用毒毒毒蛇, hello world!"
