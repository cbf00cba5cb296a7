"""Build the C hand evaluator; all other metadata lives in pyproject.toml."""

from __future__ import annotations

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "engine_server.game._evaluator",
            ["engine_server/game/_evaluator.c"],
            extra_compile_args=["-O3"],
        )
    ]
)
