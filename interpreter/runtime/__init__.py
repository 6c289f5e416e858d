"""The game-free runtime: bodies, pools, volleys and chance primitives."""

from interpreter.runtime.bodies import ANY, Body, Pool, Shot, Volley
from interpreter.runtime.chance import (
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
from interpreter.runtime.dice import DiceSum, Exploding, Faces, Keep, Rerolled
from interpreter.runtime.keys import stable_key
from interpreter.runtime.weights import Allowance, Budget, LimitError, StateLimitError, Weights, WorkLimitError

__all__ = [
    "ANY", "Bernoulli", "Binomial", "Body", "Dice", "DiceValue", "Fire", "ForcedRollError", "Hit", "Pool", "Shot",
    "StateLimitError", "SuccessPool", "Uniform", "Volley", "merge", "stable_key",
    "Allowance", "Budget", "LimitError", "Weights", "WorkLimitError",
    "DiceSum", "Exploding", "Faces", "Keep", "Rerolled",
]
