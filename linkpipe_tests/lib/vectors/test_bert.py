"""The default model run with torch alone: the vectors sentence-transformers gives, without
importing it; models of another shape go through sentence-transformers."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from linkpipe.lib.vectors.bert import LeanShape, lean_model, required_weights, shape_of
from linkpipe.lib.vectors.embedding import (
    DEFAULT_MODEL,
    SentenceTransformerEmbedder,
    resolve_model_path,
)

MODEL = Path(resolve_model_path(DEFAULT_MODEL))
TEXTS = [
    "Layer masks hide parts of a layer without erasing them.",
    "   brush dynamics   ",  # stripped, as sentence-transformers strips
    "",
    "Ünïcode: naïve café façade — “quotes” and 100 % of 3.5 mm",
    " ".join(f"word{i} paints the canvas" for i in range(200)),  # > 256 tokens: truncated
    "short",
]


def reference(folder: Path, texts: list[str]) -> np.ndarray:
    """sentence-transformers' own unit vectors of ``texts`` (one batch)."""
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(folder), device="cpu")
    vectors = model.encode(texts, batch_size=len(texts), normalize_embeddings=True)
    return np.asarray(vectors, dtype=np.float32)


def variant(tmp_path: Path, pooling: dict[str, bool] | None = None, **config: object) -> Path:
    """The default model's files under ``tmp_path`` (linked), with its pooling modes or its
    config changed."""
    folder = tmp_path / "model"
    folder.mkdir()
    for item in MODEL.iterdir():
        if item.name not in ("config.json", "1_Pooling"):
            (folder / item.name).symlink_to(item)
    settings = json.loads((MODEL / "config.json").read_text()) | config
    (folder / "config.json").write_text(json.dumps(settings))
    (folder / "1_Pooling").mkdir()
    modes = json.loads((MODEL / "1_Pooling" / "config.json").read_text()) | (pooling or {})
    (folder / "1_Pooling" / "config.json").write_text(json.dumps(modes))
    return folder


def test_the_default_model_gives_sentence_transformers_vectors_in_one_padded_batch():
    embedder = SentenceTransformerEmbedder(DEFAULT_MODEL, batch_size=len(TEXTS), device="cpu")
    vectors = embedder.embed(TEXTS)
    assert embedder.backend == "torch" and embedder.lean_refused == "" and embedder.dim == 384
    assert vectors.shape == (6, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    assert np.abs(vectors - reference(MODEL, TEXTS)).max() < 1e-5
    # the two-word text embeds the same alone (no padding) as in a padded batch
    alone = SentenceTransformerEmbedder(DEFAULT_MODEL, batch_size=1, device="cpu")
    assert np.abs(alone.embed(TEXTS[1:2])[0] - vectors[1]).max() < 1e-5


def test_the_default_model_embeds_without_importing_sentence_transformers():
    code = (
        "import sys; from linkpipe.lib.vectors.embedding import make_embedder; "
        "v = make_embedder().embed(['layer masks', 'brush dynamics']); "
        "print(v.shape, sorted(m for m in ('sentence_transformers', 'transformers') "
        "if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == "(2, 384) []"


def test_cls_pooling_runs_lean_and_matches_sentence_transformers(tmp_path):
    folder = variant(tmp_path, {"pooling_mode_mean_tokens": False, "pooling_mode_cls_token": True})
    shape = shape_of(folder)
    assert shape == LeanShape(max_length=256, pooling="cls", layers=6, heads=12, eps=1e-12)
    embedder = SentenceTransformerEmbedder(str(folder), batch_size=8, device="cpu")
    vectors = embedder.embed(TEXTS)
    assert embedder.backend == "torch" and embedder.model_id == str(folder)
    assert np.abs(vectors - reference(folder, TEXTS)).max() < 1e-5
    mean = SentenceTransformerEmbedder(DEFAULT_MODEL, batch_size=8, device="cpu").embed(TEXTS)
    assert np.abs(vectors - mean).max() > 0.1  # the pooling was read, not assumed


def test_max_pooling_goes_through_sentence_transformers(tmp_path):
    folder = variant(tmp_path, {"pooling_mode_mean_tokens": False, "pooling_mode_max_tokens": True})
    assert "modules other than" in str(lean_model(folder, "cpu"))
    embedder = SentenceTransformerEmbedder(str(folder), batch_size=8, device="cpu")
    vectors = embedder.embed(TEXTS[:2])
    assert embedder.backend == "sentence-transformers"
    assert "modules other than" in embedder.lean_refused
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    mean = SentenceTransformerEmbedder(DEFAULT_MODEL, device="cpu").embed(TEXTS[:2])
    assert np.abs(vectors - mean).max() > 0.05


@pytest.mark.parametrize(
    ("config", "reason"),
    [
        ({"model_type": "roberta", "architectures": ["RobertaModel"]}, "not a BertModel"),
        ({"position_embedding_type": "relative_key"}, "positions are not absolute"),
        ({"hidden_act": "relu"}, "activation 'relu'"),
    ],
)
def test_other_shapes_are_refused_with_a_reason(tmp_path, config, reason):
    assert reason in str(shape_of(variant(tmp_path, **config)))


def test_a_dense_module_or_a_missing_modules_file_is_refused(tmp_path):
    folder = variant(tmp_path)
    (folder / "modules.json").unlink()
    assert lean_model(folder, "cpu") == "not a saved sentence-transformers model"
    modules = json.loads((MODEL / "modules.json").read_text())
    dense = {"idx": 3, "name": "3", "path": "2_Dense", "type": "sentence_transformers.models.Dense"}
    (folder / "modules.json").write_text(json.dumps([*modules, dense]))
    assert "modules other than" in str(shape_of(folder))


def test_a_model_whose_weights_lack_a_layer_falls_back_with_the_name(tmp_path):
    from safetensors.torch import load_file, save_file

    folder = variant(tmp_path)
    weights = load_file(str(MODEL / "model.safetensors"))
    del weights["encoder.layer.5.output.dense.weight"]
    (folder / "model.safetensors").unlink()
    save_file(weights, str(folder / "model.safetensors"))
    assert lean_model(folder, "cpu") == "weights missing: encoder.layer.5.output.dense.weight"
    shape = shape_of(MODEL)
    assert isinstance(shape, LeanShape) and len(required_weights(shape)) == 3 + 2 + 6 * 16
    assert set(required_weights(shape)) <= set(load_file(str(MODEL / "model.safetensors")))
