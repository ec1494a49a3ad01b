"""Hand-written models with the Hugging Face parameter names (float64)."""
import math

import torch

from .common import D, DK, F64, INTERMEDIATE, NUM_HEADS, NUM_LAYERS


def gelu(x):
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def linear(n_in, n_out):
    return torch.nn.Linear(n_in, n_out, dtype=F64)


def layer_norm(eps):
    return torch.nn.LayerNorm(D, eps=eps, dtype=F64)


class BertEmbeddings(torch.nn.Module):
    def __init__(self, vocab, positions, types, eps):
        super().__init__()
        self.word_embeddings = torch.nn.Embedding(vocab, D, dtype=F64)
        self.position_embeddings = torch.nn.Embedding(positions, D, dtype=F64)
        self.token_type_embeddings = torch.nn.Embedding(types, D, dtype=F64)
        self.LayerNorm = layer_norm(eps)

    def forward(self, ids, types, positions):
        return self.LayerNorm(self.word_embeddings(ids) + self.token_type_embeddings(types) + self.position_embeddings(positions))


class BertSelfAttention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.query, self.key, self.value = linear(D, D), linear(D, D), linear(D, D)

    def forward(self, x):
        L = x.shape[0]
        q, k, v = (m(x).view(L, NUM_HEADS, DK).transpose(0, 1) for m in (self.query, self.key, self.value))
        probs = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(DK), dim=-1)
        return (probs @ v).transpose(0, 1).reshape(L, D), probs


class BertSelfOutput(torch.nn.Module):
    def __init__(self, eps):
        super().__init__()
        self.dense, self.LayerNorm = linear(D, D), layer_norm(eps)


class BertAttention(torch.nn.Module):
    def __init__(self, eps):
        super().__init__()
        self.self = BertSelfAttention()
        self.output = BertSelfOutput(eps)

    def forward(self, x):
        context, probs = self.self(x)
        return self.output.LayerNorm(self.output.dense(context) + x), probs


class BertIntermediate(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.dense = linear(D, INTERMEDIATE)


class BertOutput(torch.nn.Module):
    def __init__(self, eps):
        super().__init__()
        self.dense, self.LayerNorm = linear(INTERMEDIATE, D), layer_norm(eps)


class BertLayer(torch.nn.Module):
    def __init__(self, eps):
        super().__init__()
        self.attention = BertAttention(eps)
        self.intermediate = BertIntermediate()
        self.output = BertOutput(eps)

    def forward(self, x):
        a, probs = self.attention(x)
        return self.output.LayerNorm(self.output.dense(gelu(self.intermediate.dense(a))) + a), probs


class BertEncoder(torch.nn.Module):
    def __init__(self, eps):
        super().__init__()
        self.layer = torch.nn.ModuleList(BertLayer(eps) for _ in range(NUM_LAYERS))


class BertModel(torch.nn.Module):
    """BertModel / RobertaModel without pooler, no padding, erf GELU."""

    def __init__(self, vocab, positions, types, eps):
        super().__init__()
        self.embeddings = BertEmbeddings(vocab, positions, types, eps)
        self.encoder = BertEncoder(eps)

    def forward(self, ids, types, positions):
        h = self.embeddings(ids, types, positions)
        hidden, attentions = [h], []
        for layer in self.encoder.layer:
            h, probs = layer(h)
            hidden.append(h)
            attentions.append(probs)
        return hidden, attentions


class Conv1D(torch.nn.Module):
    """GPT-2's Conv1D: weight [in, out], y = x W + b."""

    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.zeros(n_in, n_out, dtype=F64))
        self.bias = torch.nn.Parameter(torch.zeros(n_out, dtype=F64))

    def forward(self, x):
        return x @ self.weight + self.bias


class GPT2Attention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn, self.c_proj = Conv1D(D, 3 * D), Conv1D(D, D)

    def forward(self, x):
        L = x.shape[0]
        q, k, v = (t.view(L, NUM_HEADS, DK).transpose(0, 1) for t in self.c_attn(x).split(D, dim=-1))
        scores = q @ k.transpose(-1, -2) / math.sqrt(DK)
        causal = torch.ones(L, L, dtype=torch.bool).tril()
        probs = torch.softmax(scores.masked_fill(~causal, -math.inf), dim=-1)
        return self.c_proj((probs @ v).transpose(0, 1).reshape(L, D)), probs


class GPT2MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c_fc, self.c_proj = Conv1D(D, 4 * D), Conv1D(4 * D, D)


class GPT2Block(torch.nn.Module):
    def __init__(self, eps):
        super().__init__()
        self.ln_1, self.attn, self.ln_2, self.mlp = layer_norm(eps), GPT2Attention(), layer_norm(eps), GPT2MLP()

    def forward(self, x):
        a, probs = self.attn(self.ln_1(x))
        x = x + a
        return x + self.mlp.c_proj(gelu_new(self.mlp.c_fc(self.ln_2(x)))), probs


class GPT2Model(torch.nn.Module):
    def __init__(self, vocab, positions, eps):
        super().__init__()
        self.wte = torch.nn.Embedding(vocab, D, dtype=F64)
        self.wpe = torch.nn.Embedding(positions, D, dtype=F64)
        self.h = torch.nn.ModuleList(GPT2Block(eps) for _ in range(NUM_LAYERS))
        self.ln_f = layer_norm(eps)

    def forward(self, ids, types, positions):
        h = self.wte(ids) + self.wpe(positions)
        hidden, attentions = [], []
        for block in self.h:
            hidden.append(h)
            h, probs = block(h)
            attentions.append(probs)
        hidden.append(self.ln_f(h))
        return hidden, attentions


def load(model, weights, prefix, renames, skip):
    """Loads the tensors read from the file into the model (strict): strips prefix, renames, skips the listed extras."""
    state, skipped = {}, set()
    for name, array in weights.items():
        if name in skip:
            skipped.add(name)
            continue
        assert name.startswith(prefix), name
        key = name[len(prefix):]
        for old, new in renames:
            if key.endswith(old):
                key = key[:-len(old)] + new
        state[key] = torch.tensor(array, dtype=F64)
    assert skipped == set(skip), set(skip) - skipped
    model.load_state_dict(state, strict=True)
    return model
