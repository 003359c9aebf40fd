"""The type checker (see `checker`)."""
from .checker import check
from .common import is_cleanup_shape

__all__ = ["check", "is_cleanup_shape"]
