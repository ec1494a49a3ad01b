"""Layer 0 of a hand-written model against PyTorch's own modules, in float64."""
import torch

from .common import D, F64, NUM_HEADS


def check_against_module(model, family, x):
    """One attention layer (layer 0) against torch.nn.MultiheadAttention in float64."""
    L = x.shape[0]
    mha = torch.nn.MultiheadAttention(D, NUM_HEADS, bias=True, batch_first=True, dtype=F64)
    with torch.no_grad():
        if family == "bert":
            att = model.encoder.layer[0].attention
            s = att.self
            mha.in_proj_weight.copy_(torch.cat([s.query.weight, s.key.weight, s.value.weight]))
            mha.in_proj_bias.copy_(torch.cat([s.query.bias, s.key.bias, s.value.bias]))
            mha.out_proj.weight.copy_(att.output.dense.weight)
            mha.out_proj.bias.copy_(att.output.dense.bias)
            context, probs = s(x)
            mine = att.output.dense(context)
            mask = None
        else:
            attn = model.h[0].attn
            x = model.h[0].ln_1(x)
            mha.in_proj_weight.copy_(attn.c_attn.weight.T)
            mha.in_proj_bias.copy_(attn.c_attn.bias)
            mha.out_proj.weight.copy_(attn.c_proj.weight.T)
            mha.out_proj.bias.copy_(attn.c_proj.bias)
            mine, probs = attn(x)
            mask = torch.ones(L, L, dtype=torch.bool).triu(1)
        out, weights = mha(x[None], x[None], x[None], attn_mask=mask, need_weights=True, average_attn_weights=False)
    diff = max(float((out[0] - mine).abs().max()), float((weights[0] - probs).abs().max()))
    assert diff <= 1e-12, diff
    return diff


def check_layer_against_module(model, family, x):
    """The whole layer 0 against torch.nn.TransformerEncoderLayer in float64: BERT is its post-LN form with
    erf GELU, a GPT-2 block its pre-LN (norm_first) form with tanh GELU and a causal mask."""
    F = torch.nn.functional
    L = x.shape[0]
    if family == "bert":
        layer = model.encoder.layer[0]
        s, att = layer.attention.self, layer.attention
        parts = dict(w_in=torch.cat([s.query.weight, s.key.weight, s.value.weight]),
                     b_in=torch.cat([s.query.bias, s.key.bias, s.value.bias]),
                     w_out=att.output.dense.weight, b_out=att.output.dense.bias,
                     w1=layer.intermediate.dense.weight, b1=layer.intermediate.dense.bias,
                     w2=layer.output.dense.weight, b2=layer.output.dense.bias,
                     norm1=att.output.LayerNorm, norm2=layer.output.LayerNorm)
        activation, mask = (lambda v: F.gelu(v)), None
    else:
        layer = model.h[0]
        parts = dict(w_in=layer.attn.c_attn.weight.T, b_in=layer.attn.c_attn.bias,
                     w_out=layer.attn.c_proj.weight.T, b_out=layer.attn.c_proj.bias,
                     w1=layer.mlp.c_fc.weight.T, b1=layer.mlp.c_fc.bias,
                     w2=layer.mlp.c_proj.weight.T, b2=layer.mlp.c_proj.bias,
                     norm1=layer.ln_1, norm2=layer.ln_2)
        activation, mask = (lambda v: F.gelu(v, approximate="tanh")), torch.ones(L, L, dtype=torch.bool).triu(1)
    enc = torch.nn.TransformerEncoderLayer(D, NUM_HEADS, dim_feedforward=parts["w1"].shape[0], dropout=0.0,
                                           activation=activation, layer_norm_eps=parts["norm1"].eps, batch_first=True,
                                           norm_first=family != "bert", dtype=F64)
    enc.eval()
    with torch.no_grad():
        enc.self_attn.in_proj_weight.copy_(parts["w_in"])
        enc.self_attn.in_proj_bias.copy_(parts["b_in"])
        enc.self_attn.out_proj.weight.copy_(parts["w_out"])
        enc.self_attn.out_proj.bias.copy_(parts["b_out"])
        enc.linear1.weight.copy_(parts["w1"])
        enc.linear1.bias.copy_(parts["b1"])
        enc.linear2.weight.copy_(parts["w2"])
        enc.linear2.bias.copy_(parts["b2"])
        for mine, theirs in ((parts["norm1"], enc.norm1), (parts["norm2"], enc.norm2)):
            assert mine.eps == theirs.eps
            theirs.weight.copy_(mine.weight)
            theirs.bias.copy_(mine.bias)
        out = enc(x[None], src_mask=mask)[0]
        mine, _ = layer(x)
    diff = float((out - mine).abs().max())
    assert diff <= 1e-12, diff
    return diff
