"""Failures raise trit's exceptions with the library's message, and lose
nothing: a bad call leaves the model usable."""

from __future__ import annotations

import pytest

import trit
from conftest import MODEL


def test_missing_file(tmp_path):
    missing = tmp_path / "missing.gguf"
    with pytest.raises(trit.NotFoundError, match="missing.gguf") as e:
        trit.Model(missing)
    assert isinstance(e.value, LookupError) and e.value.status == 2 and e.value.status_name == "not found"


def test_truncated_file_is_corrupt(tmp_path):
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(MODEL.read_bytes()[:5000])
    with pytest.raises(trit.CorruptError, match="cut.gguf"):
        trit.Model(cut)


def test_not_gguf_is_an_unknown_format(tmp_path):
    text = tmp_path / "notes.gguf"
    text.write_text("these are not weights\n" * 10)
    with pytest.raises(trit.UnsupportedError, match="notes.gguf.*GGUF"):
        trit.Model(text)


def test_unknown_engine_names_the_engines():
    with pytest.raises(trit.InvalidArgumentError, match="cpu"):
        trit.Model(MODEL, engine="no-such-engine")


def test_bad_threads():
    with pytest.raises(trit.InvalidArgumentError, match="n_threads"):
        trit.Model(MODEL, threads=-2)


def test_errors_leave_the_model_usable(model):
    before = model.generate("Once", max_tokens=8, temperature=0)
    with pytest.raises(trit.InvalidArgumentError):
        model.generate("Once", top_p=7)
    assert model.generate("Once", max_tokens=8, temperature=0) == before


def test_closed_model():
    m = trit.Model(MODEL)
    m.close()
    assert m.closed and "closed" in repr(m)
    with pytest.raises(ValueError, match="closed"):
        m.tokenize("x")
    m.close()  # twice is fine


def test_every_status_has_a_class():
    for status in range(1, 9):
        error = trit._errors.from_status(status, "message")
        assert type(error) is not trit.Error and error.status == status and str(error) == "message"
    assert type(trit._errors.from_status(99, "newer")) is trit.Error
