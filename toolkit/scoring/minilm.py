"""all-MiniLM-L6-v2 sentence embeddings in NumPy, from the model's own files.

ActPlan-1K's semantic LCS needs the embeddings of one small model. The official
route, ``sentence-transformers``, pulls in PyTorch, which PyPI serves with its CUDA
libraries: measured here, more than 6 GB and more than 7 minutes to install,
for a 6-layer, 384-wide BERT whose forward pass is a few matrix products. So the
encoder is computed here with NumPy, from the same files: ``model.safetensors``
(read by ``safetensors``), ``tokenizer.json`` (run by ``tokenizers``), mean
pooling over the attention mask and L2 normalisation, as the model's
``modules.json`` prescribes (Transformer, Pooling with mean tokens, Normalize),
with its ``max_seq_length`` of 256 tokens. ``tests/scoring/test_scoring_official.py``
pins its similarities against values produced by sentence-transformers itself.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

try:  # erf over whole arrays; math.erf one value at a time is most of the run time without it
    from scipy.special import erf as _ERF
except ImportError:
    _ERF = np.vectorize(math.erf, otypes=[np.float32])


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def _gelu(x: np.ndarray) -> np.ndarray:
    """The exact (erf) GELU of BERT's ``hidden_act: gelu``."""
    return 0.5 * x * (1.0 + _ERF(x / math.sqrt(2.0)))


class MiniLM:
    """A BERT encoder with mean pooling, loaded from a sentence-transformers model folder."""

    def __init__(self, folder: str | Path) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        folder = Path(folder)
        self.config = json.loads((folder / "config.json").read_text())
        st_config = folder / "sentence_bert_config.json"
        max_len = json.loads(st_config.read_text()).get("max_seq_length", 256) if st_config.is_file() else 256
        self.w = {k: v.astype(np.float32) for k, v in load_file(str(folder / "model.safetensors")).items()}
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_len)
        self.tokenizer.no_padding()
        self._cache: dict[str, np.ndarray] = {}  # plans repeat steps, and gold plans recur across candidates

    def _encode_one(self, ids: list[int], type_ids: list[int]) -> np.ndarray:
        w, c = self.w, self.config
        heads, eps = c["num_attention_heads"], c["layer_norm_eps"]
        n = len(ids)
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n]
             + w["embeddings.token_type_embeddings.weight"][type_ids])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
        d = x.shape[1] // heads
        for i in range(c["num_hidden_layers"]):
            p = f"encoder.layer.{i}."

            def dense(h: np.ndarray, name: str) -> np.ndarray:
                return h @ w[p + name + ".weight"].T + w[p + name + ".bias"]

            q, k, v = (dense(x, f"attention.self.{m}").reshape(n, heads, d).transpose(1, 0, 2)
                       for m in ("query", "key", "value"))
            scores = q @ k.transpose(0, 2, 1) / math.sqrt(d)
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            att = (scores / scores.sum(-1, keepdims=True)) @ v
            att = att.transpose(1, 0, 2).reshape(n, heads * d)
            x = _layer_norm(dense(att, "attention.output.dense") + x,
                            w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"], eps)
            h = _gelu(dense(x, "intermediate.dense"))
            x = _layer_norm(dense(h, "output.dense") + x, w[p + "output.LayerNorm.weight"],
                            w[p + "output.LayerNorm.bias"], eps)
        pooled = x.mean(0)  # one unpadded sentence: every token is under the attention mask
        return pooled / max(float(np.linalg.norm(pooled)), 1e-12)

    def encode(self, sentences: list[str]) -> np.ndarray:
        """Unit-length embeddings, one row per sentence."""
        todo = [s for s in dict.fromkeys(sentences) if s not in self._cache]
        for s, e in zip(todo, self.tokenizer.encode_batch(todo)):
            self._cache[s] = self._encode_one(e.ids, e.type_ids)
        rows = [self._cache[s] for s in sentences]
        return np.stack(rows) if rows else np.zeros((0, self.config["hidden_size"]), dtype=np.float32)
