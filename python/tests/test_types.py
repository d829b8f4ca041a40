"""The package's type hints hold: mypy --strict on the installed package
(its Python code and the stub nanobind generated for the native module), and
on a small program using the API as docs/PYTHON.md shows."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import trit

USER_PROGRAM = '''
import numpy as np
import trit

def run(path: str) -> None:
    with trit.Model(path, threads=2) as model:
        text: str = model.generate("Once", max_tokens=4, temperature=0)
        stream: trit.TokenStream = model.generate("Once", max_tokens=4, stream=True)
        pieces: list[str] = list(stream)
        done: trit.Completion | None = stream.result
        ids: list[int] = model.tokenize(text)
        logits: np.ndarray = model.verify(ids)
        answer: str = model.chat([{"role": "user", "content": "Hi"}], max_tokens=4)
        print(text, pieces, done, logits.shape, answer)
'''


def test_mypy_strict_on_the_package_and_a_user_program(tmp_path: Path) -> None:
    package = Path(trit.__file__).parent
    assert (package / "py.typed").is_file() and (package / "_trit.pyi").is_file()
    program = tmp_path / "user.py"
    program.write_text(USER_PROGRAM)
    for target in (["-p", "trit"], [str(program)]):
        done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", *target],
                              capture_output=True, text=True, cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
