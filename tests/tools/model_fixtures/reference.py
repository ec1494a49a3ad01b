"""reference.json: running the inputs through a model and writing the results."""
import copy
import json

import numpy as np
import torch

from .common import D, MAX_POSITIONS, NUM_HEADS, NUM_LAYERS, TOLERANCE
from .tokenizers import readable_tokens


def write_json(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(obj, indent=2, ensure_ascii=False) + "\n")


def fmt(x):
    """12 significant digits (as tests/fixtures/grad), written as the shortest float that has them."""
    return repr(float("%.12g" % x))


def flat(values):
    return "[" + ",".join(fmt(v) for v in np.asarray(values, dtype=np.float64).ravel()) + "]"


def render(obj, indent):
    """A case as JSON: arrays of floats flattened (C order) at 12 significant digits, the rest json.dumps."""
    pad = " " * indent
    fields = []
    for k, v in obj.items():
        text = flat(v) if isinstance(v, np.ndarray) else json.dumps(v, ensure_ascii=False)
        fields.append('%s  "%s": %s' % (pad, k, text))
    return pad + "{\n" + ",\n".join(fields) + "\n" + pad + "}"


def write_sections(path, head, sections):
    """A reference.json of named lists of cases (make_marian_fixtures.py, make_decoder_fixtures.py): the `head`
    fields, then each section's cases as render() writes them; read back and checked to 1e-11."""
    lines = ["{"]
    for k, v in head.items():
        lines.append('  "%s": %s,' % (k, json.dumps(v, ensure_ascii=False)))
    rendered = []
    for name, cases in sections.items():
        rendered.append('  "%s": [\n' % name + ",\n".join(render(c, 4) for c in cases) + "\n  ]")
    lines.append(",\n".join(rendered))
    lines.append("}")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    back = json.load(open(path, encoding="utf-8"))
    for name, cases in sections.items():
        for c, b in zip(cases, back[name]):
            for k, v in c.items():
                if isinstance(v, np.ndarray):
                    want = v.astype(np.float64).ravel()
                    assert np.all(np.abs(np.asarray(b[k]) - want) <= 1e-11 * np.abs(want)), (name, k)
                else:
                    assert b[k] == json.loads(json.dumps(v)), (name, k)


def write_reference(path, source, config, special_tokens, cases):
    lines = ["{",
             '  "source": %s,' % json.dumps(source, ensure_ascii=False),
             '  "config": %s,' % json.dumps(config),
             '  "tolerance": %s,' % json.dumps(TOLERANCE)]
    if special_tokens is not None:
        lines.append('  "specialTokens": %s,' % json.dumps(special_tokens))
    lines.append('  "cases": [')
    rendered = []
    for c in cases:
        fields = [("name", json.dumps(c["name"])),
                  ("input", json.dumps(c["input"], ensure_ascii=False)),
                  ("inputIds", json.dumps(c["inputIds"])),
                  ("tokenTypeIds", json.dumps(c["tokenTypeIds"])),
                  ("positionIds", json.dumps(c["positionIds"])),
                  ("tokens", json.dumps(c["tokens"], ensure_ascii=False)),
                  ("readable", json.dumps(c["readable"], ensure_ascii=False)),
                  ("lastHiddenState", flat(c["lastHiddenState"])),
                  ("hiddenStates", flat(c["hiddenStates"])),
                  ("attention", flat(c["attention"]))]
        rendered.append("    {\n" + ",\n".join('      "%s": %s' % kv for kv in fields) + "\n    }")
    lines.append(",\n".join(rendered))
    lines.append("  ]")
    lines.append("}")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    back = json.load(open(path, encoding="utf-8"))
    for c, b in zip(cases, back["cases"]):
        for k in ("lastHiddenState", "hiddenStates", "attention"):
            want = np.asarray(c[k], dtype=np.float64).ravel()
            assert np.all(np.abs(np.asarray(b[k]) - want) <= 1e-11 * np.abs(want)), k


def run_case(model, family, name, inp, ids, types, vocab, specials, pad_id=None):
    L = len(ids)
    assert 0 < L <= MAX_POSITIONS
    if family == "roberta":
        positions = [pad_id + 1 + i for i in range(L)]  # no padding in these inputs
        assert pad_id not in ids
    else:
        positions = list(range(L))
    t = lambda v: torch.tensor(v, dtype=torch.long)
    with torch.no_grad():
        hidden, attentions = model(t(ids), t(types), t(positions))
    tokens = [vocab[i] for i in ids]
    readable = tokens if family == "bert" else readable_tokens(tokens, specials)
    case = {"name": name, "input": inp, "inputIds": ids, "tokenTypeIds": types, "positionIds": positions,
            "tokens": tokens, "readable": readable,
            "lastHiddenState": hidden[-1].numpy(),
            "hiddenStates": torch.stack(hidden).numpy(),
            "attention": torch.stack(attentions).numpy()}
    assert case["hiddenStates"].shape == (NUM_LAYERS + 1, L, D)
    assert case["attention"].shape == (NUM_LAYERS, NUM_HEADS, L, L)
    assert np.all(np.isfinite(case["hiddenStates"])) and np.all(np.isfinite(case["attention"]))
    rows = case["attention"].sum(-1)
    assert np.allclose(rows, 1.0, atol=1e-12)
    # Not uniform: in each (layer, head) some row gives one key at least 1.25 times its uniform share.
    usable = np.arange(1, L + 1) if family == "gpt2" else np.full(L, L)
    peaks = (case["attention"].max(-1) * usable)[..., usable >= 2].max(-1)
    assert L < 3 or peaks.min() > 1.25, (name, peaks)
    case["peak"] = float(peaks.min()) if L >= 3 else None
    # float32 run of the same model: how much of the tolerance it uses.
    m32 = copy.deepcopy(model).float()
    with torch.no_grad():
        h32, a32 = m32(t(ids), t(types), t(positions))
    want_h = case["hiddenStates"]
    got_h = torch.stack(h32).double().numpy()
    use_h = np.max(np.abs(got_h - want_h) / (TOLERANCE["hiddenAbs"] + TOLERANCE["hiddenRel"] * np.abs(want_h)))
    use_a = np.max(np.abs(torch.stack(a32).double().numpy() - case["attention"])) / TOLERANCE["attentionAbs"]
    use = float(max(use_h, use_a))
    assert use < 0.5, (name, use)
    case["f32use"] = use
    return case
