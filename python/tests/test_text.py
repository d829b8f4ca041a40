"""Tokens and chat templates from Python, against the trit command and the
reference Jinja implementation (jinja2)."""

from __future__ import annotations

import json

import jinja2
import pytest

import trit
from conftest import CHATML, MODEL, run_trit

TEXTS = ["Once upon a time", "", "Hello, world! 123", "  two  spaces\nand a newline", "héllo wörld ☃"]


@pytest.mark.parametrize("text", TEXTS)
def test_tokenize_matches_trit_tokenize(model, trit_bin, text):
    cli = json.loads(run_trit(trit_bin, "tokenize", str(MODEL), text, "--json"))
    assert model.tokenize(text) == cli["ids"]


def test_tokenize_flags(model):
    ids = model.tokenize("Once upon a time")
    assert ids[0] == model.bos
    assert model.tokenize("Once upon a time", add_special=False) == ids[1:]


@pytest.mark.parametrize("text", TEXTS)
def test_detokenize_inverts_tokenize(model, text):
    # The model's SentencePiece tokenizer adds a dummy-prefix space, which
    # llama_detokenize keeps (trit detokenize prints it too).
    expected = " " + text if text else ""
    assert model.detokenize(model.tokenize(text), remove_special=True) == expected


def test_detokenize_matches_trit_detokenize(model, trit_bin):
    ids = [1, 403, 407, 261, 378]
    assert model.detokenize(ids) == run_trit(trit_bin, "detokenize", str(MODEL), *map(str, ids)).rstrip("\n")


def test_token_to_piece_is_bytes(model):
    pieces = b"".join(model.token_to_piece(i) for i in model.tokenize("héllo", add_special=False))
    assert pieces.decode("utf-8").strip() == "héllo"


def test_end_of_generation(model):
    assert model.is_end_of_generation(model.eos)
    assert not model.is_end_of_generation(model.bos)


def test_bad_ids_are_named(model):
    with pytest.raises(trit.InvalidArgumentError, match="600"):
        model.detokenize([1, 600])
    with pytest.raises(trit.InvalidArgumentError):
        model.detokenize("not ids")


def test_no_chat_template_is_unsupported(model):
    assert not model.has_chat_template
    with pytest.raises(trit.UnsupportedError, match="chat template"):
        model.render_chat([{"role": "user", "content": "Hi"}])


CONVERSATION = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Tell me a story."}]


def test_render_chat_matches_jinja2(chat_model_path):
    with trit.Model(chat_model_path) as m:
        assert m.has_chat_template
        reference = jinja2.Template(CHATML).render(messages=CONVERSATION, add_generation_prompt=True)
        assert m.render_chat(CONVERSATION) == reference
        reference = jinja2.Template(CHATML).render(messages=CONVERSATION, add_generation_prompt=False)
        assert m.render_chat(CONVERSATION, add_generation_prompt=False) == reference


def test_chat_generates_from_the_rendered_conversation(chat_model_path):
    with trit.Model(chat_model_path) as m:
        rendered = m.render_chat(CONVERSATION)
        answer = m.chat(CONVERSATION, max_tokens=20, seed=3)
        assert answer == m.generate(rendered, max_tokens=20, seed=3)
        assert "".join(m.chat(CONVERSATION, max_tokens=20, seed=3, stream=True)) == answer


def test_malformed_messages_are_named(chat_model_path):
    with trit.Model(chat_model_path) as m:
        with pytest.raises(trit.InvalidArgumentError, match=r"messages\[1\]"):
            m.render_chat([{"role": "user", "content": "Hi"}, {"text": "no role"}])
