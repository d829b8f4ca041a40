"""trit: run language models on this machine, from Python.

The package is a thin layer over trit's C library (libtrit.so, shipped inside
it): the same forward pass, tokenizer, chat templates and sampler as the
``trit`` command, so the same request gives the same tokens.

    import trit
    with trit.Model("models/stories260K.gguf") as model:
        print(model.generate("Once upon a time", max_tokens=40, temperature=0))
        for piece in model.generate("Once upon a time", stream=True):
            print(piece, end="", flush=True)

Every call releases the GIL while it computes; one model serves several
Python threads at once. Failures raise the exceptions of :mod:`trit` (all
subclasses of :class:`trit.Error`) with the library's message. See
docs/PYTHON.md.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, Iterator, List, Literal, Mapping, Optional, Sequence, Union, cast, overload

import numpy as np

from . import _trit
from ._errors import (
    BufferTooSmallError,
    CorruptError,
    Error,
    InternalError,
    InvalidArgumentError,
    IoError,
    NotFoundError,
    OutOfMemoryError,
    UnsupportedError,
)

__version__ = "0.1.0"
ABI_VERSION: int = _trit.ABI_VERSION

__all__ = [
    "ABI_VERSION",
    "BufferTooSmallError",
    "Completion",
    "CorruptError",
    "Error",
    "InternalError",
    "InvalidArgumentError",
    "IoError",
    "Message",
    "Model",
    "NotFoundError",
    "OutOfMemoryError",
    "TokenStream",
    "UnsupportedError",
    "library_version",
]

if _trit.abi_version() != _trit.ABI_VERSION:  # a libtrit.so from elsewhere on the loader's path
    raise ImportError(f"trit: the module was built for ABI {_trit.ABI_VERSION}, "
                      f"the library loaded is ABI {_trit.abi_version()}")

#: A chat message: ``{"role": "user", "content": "Hi"}`` (other keys are ignored).
Message = Mapping[str, str]
Prompt = Union[str, Sequence[int]]
StopReason = Literal["max_tokens", "end_of_generation", "stopped", "context_full"]
_STOP_REASONS: tuple[StopReason, ...] = ("max_tokens", "end_of_generation", "stopped", "context_full")


def library_version() -> str:
    """The C library's version: ``"0.1.0 (commit 1ed3e38a0b2c)"``."""
    return _trit.library_version()


@dataclass(frozen=True)
class Completion:
    """A finished generation.

    ``text`` is the generated text (the prompt not included); ``tokens`` the
    generated ids (an end-of-generation token not included); ``stop_reason``
    one of ``"max_tokens"``, ``"end_of_generation"``, ``"stopped"`` (the
    stream was closed) or ``"context_full"``; ``seed`` the seed the sampler
    used (the drawn one when none was given).
    """

    text: str
    tokens: List[int] = field(repr=False)
    stop_reason: StopReason
    n_prompt_tokens: int
    n_generated: int
    seed: int


def _completion(text: str, summary: _trit.Summary) -> Completion:
    return Completion(text=text, tokens=list(summary.tokens), stop_reason=_STOP_REASONS[summary.stop],
                      n_prompt_tokens=summary.n_prompt_tokens, n_generated=summary.n_generated, seed=summary.seed)


class TokenStream(Iterator[str]):
    """The text of a generation as it is sampled, piece by piece (what
    ``Model.generate(..., stream=True)`` returns).

    Generation runs on a thread of its own from the moment the stream is
    made; iterating waits (without the GIL) for the next piece. A piece may
    be empty of characters for a while: bytes of an unfinished UTF-8
    character are held until it completes, so every piece is whole text.
    A bad option or prompt raises at the first ``next()``. ``close()`` (or
    leaving a ``with`` block, or dropping the stream) stops the generation at
    its next token. After the last piece, ``result`` holds the
    :class:`Completion` (its text is everything the stream gave).
    """

    def __init__(self, native: _trit.Stream) -> None:
        self._native: Optional[_trit.Stream] = native
        self._pieces: List[str] = []
        self.result: Optional[Completion] = None

    def __iter__(self) -> "TokenStream":
        return self

    def __next__(self) -> str:
        if self._native is None:
            raise StopIteration
        piece = self._native.next()
        if piece is None:
            summary = self._native.result()
            if summary is not None:
                self.result = _completion("".join(self._pieces), summary)
            self._native = None
            raise StopIteration
        text = piece.decode("utf-8", "replace")
        self._pieces.append(text)
        return text

    def close(self) -> None:
        """Stops the generation (at its next token) and waits for it to end.
        ``result`` then holds what it made, including text not yet read."""
        if self._native is not None:
            rest = self._native.close()
            if rest:
                self._pieces.append(rest.decode("utf-8", "replace"))
            summary = self._native.result()
            if summary is not None:
                self.result = _completion("".join(self._pieces), summary)
            self._native = None

    def __enter__(self) -> "TokenStream":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _messages(messages: Iterable[Message]) -> List[tuple[str, str]]:
    out = []
    for i, m in enumerate(messages):
        try:
            out.append((str(m["role"]), str(m["content"])))
        except (KeyError, TypeError):
            raise InvalidArgumentError(f"messages[{i}]: expected a mapping with 'role' and 'content', got {m!r}") from None
    return out


class Model:
    """A loaded model: a GGUF file, or the name of a model in trit's store.

    ``Model(path_or_name, engine=None, threads=0, n_ctx=0)``: ``engine`` pins
    an engine by name or alias (``trit backends`` lists them; None takes the
    best available); ``threads`` per call (0: one per hardware thread; the
    results never depend on it); ``n_ctx`` tokens of context per call (0: the
    model's trained length). The weights are memory-mapped; the model is
    immutable, and every method may be called from several threads at once.
    Use it as a context manager, or call :meth:`close`, to free it promptly.

    Raises :class:`NotFoundError` for a missing file or name,
    :class:`CorruptError` for a damaged file, :class:`InvalidArgumentError`
    for an engine that cannot run it, :class:`UnsupportedError` for a format
    beyond this library.
    """

    def __init__(self, path_or_name: Union[str, "os.PathLike[str]"], *, engine: Optional[str] = None,
                 threads: int = 0, n_ctx: int = 0) -> None:
        self._native = _trit.Model(os.fspath(path_or_name), engine, int(threads), int(n_ctx))
        info = self._native.info()
        self.path: str = info["path"]                      #: the GGUF file loaded
        self.engine: str = info["engine"]                  #: the engine that runs it
        self.architecture: str = info["architecture"]      #: general.architecture ("llama", "gemma3", ...)
        self.n_vocab: int = info["n_vocab"]
        self.n_ctx: int = info["n_ctx"]                    #: the context each call gets
        self.n_ctx_train: int = info["n_ctx_train"]        #: the context length the model was trained with
        self.n_embd: int = info["n_embd"]
        self.n_layer: int = info["n_layer"]
        self.bos: Optional[int] = info["bos"]              #: the BOS id, or None
        self.eos: Optional[int] = info["eos"]              #: the EOS id, or None
        self.has_chat_template: bool = info["has_chat_template"]
        #: The file's scalar metadata as text (arrays such as the vocabulary left out).
        self.metadata: Dict[str, str] = info["metadata"]

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"engine={self.engine!r}"
        return f"trit.Model({self.path!r}, {self.architecture}, {state})"

    def __enter__(self) -> "Model":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        return self._native.closed

    def close(self) -> None:
        """Frees the model. Running streams stop at their next token; calls
        running on other threads finish first. Later calls raise ValueError."""
        self._native.close()

    # ---- text -------------------------------------------------------------

    def tokenize(self, text: str, *, add_special: bool = True, parse_special: bool = False) -> List[int]:
        """Text to token ids. ``add_special`` adds BOS (and EOS) as the model's
        metadata says; ``parse_special`` reads control tokens such as
        ``<|im_start|>`` in the text as themselves."""
        flags = (_trit.TOKENIZE_ADD_SPECIAL if add_special else 0) | (_trit.TOKENIZE_PARSE_SPECIAL if parse_special else 0)
        return self._native.tokenize(text, flags)

    def detokenize(self, ids: Sequence[int], *, remove_special: bool = False, render_special: bool = False) -> str:
        """Token ids to text, as llama.cpp's llama_detokenize. ``remove_special``
        drops a leading BOS and trailing EOS; ``render_special`` writes control
        tokens' text. Bytes that are not UTF-8 become U+FFFD."""
        flags = ((_trit.DETOKENIZE_REMOVE_SPECIAL if remove_special else 0)
                 | (_trit.DETOKENIZE_RENDER_SPECIAL if render_special else 0))
        return self._native.detokenize(_ids(ids), flags).decode("utf-8", "replace")

    def token_to_piece(self, token: int, *, render_special: bool = False) -> bytes:
        """The bytes one token stands for (may be part of a UTF-8 character)."""
        return self._native.token_to_piece(int(token), _trit.DETOKENIZE_RENDER_SPECIAL if render_special else 0)

    def is_end_of_generation(self, token: int) -> bool:
        """True when ``token`` ends a generation (EOS, end of turn, ...)."""
        return self._native.is_end_of_generation(int(token))

    def render_chat(self, messages: Iterable[Message], *, add_generation_prompt: bool = True) -> str:
        """A conversation in the model's chat template, as Hugging Face's
        apply_chat_template renders it. Raises :class:`UnsupportedError` when
        the model has no template trit can run."""
        return self._native.render_chat(_messages(messages), add_generation_prompt)

    # ---- generation -------------------------------------------------------

    @overload
    def generate(self, prompt: Prompt, *, stream: Literal[False] = ..., max_tokens: int = ..., temperature: float = ...,
                 top_k: int = ..., top_p: float = ..., min_p: float = ..., repeat_penalty: float = ...,
                 frequency_penalty: float = ..., presence_penalty: float = ..., penalty_last_n: int = ...,
                 seed: Optional[int] = ..., stop_at_end: bool = ..., add_special: bool = ...,
                 parse_special: bool = ...) -> str: ...
    @overload
    def generate(self, prompt: Prompt, *, stream: Literal[True], max_tokens: int = ..., temperature: float = ...,
                 top_k: int = ..., top_p: float = ..., min_p: float = ..., repeat_penalty: float = ...,
                 frequency_penalty: float = ..., presence_penalty: float = ..., penalty_last_n: int = ...,
                 seed: Optional[int] = ..., stop_at_end: bool = ..., add_special: bool = ...,
                 parse_special: bool = ...) -> TokenStream: ...

    def generate(self, prompt: Prompt, *, stream: bool = False, max_tokens: int = 256, temperature: float = 0.8,
                 top_k: int = 40, top_p: float = 0.95, min_p: float = 0.05, repeat_penalty: float = 1.0,
                 frequency_penalty: float = 0.0, presence_penalty: float = 0.0, penalty_last_n: int = 64,
                 seed: Optional[int] = None, stop_at_end: bool = True, add_special: bool = True,
                 parse_special: bool = True) -> Union[str, TokenStream]:
        """Generates from ``prompt`` (text, or token ids used exactly as given)
        on a fresh context, and returns the text (the prompt not included), or
        with ``stream=True`` a :class:`TokenStream` of it as it comes.

        Sampling is trit run's (llama.cpp's order): penalties, then
        ``temperature <= 0`` is greedy, else top_k (0: all), softmax, top_p,
        min_p and one draw seeded by ``seed`` (None: a random one, reported in
        :class:`Completion`). The same seed, options and prompt give the same
        tokens, whatever the thread count. ``stop_at_end`` stops at the
        model's end-of-generation token; a full context stops it too. Text
        prompts are tokenized with BOS added (``add_special``) and control
        tokens recognised (``parse_special``).
        """
        options = _options(max_tokens=max_tokens, temperature=temperature, top_k=top_k, top_p=top_p, min_p=min_p,
                           repeat_penalty=repeat_penalty, frequency_penalty=frequency_penalty,
                           presence_penalty=presence_penalty, penalty_last_n=penalty_last_n, seed=seed,
                           stop_at_end=stop_at_end, add_special=add_special, parse_special=parse_special)
        native_prompt = _prompt(prompt)
        if stream:
            return TokenStream(self._native.stream(native_prompt, options))
        return self._native.generate(native_prompt, options).decode("utf-8", "replace")

    def complete(self, prompt: Prompt, **sampling: Any) -> Completion:
        """As :meth:`generate` (the same keyword arguments, no ``stream``), with
        the whole :class:`Completion`: text, token ids, stop reason, counts, seed."""
        stream = self.generate(prompt, stream=True, **sampling)
        for _ in stream:
            pass
        assert stream.result is not None  # a failed generation raised while iterating
        return stream.result

    @overload
    def chat(self, messages: Iterable[Message], *, stream: Literal[False] = ..., **sampling: Any) -> str: ...
    @overload
    def chat(self, messages: Iterable[Message], *, stream: Literal[True], **sampling: Any) -> TokenStream: ...

    def chat(self, messages: Iterable[Message], *, stream: bool = False, **sampling: Any) -> Union[str, TokenStream]:
        """The assistant's answer to a conversation: the messages rendered with
        the model's chat template (:meth:`render_chat`), then
        :meth:`generate` with the same keyword arguments."""
        rendered = self.render_chat(messages)
        if stream:
            return self.generate(rendered, stream=True, **sampling)
        return self.generate(rendered, stream=False, **sampling)

    # ---- logits and embeddings --------------------------------------------

    def verify(self, ids: Sequence[int]) -> np.ndarray:
        """Runs ``ids`` (exactly as given, no BOS added) through the model in
        one pass and returns every row's logits: a float32 array of shape
        ``(len(ids), n_vocab)``, row i predicting the token after ``ids[:i+1]``.
        Each row is bit-identical to what token-by-token decoding computes."""
        return self._native.verify(_id_array(ids), self.n_vocab)

    def embed(self, texts: Union[str, Sequence[str]]) -> np.ndarray:
        """Embeddings of one text (a 1-D float32 array) or of several (2-D, one
        row each). This library does not compute embeddings yet: it raises
        :class:`UnsupportedError` with the library's message."""
        if isinstance(texts, str):
            return cast(np.ndarray, self._native.embed([texts])[0])
        return self._native.embed([str(t) for t in texts])


def _ids(ids: Sequence[int]) -> List[int]:
    if isinstance(ids, (str, bytes)):
        raise InvalidArgumentError(f"expected a sequence of token ids, got {type(ids).__name__}")
    return [int(i) for i in ids]


def _id_array(ids: Sequence[int]) -> np.ndarray:
    array = np.asarray(ids)
    if array.ndim != 1 or not (array.size == 0 or np.issubdtype(array.dtype, np.integer)):
        raise InvalidArgumentError(f"expected a 1-D sequence of token ids, got shape {array.shape} of {array.dtype}")
    if array.size and (array.min() < np.iinfo(np.int32).min or array.max() > np.iinfo(np.int32).max):
        raise InvalidArgumentError("token ids must fit in 32 bits")
    return np.ascontiguousarray(array, dtype=np.int32)


def _prompt(prompt: Prompt) -> Union[str, List[int]]:
    return prompt if isinstance(prompt, str) else _ids(prompt)


def _options(*, max_tokens: int, temperature: float, top_k: int, top_p: float, min_p: float, repeat_penalty: float,
             frequency_penalty: float, presence_penalty: float, penalty_last_n: int, seed: Optional[int],
             stop_at_end: bool, add_special: bool, parse_special: bool) -> _trit.GenerateOptions:
    """The C API's trit_generate_options from generate()'s keyword arguments
    (their defaults are generate()'s, the C API's own)."""
    o = _trit.GenerateOptions()
    o.max_tokens = int(max_tokens)
    o.temperature = float(temperature)
    o.top_k = int(top_k)
    o.top_p = float(top_p)
    o.min_p = float(min_p)
    o.repeat_penalty = float(repeat_penalty)
    o.frequency_penalty = float(frequency_penalty)
    o.presence_penalty = float(presence_penalty)
    o.penalty_last_n = int(penalty_last_n)
    if seed is None:
        o.seed = _trit.SEED_RANDOM
    elif not 0 <= int(seed) < _trit.SEED_RANDOM:
        raise InvalidArgumentError(f"seed {seed}: expected 0 <= seed < 2**64 - 1, or None for a random one")
    else:
        o.seed = int(seed)
    o.stop_at_end_of_generation = 1 if stop_at_end else 0
    o.tokenize_flags = ((_trit.TOKENIZE_ADD_SPECIAL if add_special else 0)
                        | (_trit.TOKENIZE_PARSE_SPECIAL if parse_special else 0))
    return o
