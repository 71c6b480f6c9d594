"""A sentence-transformers BERT model run with torch alone: the default model's loader.

Importing sentence-transformers (and with it transformers) costs ~5 CPU-s a process, more than
embedding a hundred pages: a nightly refresh that embeds its few edited pages paid it every
night. A saved sentence-transformers model of the common shape — a ``BertModel`` with absolute
positions and GELU, then mean or CLS pooling (then, optionally, normalisation) — is run here
from its own files (``config.json``, ``model.safetensors``, ``tokenizer.json``,
``modules.json``, ``sentence_bert_config.json``, ``1_Pooling/config.json``) through the
``tokenizers`` and ``safetensors`` packages: the same tokens (stripped text, truncated at the
model's ``max_seq_length``, padded to the batch's longest) and the same arithmetic as
sentence-transformers, vectors equal to its own to ~1e-7 (tested). Any other model goes through
sentence-transformers (:mod:`~linkpipe.lib.vectors.embedding`); :func:`lean_model` says why not.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

TRANSFORMER = "sentence_transformers.models.Transformer"
POOLING = "sentence_transformers.models.Pooling"
NORMALIZE = "sentence_transformers.models.Normalize"
POOLING_MODES = {"pooling_mode_mean_tokens": "mean", "pooling_mode_cls_token": "cls"}


@dataclass(frozen=True)
class LeanShape:
    """What a model directory must say for :class:`LeanBert` to run it (see :func:`shape_of`)."""

    max_length: int
    pooling: str  # "mean" or "cls"
    layers: int
    heads: int
    eps: float


def _json(path: Path) -> dict[str, Any]:
    """A JSON file's object ({} when the file is missing)."""
    if not path.is_file():
        return {}
    value = json.loads(path.read_text(encoding="utf-8"))
    return value if isinstance(value, dict) else {}


def _pooling(folder: Path, modules: list[dict[str, Any]]) -> str | None:
    """The pooling mode when the modules are Transformer, Pooling (one mode of
    :data:`POOLING_MODES`) and optionally Normalize; None otherwise."""
    kinds = [m.get("type") for m in modules]
    if kinds not in ([TRANSFORMER, POOLING], [TRANSFORMER, POOLING, NORMALIZE]):
        return None
    if modules[0].get("path", "") != "":
        return None
    config = _json(folder / modules[1].get("path", "") / "config.json")
    modes = [name for name, on in config.items() if name.startswith("pooling_mode") and on]
    return POOLING_MODES.get(modes[0]) if len(modes) == 1 else None


def shape_of(folder: Path) -> LeanShape | str:
    """The shape of the saved model in ``folder``, or why :class:`LeanBert` cannot run it."""
    config = _json(folder / "config.json")
    if config.get("model_type") != "bert" or config.get("architectures") not in (
        None,
        ["BertModel"],
    ):
        return f"not a BertModel: {config.get('model_type')!r}"
    if config.get("position_embedding_type", "absolute") != "absolute":
        return "positions are not absolute"
    if config.get("hidden_act") != "gelu":
        return f"activation {config.get('hidden_act')!r}"
    if not (folder / "model.safetensors").is_file() or not (folder / "tokenizer.json").is_file():
        return "no model.safetensors or tokenizer.json"
    pooling = _pooling(folder, json.loads((folder / "modules.json").read_text(encoding="utf-8")))
    settings = _json(folder / "sentence_bert_config.json")
    if pooling is None or settings.get("do_lower_case"):
        return "modules other than Transformer, mean or CLS Pooling, Normalize"
    length = min(int(settings.get("max_seq_length", 512)), int(config["max_position_embeddings"]))
    heads, layers = int(config["num_attention_heads"]), int(config["num_hidden_layers"])
    return LeanShape(length, pooling, layers, heads, float(config["layer_norm_eps"]))


def lean_model(folder: str | Path, device: str) -> LeanBert | str:
    """The model saved in ``folder`` as a :class:`LeanBert` on ``device``, or why not."""
    path = Path(folder)
    if not (path / "modules.json").is_file():
        return "not a saved sentence-transformers model"
    shape = shape_of(path)
    if isinstance(shape, str):
        return shape
    model = LeanBert.load(path, shape, device)
    missing = [name for name in required_weights(shape) if name not in model.weights]
    return f"weights missing: {', '.join(missing[:3])}" if missing else model


def required_weights(shape: LeanShape) -> list[str]:
    """The names of the weights :class:`LeanBert` reads (without a ``bert.`` prefix)."""
    names = [f"embeddings.{e}_embeddings.weight" for e in ("word", "position", "token_type")]
    parts = ["embeddings.LayerNorm"]
    for i in range(shape.layers):
        p = f"encoder.layer.{i}."
        parts += [f"{p}attention.self.{n}" for n in ("query", "key", "value")]
        parts += [f"{p}attention.output.{n}" for n in ("dense", "LayerNorm")]
        parts += [f"{p}intermediate.dense", f"{p}output.dense", f"{p}output.LayerNorm"]
    return names + [f"{part}.{w}" for part in parts for w in ("weight", "bias")]


class LeanBert:
    """A BERT encoder with its pooling (see the module); :meth:`encode` gives unit vectors."""

    def __init__(self, weights: dict[str, Any], tokenizer: Any, shape: LeanShape, device: str):
        self.weights, self.tokenizer, self.shape, self.device = weights, tokenizer, shape, device
        self.dim = int(weights["embeddings.word_embeddings.weight"].shape[1])

    @classmethod
    def load(cls, folder: Path, shape: LeanShape, device: str) -> LeanBert:
        """The model's weights (without a ``bert.`` prefix) and tokenizer from ``folder``."""
        from safetensors.torch import load_file
        from tokenizers import Tokenizer

        weights = load_file(str(folder / "model.safetensors"), device=device)
        weights = {name.removeprefix("bert."): w for name, w in weights.items()}
        tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        tokenizer.enable_truncation(max_length=shape.max_length)
        pad = tokenizer.token_to_id("[PAD]")
        tokenizer.enable_padding(pad_id=0 if pad is None else pad, pad_token="[PAD]")
        return cls(weights, tokenizer, shape, device)

    def encode(self, texts: list[str]) -> NDArray[np.float32]:
        """Unit vectors of ``texts`` (one batch: padded to its longest text)."""
        import torch

        with torch.inference_mode():
            found = self.tokenizer.encode_batch([text.strip() for text in texts])
            ids = torch.tensor([e.ids for e in found], device=self.device)
            mask = torch.tensor([e.attention_mask for e in found], device=self.device)
            kinds = torch.tensor([e.type_ids for e in found], device=self.device)
            hidden = self._layers(self._embeddings(ids, kinds), mask)
            pooled = self._pool(hidden, mask)
            vectors = torch.nn.functional.normalize(pooled, dim=1)
            return np.asarray(vectors.float().cpu().numpy(), dtype=np.float32)

    def _embeddings(self, ids: Any, kinds: Any) -> Any:
        """Word, position and token-type embeddings, normalised."""
        w = self.weights
        x = w["embeddings.word_embeddings.weight"][ids]
        x = x + w["embeddings.position_embeddings.weight"][: ids.shape[1]]
        x = x + w["embeddings.token_type_embeddings.weight"][kinds]
        return self._norm(x, "embeddings.LayerNorm")

    def _layers(self, x: Any, mask: Any) -> Any:
        """The encoder's layers: self-attention over the unmasked tokens, then the feed-forward
        block, each with its residual and layer norm."""
        import torch
        from torch.nn import functional

        batch, length, width = x.shape
        heads = self.shape.heads
        blocked = None
        if not bool(mask.all()):  # padding: an additive mask (none lets SDPA take its fast path)
            blocked = (1.0 - mask[:, None, None, :].to(x.dtype)) * torch.finfo(x.dtype).min
        for i in range(self.shape.layers):
            p = f"encoder.layer.{i}."
            q, k, v = (
                self._linear(x, f"{p}attention.self.{name}")
                .view(batch, length, heads, width // heads)
                .transpose(1, 2)
                for name in ("query", "key", "value")
            )
            seen = functional.scaled_dot_product_attention(q, k, v, attn_mask=blocked)
            seen = seen.transpose(1, 2).reshape(batch, length, width)
            x = self._norm(self._linear(seen, f"{p}attention.output.dense") + x,
                           f"{p}attention.output.LayerNorm")  # fmt: skip
            inner = functional.gelu(self._linear(x, f"{p}intermediate.dense"))
            x = self._norm(self._linear(inner, f"{p}output.dense") + x, f"{p}output.LayerNorm")
        return x

    def _pool(self, hidden: Any, mask: Any) -> Any:
        """Mean of the unmasked tokens' states, or the first ([CLS]) token's."""
        if self.shape.pooling == "cls":
            return hidden[:, 0]
        weights = mask[..., None].to(hidden.dtype)
        return (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)

    def _linear(self, x: Any, name: str) -> Any:
        from torch.nn import functional

        return functional.linear(x, self.weights[f"{name}.weight"], self.weights[f"{name}.bias"])

    def _norm(self, x: Any, name: str) -> Any:
        from torch.nn import functional

        w, b = self.weights[f"{name}.weight"], self.weights[f"{name}.bias"]
        return functional.layer_norm(x, (x.shape[-1],), w, b, self.shape.eps)
