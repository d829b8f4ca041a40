"""verify(): every row's logits as numpy, against llama.cpp's recorded logits
for the bundled model, and batch invariance (a row never depends on the rows
after it)."""

from __future__ import annotations

import numpy as np
import pytest

import trit


def test_rows_match_llamacpp(model, greedy_rows):
    rows = greedy_rows["rows"]
    ids = [r["id"] for r in rows]
    logits = model.verify(ids)
    assert logits.shape == (len(ids), greedy_rows["n_vocab"]) and logits.dtype == np.float32
    assert logits.flags["C_CONTIGUOUS"] and logits.flags["WRITEABLE"]
    for i, r in enumerate(rows):
        assert int(np.argmax(logits[i])) == r["argmax"], i
        for token, value in r["top"]:
            # llama.cpp sums in another order; tests/model/stories_reference_test.cpp allows the same
            assert logits[i, token] == pytest.approx(value, abs=1e-2), (i, token)


def test_a_prefix_gives_the_same_rows_bit_for_bit(model, greedy_rows):
    ids = [r["id"] for r in greedy_rows["rows"]][:64]
    whole = model.verify(ids)
    for n in (1, 7, 33):
        assert np.array_equal(model.verify(ids[:n]), whole[:n])


def test_numpy_ids_are_accepted(model):
    ids = [1, 403, 407, 261]
    assert np.array_equal(model.verify(np.array(ids, dtype=np.int64)), model.verify(ids))


def test_bad_ids(model):
    with pytest.raises(trit.InvalidArgumentError):
        model.verify([])
    with pytest.raises(trit.InvalidArgumentError):
        model.verify([[1, 2], [3, 4]])
    with pytest.raises(trit.InvalidArgumentError):
        model.verify([1.5, 2.0])
    with pytest.raises(trit.InvalidArgumentError, match="9999"):
        model.verify([1, 9999])


def test_embed_says_it_is_not_implemented(model):
    with pytest.raises(trit.UnsupportedError, match="not implemented") as e:
        model.embed(["a text"])
    assert e.value.status == 5 and isinstance(e.value, NotImplementedError)
