"""The game-free runtime: bodies, pools, volleys and chance primitives."""

from fracas.interpreter.runtime.bodies import ANY, Body, Pool, Shot, Volley
from fracas.interpreter.runtime.chance import (
    Bernoulli,
    Binomial,
    Dice,
    DiceValue,
    Fire,
    ForcedRollError,
    Hit,
    SuccessPool,
    Uniform,
    merge,
)
from fracas.interpreter.runtime.dice import DiceSum, Exploding, Faces, Keep, Rerolled
from fracas.interpreter.runtime.keys import stable_key
from fracas.interpreter.runtime.weights import Allowance, Budget, LimitError, StateLimitError, Weights, WorkLimitError

__all__ = [
    "ANY", "Bernoulli", "Binomial", "Body", "Dice", "DiceValue", "Fire", "ForcedRollError", "Hit", "Pool", "Shot",
    "StateLimitError", "SuccessPool", "Uniform", "Volley", "merge", "stable_key",
    "Allowance", "Budget", "LimitError", "Weights", "WorkLimitError",
    "DiceSum", "Exploding", "Faces", "Keep", "Rerolled",
]
