"""Validated game options: every game declares a pydantic model of its options with defaults."""

from __future__ import annotations

from typing import Any, Literal, TypeVar, get_args, get_origin

from pydantic import BaseModel, ConfigDict, ValidationError

from .errors import OptionsError


class GameOptions(BaseModel):
    """Base of every game's options: immutable, unknown keys rejected, strict types."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    @classmethod
    def allowed_values(cls) -> dict[str, list[Any]]:
        """Option name -> its allowed values, for the options that take one of a fixed set (the
        lobby's menus); by default the ``Literal`` fields. Games add sets their data defines."""
        return {name: list(get_args(info.annotation)) for name, info in cls.model_fields.items()
                if get_origin(info.annotation) is Literal}


OptionsT = TypeVar("OptionsT", bound=GameOptions)


def describe_allowed(model: type[GameOptions]) -> str:
    """A short list of option names with their defaults, for error messages."""
    parts = []
    for name, info in model.model_fields.items():
        default = repr(info.get_default(call_default_factory=True))
        if len(default) > 40:  # a tile set's contents or an engine's parameters: too long for one line
            default = default[:1] + "..." + default[-1:]
        parts.append(f"{name} (default {default})")
    return ", ".join(parts)


def validate_options(model: type[OptionsT], values: dict[str, Any] | None, game_id: str) -> OptionsT:
    """Build ``model`` from ``values`` or raise an OptionsError naming each bad field."""
    try:
        return model.model_validate(values or {})
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            where = ".".join(str(p) for p in err["loc"]) or "options"
            if err["type"] == "extra_forbidden":
                problems.append(f"unknown option {where!r}")
            else:
                problems.append(f"option {where!r}: {err['msg']} (got {err.get('input')!r})")
        raise OptionsError(
            f"{game_id}: " + "; ".join(problems) + f". Allowed options: {describe_allowed(model)}"
        ) from None


def parse_option_assignments(pairs: list[str]) -> dict[str, Any]:
    """Turn CLI ``key=value`` strings into a dict, decoding values as JSON where they parse.

    ``noise=0`` gives an int, ``tiles=a.json`` stays a string, ``thresholds=[1,2]`` a list.
    """
    import json

    values: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise OptionsError(f"option {pair!r} must look like key=value")
        try:
            values[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            values[key.strip()] = raw
    return values
