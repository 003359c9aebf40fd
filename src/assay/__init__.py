"""Assay: BAML's core in Python — compiler, BEX VM, and compile-based concolic execution."""
__version__ = "0.1.0"
BAML_VERSION = "0.23.0"

from .api import (  # noqa: E402
    ArgumentError, BamlError, BamlException, BamlPanic, BamlProgram, CompileError, SourceError, TimeLimit,
    compile, load,
    time_limit, to_plain, LlmCallError, NoLlmClient,
)

__all__ = ["load", "compile", "to_plain", "BamlPanic", "BamlError", "BamlException", "ArgumentError",
           "CompileError", "SourceError", "BamlProgram", "TimeLimit", "time_limit", "LlmCallError", "NoLlmClient",
           "__version__", "BAML_VERSION"]
