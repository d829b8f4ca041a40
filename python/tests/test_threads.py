"""One model, several Python threads: the calls run at once (the GIL is
released while the library computes) and give what they give alone."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

import trit
from conftest import MODEL

PROMPTS = ["Once upon a time", "Lily and Ben", "The dog", "A big tree", "Sam was sad"]


def test_concurrent_generations_equal_sequential_ones(model):
    alone = [model.complete(p, max_tokens=40, seed=i).tokens for i, p in enumerate(PROMPTS)]
    with ThreadPoolExecutor(max_workers=len(PROMPTS)) as pool:
        together = list(pool.map(lambda a: model.complete(a[1], max_tokens=40, seed=a[0]).tokens, enumerate(PROMPTS)))
    assert together == alone


def test_concurrent_verify_and_streams(model):
    ids = model.tokenize("Once upon a time there was a girl")
    reference = model.verify(ids)
    streams = [model.generate(p, max_tokens=30, temperature=0, stream=True) for p in PROMPTS]
    with ThreadPoolExecutor(max_workers=4) as pool:
        rows = list(pool.map(lambda _: model.verify(ids), range(8)))
    assert all(np.array_equal(r, reference) for r in rows)
    texts = ["".join(s) for s in streams]
    assert texts == [model.generate(p, max_tokens=30, temperature=0) for p in PROMPTS]


def test_closing_the_model_stops_its_streams():
    m = trit.Model(MODEL)
    stream = m.generate("Once upon a time", max_tokens=400, temperature=0, stop_at_end=False, stream=True)
    next(stream)
    m.close()  # the stream stops at its next token; close waits for it
    assert m.closed
    rest = list(stream)  # what it had queued
    assert len(rest) < 400
