"""Tokenizers independent of the JS library: BERT's basic tokenization and WordPiece, GPT-2's pre-split
and byte-level BPE, the readable rule of README.md; and their self-checks."""
import math
import unicodedata


def is_cjk(cp):
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF or 0x2A700 <= cp <= 0x2B73F
            or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


def is_punctuation(c):
    cp = ord(c)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(c).startswith("P")


def bert_basic_tokenize(text):
    """BERT's BasicTokenizer: clean, space around CJK, lower-case, strip accents, split on space and punctuation."""
    cleaned = []
    for c in text:
        cp = ord(c)
        if cp == 0 or cp == 0xFFFD or (c not in "\t\n\r" and unicodedata.category(c).startswith("C")):
            continue
        cleaned.append(" " if c in " \t\n\r" or unicodedata.category(c) == "Zs" else c)
    spaced = "".join(" %s " % c if is_cjk(ord(c)) else c for c in cleaned)
    words = []
    for word in spaced.split():
        word = unicodedata.normalize("NFD", word.lower())
        word = "".join(c for c in word if unicodedata.category(c) != "Mn")
        current = ""
        for c in word:
            if is_punctuation(c):
                if current:
                    words.append(current)
                words.append(c)
                current = ""
            else:
                current += c
        if current:
            words.append(current)
    return words


def wordpiece(word, vocab, unk="[UNK]"):
    if len(word) > 100:
        return [unk]
    pieces, start = [], 0
    while start < len(word):
        end, found = len(word), None
        while start < end:
            piece = ("##" if start > 0 else "") + word[start:end]
            if piece in vocab:
                found = piece
                break
            end -= 1
        if found is None:
            return [unk]
        pieces.append(found)
        start = end
    return pieces


def bert_tokenize(text, vocab):
    return [p for w in bert_basic_tokenize(text) for p in wordpiece(w, vocab)]


def bytes_to_unicode():
    """GPT-2's byte -> printable character map, in its order (the order of the gpt2 vocabulary's first 256 ids)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return [(b, chr(c)) for b, c in zip(bs, cs)]


BYTE_ORDER = bytes_to_unicode()
BYTE_ENCODER = dict(BYTE_ORDER)
BYTE_DECODER = {c: b for b, c in BYTE_ORDER}


def byte_chars(s):
    return "".join(BYTE_ENCODER[b] for b in s.encode("utf-8"))


def gpt2_pre_split(text):
    """The GPT-2 pattern 's|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+."""
    letter = lambda c: unicodedata.category(c).startswith("L")
    number = lambda c: unicodedata.category(c).startswith("N")
    other = lambda c: not c.isspace() and not letter(c) and not number(c)
    out, i, n = [], 0, len(text)
    while i < n:
        match = next((c for c in ("'s", "'t", "'re", "'ve", "'m", "'ll", "'d") if text.startswith(c, i)), None)
        if match is not None:
            out.append(match)
            i += len(match)
            continue
        end = None
        for cls in (letter, number, other):
            j = i + 1 if text[i] == " " and i + 1 < n and cls(text[i + 1]) else i
            if cls(text[j]):
                end = j
                while end < n and cls(text[end]):
                    end += 1
                break
        if end is None:
            assert text[i].isspace()
            end = i
            while end < n and text[end].isspace():
                end += 1
            if end < n and end - i >= 2:
                end -= 1  # \s+(?!\S): leave the last space to the next word
        out.append(text[i:end])
        i = end
    assert "".join(out) == text
    return out


def bpe(word, ranks):
    parts = list(word)
    while len(parts) > 1:
        best = min(range(len(parts) - 1), key=lambda k: ranks.get((parts[k], parts[k + 1]), math.inf))
        pair = (parts[best], parts[best + 1])
        if pair not in ranks:
            break
        merged, k = [], 0
        while k < len(parts):
            if k + 1 < len(parts) and (parts[k], parts[k + 1]) == pair:
                merged.append(parts[k] + parts[k + 1])
                k += 2
            else:
                merged.append(parts[k])
                k += 1
        parts = merged
    return parts


def bpe_tokenize(text, merges):
    ranks = {tuple(m.split(" ")): r for r, m in enumerate(merges)}
    return [p for chunk in gpt2_pre_split(text) for p in bpe(byte_chars(chunk), ranks)]


SUBSCRIPTS = "₀₁₂₃₄₅₆₇₈₉"


def readable_tokens(tokens, specials):
    """The "readable" rule of README.md for byte-level pieces."""
    piece_bytes = [None if t in specials else bytes(BYTE_DECODER[c] for c in t) for t in tokens]

    def valid(b):
        try:
            b.decode("utf-8")
            return True
        except UnicodeDecodeError:
            return False

    out, i = [], 0
    while i < len(tokens):
        if piece_bytes[i] is None:
            out.append(tokens[i])
            i += 1
            continue
        if valid(piece_bytes[i]):
            out.append(piece_bytes[i].decode("utf-8"))
            i += 1
            continue
        j = i
        while j < len(tokens) and piece_bytes[j] is not None and not valid(piece_bytes[j]):
            j += 1
        run = b"".join(piece_bytes[i:j])
        owner = [k for k in range(i, j) for _ in piece_bytes[k]]
        units, p = [], 0  # (begin, end, text) over the run's bytes, left to right
        while p < len(run):
            lead = run[p]
            n = 1 if lead < 0x80 else 2 if lead >> 5 == 6 else 3 if lead >> 4 == 14 else 4 if lead >> 3 == 30 else 0
            if n and p + n <= len(run) and valid(run[p:p + n]):
                units.append((p, p + n, run[p:p + n].decode("utf-8")))
                p += n
            else:
                units.append((p, p + 1, "<0x%02X>" % lead))
                p += 1
        shown = {k: "" for k in range(i, j)}
        for begin, end, text in units:
            pieces = sorted(set(owner[begin:end]))
            for position, k in enumerate(pieces, 1):
                shown[k] += text if len(pieces) == 1 else text + SUBSCRIPTS[position]
        out.extend(shown[k] for k in range(i, j))
        i = j
    return out


def self_checks():
    assert gpt2_pre_split("the snake 用毒毒毒蛇, hello  world!\n") == ["the", " snake", " 用毒毒毒蛇", ",", " hello", " ", " world", "!", "\n"]
    assert gpt2_pre_split("it's 42") == ["it", "'s", " 42"]
    assert bert_basic_tokenize("Héllo,世界 x") == ["hello", ",", "世", "界", "x"]
    assert BYTE_ENCODER[32] == "Ġ" and BYTE_ORDER[0] == (33, "!") and len(BYTE_ORDER) == 256
    du = byte_chars("毒")
    assert readable_tokens([du], set()) == ["毒"]
    assert readable_tokens(list(du), set()) == ["毒₁", "毒₂", "毒₃"]
    assert readable_tokens([du[:2], du[2], "Ġ"], set()) == ["毒₁", "毒₂", " "]
    assert readable_tokens([du[0], "Ġsn"], set()) == ["<0xE6>", " sn"]
    assert readable_tokens(["Ġ" + du[0], du[1:] + byte_chars("蛇")[0], byte_chars("蛇")[1:]], set()) == [" 毒₁", "毒₂蛇₁", "蛇₂"]
