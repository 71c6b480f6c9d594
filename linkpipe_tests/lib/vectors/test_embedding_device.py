"""The embedding device: a GPU when torch sees one, else the CPU; named by LINKPIPE_DEVICE."""

import numpy as np
import pytest
import torch

from linkpipe.lib.vectors.embedding import (
    BATCH_SIZES,
    DEFAULT_MODEL,
    DEVICE_ENV,
    EmbeddingError,
    SentenceTransformerEmbedder,
    resolve_device,
)

HAS_GPU = torch.cuda.is_available()


def test_resolve_device_takes_the_argument_then_the_environment_then_auto(monkeypatch):
    monkeypatch.delenv(DEVICE_ENV, raising=False)
    assert resolve_device() == ("cuda" if HAS_GPU else "cpu")
    assert resolve_device("CPU ") == "cpu"
    monkeypatch.setenv(DEVICE_ENV, "cuda:1")
    assert resolve_device() == "cuda:1"
    assert resolve_device("cpu") == "cpu"  # the argument wins over the environment
    monkeypatch.setenv(DEVICE_ENV, "auto")
    assert resolve_device() == ("cuda" if HAS_GPU else "cpu")


def test_the_device_is_chosen_when_the_model_loads_with_its_batch_size(monkeypatch):
    monkeypatch.setenv(DEVICE_ENV, "cpu")
    embedder = SentenceTransformerEmbedder(DEFAULT_MODEL)
    assert embedder.device == "" and not embedder.loaded  # nothing resolved before the load
    vectors = embedder.embed(["layer masks hide parts of a layer", "brush dynamics"])
    assert embedder.device == "cpu" and embedder.batch_size == BATCH_SIZES["cpu"]
    assert vectors.shape == (2, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    fixed = SentenceTransformerEmbedder(DEFAULT_MODEL, batch_size=4, device="cpu")
    again = fixed.embed(["brush dynamics", "layer masks hide parts of a layer"])
    assert fixed.batch_size == 4
    assert np.allclose(again[::-1], vectors, atol=1e-5)


@pytest.mark.skipif(HAS_GPU, reason="a GPU is there: this checks a machine without one")
def test_a_gpu_named_on_a_machine_without_one_is_a_clear_error(monkeypatch):
    monkeypatch.setenv(DEVICE_ENV, "cuda")
    embedder = SentenceTransformerEmbedder(DEFAULT_MODEL)
    with pytest.raises(EmbeddingError, match="cannot load embedding model"):
        embedder.embed(["layer masks"])


def test_an_unknown_device_is_a_clear_error():
    embedder = SentenceTransformerEmbedder(DEFAULT_MODEL, device="abacus")
    with pytest.raises(EmbeddingError, match="cannot load embedding model"):
        embedder.embed(["layer masks"])
