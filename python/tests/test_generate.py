"""Generation from Python against references that trit did not write:
llama2.c's published greedy output, llama.cpp's greedy continuations, and
the trit command (another frontend over the same library)."""

from __future__ import annotations

import numpy as np
import pytest

import trit
from conftest import REFERENCE, MODEL, run_trit


def test_greedy_from_bos_is_llama2c_published_output(model):
    expected = (REFERENCE / "expected_greedy_llama2c_steps200.txt").read_text()
    assert model.generate("", max_tokens=200, temperature=0) == expected


def test_greedy_continuations_match_llamacpp(model, continuations):
    for case in continuations:
        got = model.complete(case["prompt"], max_tokens=case["n"], temperature=0, stop_at_end=False)
        assert got.text == case["continuation"], case["prompt"]
        assert got.n_generated == case["n"]


def test_same_text_as_trit_run(model, trit_bin):
    cli = run_trit(trit_bin, "run", str(MODEL), "Once upon a time", "-n", "48", "--seed", "7", "--raw")
    assert model.generate("Once upon a time", max_tokens=48, seed=7) == cli


def test_stream_gives_the_same_text_piece_by_piece(model):
    whole = model.generate("Lily and Ben", max_tokens=60, seed=11)
    stream = model.generate("Lily and Ben", max_tokens=60, seed=11, stream=True)
    pieces = list(stream)
    assert len(pieces) > 1
    assert "".join(pieces) == whole
    assert stream.result is not None
    assert stream.result.text == whole
    assert stream.result.seed == 11


def test_completion_reports_tokens_counts_and_stop(model):
    c = model.complete("Once upon a time", max_tokens=20, temperature=0)
    assert c.n_prompt_tokens == len(model.tokenize("Once upon a time"))
    assert c.n_generated == len(c.tokens) == 20
    assert c.stop_reason == "max_tokens"


def test_random_seed_is_reported_and_reproduces(model):
    first = model.complete("The cat", max_tokens=30)
    again = model.complete("The cat", max_tokens=30, seed=first.seed)
    assert again.tokens == first.tokens


def test_threads_do_not_change_the_tokens():
    with trit.Model(MODEL, threads=1) as one, trit.Model(MODEL, threads=3) as three:
        assert one.complete("A dog", max_tokens=40, seed=5).tokens == three.complete("A dog", max_tokens=40, seed=5).tokens


def test_prompt_as_ids_is_used_as_given(model):
    ids = model.tokenize("Once upon a time")
    assert model.generate(ids, max_tokens=30, temperature=0) == model.generate("Once upon a time", max_tokens=30,
                                                                                temperature=0)


def test_greedy_tokens_are_the_argmax_of_verify_rows(model):
    prompt = model.tokenize("Tom had a red ball")
    c = model.complete(prompt, max_tokens=25, temperature=0, stop_at_end=False)
    logits = model.verify(prompt + c.tokens[:-1])
    assert list(np.argmax(logits[len(prompt) - 1:], axis=1)) == c.tokens


def test_context_full_stops_generation(model):
    c = model.complete("Once", max_tokens=model.n_ctx + 50, temperature=0, stop_at_end=False)
    assert c.stop_reason == "context_full"
    assert c.n_prompt_tokens + c.n_generated == model.n_ctx + 1  # the last token is never fed back


def test_closing_a_stream_stops_the_generation(model):
    stream = model.generate("Once upon a time", max_tokens=400, temperature=0, stop_at_end=False, stream=True)
    read = [next(stream) for _ in range(3)]
    stream.close()
    assert stream.result is not None
    assert stream.result.stop_reason == "stopped"
    assert 3 <= stream.result.n_generated < 400  # the queue holds 64 pieces: an unread stream pauses
    assert stream.result.text.startswith("".join(read))
    assert list(stream) == []


def test_bad_options_name_the_option(model):
    with pytest.raises(trit.InvalidArgumentError, match="top_p"):
        model.generate("x", top_p=3)
    with pytest.raises(trit.InvalidArgumentError, match="max_tokens"):
        model.generate("x", max_tokens=0)
    with pytest.raises(trit.InvalidArgumentError, match="seed"):
        model.generate("x", seed=-1)
    stream = model.generate("x", temperature=-1, top_k=-5, stream=True)
    with pytest.raises(trit.InvalidArgumentError, match="top_k"):
        next(stream)


def test_an_id_outside_the_vocabulary_is_refused(model):
    with pytest.raises(trit.InvalidArgumentError, match=str(model.n_vocab + 7)):
        model.generate([1, model.n_vocab + 7], max_tokens=3)
