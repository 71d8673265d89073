"""Options that take one value are given once: ``--record a --record b`` is refused, not read as b.

Click keeps the last of repeated options silently, so a typo'd command line (a second --record
pasted after the first) would write one file and drop the other without a word. Every pisa3d
command is built with :class:`OnceCommand`, which looks at the order click parsed the options in
and refuses the second occurrence of a single-value option. Flags (``-q -q``) and repeatable
options (``--agent``, ``--set``, ``--human``) are left alone.
"""

from __future__ import annotations

import difflib
from typing import Any

from typer.core import TyperCommand

from ..core.errors import OptionsError
from .numbers import check_numbers
from .usage import FlagHelpMixin

# Typer ships its own copy of click (typer._click): parameters are told apart by their declared
# kind, not by isinstance against the click package.
Param = Any


def _is_option(param: Param) -> bool:
    return getattr(param, "param_type_name", "") == "option"


def _single_valued(param: Param) -> bool:
    return (_is_option(param) and not param.multiple and not param.count
            and not param.is_flag and param.nargs == 1)


def _longest_flag(param: Param) -> str:
    return max(param.opts, key=len)


def refuse_repeats(order: list[Param], params: list[Param]) -> None:
    """Raise OptionsError naming the first single-value option that appears twice in ``order``
    (the options as parsed); ``params`` (the command's) name the repeatable ones in the message."""
    seen: set[str | None] = set()
    for param in order:
        if not _single_valued(param):
            continue
        if param.name in seen:
            repeatable = [_longest_flag(p) for p in params if _is_option(p) and p.multiple]
            hint = f" (repeatable: {', '.join(repeatable)})" if repeatable else ""
            raise OptionsError(f"{_longest_flag(param)} is given twice; it takes one value{hint}")
        seen.add(param.name)


def suggest_options(typed: str, params: list[Param]) -> list[str]:
    """The long options close to a mistyped one, compared without their dashes: click compares
    them with the dashes, whose shared '--' makes '--bogus' look like '--gui'."""
    names = {opt[2:]: opt for p in params if _is_option(p) for opt in [*p.opts, *p.secondary_opts]
             if opt.startswith("--")}
    names.setdefault("help", "--help")
    close = difflib.get_close_matches(typed.lstrip("-").split("=")[0], list(names), n=3, cutoff=0.6)
    return [names[name] for name in close]


class OnceCommand(FlagHelpMixin, TyperCommand):
    """A typer command that refuses a repeated single-value option (see the module's note) and a
    number out of its declared range (numbers.py), and shows flags without a value type."""

    def make_parser(self, ctx: Any) -> Any:
        parser = super().make_parser(ctx)
        parse = parser.parse_args

        def parse_args(args: list[str]) -> Any:
            try:
                opts, rest, order = parse(args=args)
            except Exception as exc:
                if getattr(exc, "ctx", False) is None:  # the parser's own errors name no command
                    exc.ctx, exc.cmd = ctx, self  # type: ignore[attr-defined]
                if type(exc).__name__ == "NoSuchOption":  # typer's own click copy: told apart by name
                    exc.possibilities = suggest_options(exc.option_name, self.params)  # type: ignore[attr-defined]
                raise
            if not ctx.resilient_parsing:  # shell completion parses half-typed lines
                refuse_repeats(order, self.params)
                check_numbers(opts, self.params)
            return opts, rest, order

        parser.parse_args = parse_args
        return parser
