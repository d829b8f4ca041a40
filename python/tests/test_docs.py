"""Every ```python block of docs/PYTHON.md runs, from the repository root, as
a user would paste it (so the documented examples stay true)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from conftest import REPO

BLOCKS = re.findall(r"```python\n(.*?)```", (REPO / "docs" / "PYTHON.md").read_text(), re.S)


def test_the_page_has_examples():
    assert len(BLOCKS) >= 8


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_example_runs(index):
    done = subprocess.run([sys.executable, "-c", BLOCKS[index]], cwd=REPO, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": ""}, timeout=300)
    assert done.returncode == 0, f"example {index} failed:\n{BLOCKS[index]}\n--- stderr ---\n{done.stderr}"
