"""Typed errors of the package.

Every error the package raises on purpose derives from :class:`AnalyticError`.
The CLI maps :class:`ModelError` (and its subclasses) to exit code 2 and prints
the message, which always names the file, the key path and what is wrong.
"""

from __future__ import annotations

__all__ = [
    "AnalyticError",
    "ModelError",
    "UnboundedFeatureError",
    "UnsupportedMechanicError",
    "InfeasibleTargetError",
    "ModelWarning",
]


class AnalyticError(Exception):
    """Base class of every error raised on purpose by ``analytic``."""


class ModelError(AnalyticError, ValueError):
    """A model file is invalid.

    Parameters
    ----------
    path : str
        The model file (or the CSV it refers to).
    key : str
        Key path inside it, e.g. ``reels.base[2][17]`` (0-based indices);
        empty for a file-level problem (unreadable, not TOML).
    reason : str
        What is wrong, showing the offending value and, where there is one,
        the remedy.
    """

    def __init__(self, path: str, key: str, reason: str):
        self.path = str(path)
        self.key = key
        self.reason = reason
        where = f"{self.path}: {key}" if key else self.path
        super().__init__(f"{where}: {reason}")

    def __reduce__(self):
        # rebuilt from its three parts when it crosses a process boundary (a solve's worker process):
        # Exception's default rebuilds from the message alone, a TypeError in the parent
        return type(self), (self.path, self.key, self.reason)


class UnboundedFeatureError(ModelError):
    """A feature would never end: expected extra spins per spin >= 1.

    Raised before any solve or simulation starts, naming the feature.
    """


class UnsupportedMechanicError(AnalyticError):
    """An engine was asked for a mechanic it cannot evaluate exactly."""


class InfeasibleTargetError(AnalyticError):
    """Tuning targets cannot all be met; carries the closest result found."""

    def __init__(self, message: str, closest=None):
        super().__init__(message)
        self.closest = closest


class ModelWarning(UserWarning):
    """A model file is valid but probably not what its author meant (a paying symbol
    that can never pay, ...); the CLI prints ``warning: FILE: KEY: reason``.

    Parameters
    ----------
    path, key, reason : str
        As for :class:`ModelError`.
    """

    def __init__(self, path: str, key: str, reason: str):
        self.path, self.key, self.reason = str(path), key, reason
        super().__init__(f"{self.path}: {key}: {reason}" if key else f"{self.path}: {reason}")
