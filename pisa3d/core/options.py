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


def _range_text(model: type[GameOptions], name: str) -> str:
    """'; allowed 1 to 4' for a field with bounds, so an out-of-range value learns both ends."""
    info = model.model_fields.get(name)
    if info is None:
        return ""
    low = high = None
    for bound in info.metadata:
        if getattr(bound, "ge", None) is not None:
            low = f"{bound.ge}"
        if getattr(bound, "gt", None) is not None:
            low = f"above {bound.gt}"
        if getattr(bound, "le", None) is not None:
            high = f"{bound.le}"
        if getattr(bound, "lt", None) is not None:
            high = f"below {bound.lt}"
    if low is None and high is None:
        return ""
    if high is None:
        return f"; allowed: {low} or more" if not low.startswith("above") else f"; allowed: {low}"
    if low is None:
        return f"; allowed: up to {high}"
    return f"; allowed: {low} to {high}"


def validate_options(model: type[OptionsT], values: dict[str, Any] | None, game_id: str) -> OptionsT:
    """Build ``model`` from ``values`` or raise an OptionsError naming each bad field."""
    try:
        return model.model_validate(values or {})
    except ValidationError as exc:
        problems, unknown = [], False
        for err in exc.errors():
            where = ".".join(str(p) for p in err["loc"])
            if err["type"] == "extra_forbidden":
                problems.append(f"unknown option {where!r}")
                unknown = True
            elif not where:  # a rule across several options: its message names them
                problems.append(str(err["msg"]).removeprefix("Value error, "))
            else:
                problems.append(f"option {where!r}: {err['msg']} (got {err.get('input')!r}{_range_text(model, where)})")
        # The list of every option helps with a misspelt name; after a bad value it only buries it.
        allowed = f". Allowed options: {describe_allowed(model)}" if unknown else ""
        raise OptionsError(f"{game_id}: " + "; ".join(problems) + allowed) from None


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
