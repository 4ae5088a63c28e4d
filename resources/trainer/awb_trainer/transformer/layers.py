"""The transformer blocks of the screen policy: BERT's post-LayerNorm encoder layer (Devlin et al. 2019; the module
names are BERT's, so all-MiniLM-L6-v2's weights load by name), and LoRA (Hu et al. 2021) on its linear maps."""

from __future__ import annotations

import math
from typing import Optional

import torch
from torch import nn


class LoRALinear(nn.Module):
    """y = W x + b + (α / r) · B A x, with A ~ Kaiming-uniform and B = 0 so a fresh adapter is the identity (LoRA §4.1).
    The base weight and bias are frozen while the adapter trains; `merged()` gives W + (α/r)·BA for export."""

    def __init__(self, base: nn.Linear, r: int, alpha: float):
        super().__init__()
        self.base = base
        self.r = r
        self.scale = alpha / r
        self.lora_A = nn.Parameter(torch.empty(r, base.in_features, dtype=base.weight.dtype))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, r, dtype=base.weight.dtype))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))

    @property
    def weight(self) -> torch.Tensor:
        return self.base.weight + self.scale * (self.lora_B @ self.lora_A)

    @property
    def bias(self) -> Optional[torch.Tensor]:
        return self.base.bias

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.base(x) + self.scale * ((x @ self.lora_A.t()) @ self.lora_B.t())


class _Dense(nn.Module):
    """BERT's `dense` + optional `LayerNorm` around a residual (…output.dense, …output.LayerNorm)."""

    def __init__(self, d_in: int, d_out: int, norm: bool):
        super().__init__()
        self.dense = nn.Linear(d_in, d_out)
        self.LayerNorm = nn.LayerNorm(d_out, eps=1e-12) if norm else None


class _SelfAttention(nn.Module):
    def __init__(self, d: int):
        super().__init__()
        self.query = nn.Linear(d, d)
        self.key = nn.Linear(d, d)
        self.value = nn.Linear(d, d)


class _Attention(nn.Module):
    def __init__(self, d: int):
        super().__init__()
        self.self = _SelfAttention(d)
        self.output = _Dense(d, d, norm=True)


class EncoderLayer(nn.Module):
    """One BERT layer: h = LN(x + O(MHA(x))); out = LN(h + W2 GELU(W1 h)). `mask` [B, L] is True on real positions;
    masked keys get −1e9 before the softmax (a row of all-masked keys then attends uniformly and stays finite)."""

    def __init__(self, d: int, heads: int, ffn: int):
        super().__init__()
        if d % heads:
            raise ValueError(f"width {d} is not a multiple of the {heads} heads")
        self.heads = heads
        self.attention = _Attention(d)
        self.intermediate = _Dense(d, ffn, norm=False)
        self.output = _Dense(ffn, d, norm=True)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        b, n, d = x.shape
        h = self.heads
        sa = self.attention.self
        q = sa.query(x).reshape(b, n, h, d // h).transpose(1, 2)
        k = sa.key(x).reshape(b, n, h, d // h).transpose(1, 2)
        v = sa.value(x).reshape(b, n, h, d // h).transpose(1, 2)
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(d // h)
        scores = scores + (~mask)[:, None, None, :].to(scores.dtype) * -1e9
        ctx = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(b, n, d)
        ao = self.attention.output
        x = ao.LayerNorm(x + ao.dense(ctx))
        inner = torch.nn.functional.gelu(self.intermediate.dense(x))
        return self.output.LayerNorm(x + self.output.dense(inner))


class Embeddings(nn.Module):
    """BERT's embeddings: word + position + token type 0, then LayerNorm."""

    def __init__(self, vocab: int, d: int, positions: int):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, d, padding_idx=0)
        self.position_embeddings = nn.Embedding(positions, d)
        self.token_type_embeddings = nn.Embedding(2, d)
        self.LayerNorm = nn.LayerNorm(d, eps=1e-12)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        pos = torch.arange(ids.shape[-1], device=ids.device)
        x = self.word_embeddings(ids) + self.position_embeddings(pos) + self.token_type_embeddings.weight[0]
        return self.LayerNorm(x)


class Encoder(nn.Module):
    def __init__(self, d: int, heads: int, ffn: int, layers: int):
        super().__init__()
        self.layer = nn.ModuleList([EncoderLayer(d, heads, ffn) for _ in range(layers)])

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        for layer in self.layer:
            x = layer(x, mask)
        return x


class TextEncoder(nn.Module):
    """Token states of short texts read one by one ([B, T] ids → [B, T, d]); 0 is padding. Scratch, or all-MiniLM-L6-v2
    (its embeddings and first `layers` layers, minilm.py)."""

    def __init__(self, vocab: int, d: int, heads: int, ffn: int, layers: int, positions: int):
        super().__init__()
        self.embeddings = Embeddings(vocab, d, positions)
        self.encoder = Encoder(d, heads, ffn, layers)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        mask = ids != 0
        # A text with no tokens (an empty history slot) attends to its first position, so no row is all masked.
        mask = torch.cat([torch.ones_like(mask[:, :1]), mask[:, 1:]], dim=1)
        return self.encoder(self.embeddings(ids), mask)


def add_lora(module: nn.Module, names: tuple[str, ...], r: int, alpha: float) -> list[str]:
    """Wraps every nn.Linear whose attribute name is in `names` (BERT's query/key/value/dense) in LoRALinear; the
    wrapped paths, sorted."""
    done: list[str] = []
    for path, parent in list(module.named_modules()):
        for name, child in list(parent.named_children()):
            if name in names and isinstance(child, nn.Linear):
                setattr(parent, name, LoRALinear(child, r, alpha))
                done.append(f"{path}.{name}" if path else name)
    return sorted(done)


def merge_lora(module: nn.Module) -> None:
    """Replaces every LoRALinear by a plain nn.Linear with the merged weight (what the ONNX export runs)."""
    for _path, parent in list(module.named_modules()):
        for name, child in list(parent.named_children()):
            if isinstance(child, LoRALinear):
                lin = nn.Linear(child.base.in_features, child.base.out_features, bias=child.base.bias is not None)
                with torch.no_grad():
                    lin.weight.copy_(child.weight)
                    if child.base.bias is not None:
                        lin.bias.copy_(child.base.bias)
                setattr(parent, name, lin.to(child.base.weight.dtype))
