"""The game model: immutable dataclasses and the TOML model-file loader.

>>> from analytic.model import load_model, Game   # doctest: +SKIP
"""

from analytic.model.game import (  # noqa: F401  (game first: loader imports it)
    ROLES,
    BetMode,
    FeatureSpec,
    Game,
    ScatterPay,
    Symbol,
    Trigger,
    WinCap,
    frozen_mapping,
)
from analytic.model.loader import load_model, load_model_text  # noqa: F401

__all__ = [
    "ROLES",
    "Symbol",
    "ScatterPay",
    "Trigger",
    "FeatureSpec",
    "BetMode",
    "WinCap",
    "Game",
    "frozen_mapping",
    "load_model",
    "load_model_text",
]
