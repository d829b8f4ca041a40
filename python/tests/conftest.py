"""Shared fixtures: the bundled model, the trit binary (an independent
frontend over the same library, for cross-checks) and the reference outputs
under tests/data/reference (llama2.c's and llama.cpp's, not trit's)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import trit

REPO = Path(__file__).resolve().parents[2]
MODEL = REPO / "models" / "stories260K.gguf"
REFERENCE = REPO / "tests" / "data" / "reference"


@pytest.fixture(scope="session")
def model():
    with trit.Model(MODEL, threads=2) as m:
        yield m


@pytest.fixture(scope="session")
def trit_bin() -> Path:
    """build/trit (or $TRIT_BIN): scripts/test.sh builds it before these tests run."""
    path = Path(os.environ.get("TRIT_BIN", REPO / "build" / "trit"))
    if not path.is_file():
        pytest.fail(f"{path}: the trit binary is missing; build it first (scripts/test.sh does)")
    return path


def run_trit(trit_bin: Path, *args: str) -> str:
    return subprocess.run([str(trit_bin), *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="session")
def greedy_rows() -> dict:
    return json.loads((REFERENCE / "stories260K-greedy200-rows.json").read_text())


@pytest.fixture(scope="session")
def continuations() -> list:
    return json.loads((REFERENCE / "stories260K-continuations.json").read_text())


@pytest.fixture(scope="session")
def chat_model_path(tmp_path_factory) -> Path:
    """The bundled model with a ChatML template, written by llama.cpp's own
    gguf-new-metadata (from the gguf package in the test environment)."""
    tool = shutil.which("gguf-new-metadata", path=str(Path(sys.executable).parent)) or shutil.which("gguf-new-metadata")
    if tool is None:
        pytest.fail("gguf-new-metadata (the gguf package, tests/python/requirements.txt) is not installed")
    out = tmp_path_factory.mktemp("chat") / "stories-chat.gguf"
    subprocess.run([tool, "--chat-template", CHATML, str(MODEL), str(out)], check=True, capture_output=True)
    return out


CHATML = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)
