"""Mistakes on the command line end in one line on stderr, exit 2, whatever the terminal width.

Click and typer answer a usage mistake (an unknown option, command or game, a missing argument,
a bad value, an extra argument) with a usage line, a hint and a boxed message wrapped to the
terminal: five lines or more, not the one line every other pisa3d mistake gets. The root
command is a :class:`RootGroup`, whose ``main`` catches those errors for every command below it
(the sub-commands run inside it) and prints :func:`usage_error_line` instead: what was wrong,
then what is allowed (the options, the commands or games, the usage) and where the help is.

The groups and commands also show a flag (``--force``) without a value type in their help: it
takes none, and typer's ``<bool>`` said it did.
"""

from __future__ import annotations

import difflib
import re
import sys
from collections.abc import Sequence
from typing import Any

import typer
from typer.core import TyperGroup

Context = Any  # typer's own click copy (typer._click): told apart by name, not by isinstance
UsageError: type[Exception] = typer.BadParameter.__mro__[1]  # click's UsageError, as typer ships it
VERSION_FLAGS = ("--version", "-V")


def _flat(text: str) -> str:
    return " ".join(text.split())


def _help_hint(ctx: Context | None) -> str:
    return f"see '{ctx.command_path} -h'" if ctx is not None else "see 'pisa3d -h'"


def _usage(ctx: Context) -> str:
    usage = _flat(ctx.get_usage()).removeprefix("Usage: ")
    return re.sub(r"\{(\w+)\}", lambda m: m.group(1).upper(), usage)  # typer's {file}: FILE as in the help


def _long_options(ctx: Context) -> list[str]:
    return [max(p.opts, key=len) for p in ctx.command.get_params(ctx)
            if getattr(p, "param_type_name", "") == "option" and not getattr(p, "hidden", False)]


def _first_sentence(text: str | None) -> str:
    return re.split(r"\.\s+(?=[A-Z])", _flat(text or ""))[0].rstrip(".")


def usage_error_line(exc: Exception) -> str:
    """The one line (without the ``pisa3d: error:`` prefix) that replaces click's boxed usage error."""
    ctx = getattr(exc, "ctx", None)
    where = ctx.command_path if ctx is not None else "pisa3d"
    kind = type(exc).__name__
    if kind == "NoSuchOption" and ctx is not None:
        close = list(getattr(exc, "possibilities", None) or [])
        guess = f" (did you mean {' or '.join(close)}?)" if close else ""
        return (f"{where}: no option {exc.option_name}{guess}; "  # type: ignore[attr-defined]
                f"the options are {', '.join(_long_options(ctx))}")
    param = getattr(exc, "param", None)
    if kind == "MissingParameter" and param is not None and ctx is not None:
        if getattr(param, "param_type_name", "") == "argument":
            name = (param.metavar or param.name or "").upper()
            about = _first_sentence(getattr(param, "help", None))
            return f"{where}: missing {name}" + (f" ({about})" if about else "") + f"; usage: {_usage(ctx)}"
        return f"{where}: {max(param.opts, key=len)} is required; {_help_hint(ctx)}"
    message = _flat(exc.format_message()).rstrip(".")  # type: ignore[attr-defined]
    if kind == "BadParameter" or ctx is None or getattr(exc, "says_what_is_allowed", False):
        return f"{where}: {message}; {_help_hint(ctx)}"
    return f"{where}: {message[:1].lower()}{message[1:]}; usage: {_usage(ctx)} ({_help_hint(ctx)})"


def _hide_flag_types(ctx: Context, command: Any) -> None:
    """A flag takes no value: show no type for it in the help (typer shows ``<bool>``)."""
    for param in command.get_params(ctx):
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""


class FlagHelpMixin:
    """Help without a value type for flags (see the module's note)."""

    def format_help(self, ctx: Context, formatter: Any) -> None:
        _hide_flag_types(ctx, self)
        super().format_help(ctx, formatter)  # type: ignore[misc]


def refusal(message: str, ctx: Context) -> Exception:
    """A usage error whose message already says what is allowed (no usage line appended)."""
    exc = UsageError(message, ctx)
    exc.says_what_is_allowed = True  # type: ignore[attr-defined]
    return exc


class CommandGroup(FlagHelpMixin, TyperGroup):
    """A group whose unknown sub-command is refused naming the ones there are (``noun`` says what
    they are: commands, or games for ``pisa3d play``)."""

    noun = "command"

    def resolve_command(self, ctx: Context, args: list[str]) -> tuple[str | None, Any, list[str]]:
        name = args[0]
        command = self.get_command(ctx, name)
        if command is None and not ctx.resilient_parsing:
            if name.startswith("-"):
                self.parse_args(ctx, args)  # an unknown option: refused as such
            known = list(self.list_commands(ctx))
            close = difflib.get_close_matches(name, known, n=1)
            guess = f" (did you mean {close[0]}?)" if close else ""
            raise refusal(f"no {self.noun} {name!r}{guess}; the {self.noun}s are {', '.join(known)}", ctx)
        return name if command is not None else None, command, args[1:]


class RootGroup(CommandGroup):
    """The ``pisa3d`` command: every usage mistake below it in one line (see the module's note),
    and ``--version`` alone (``pisa3d --version extra`` is refused, not answered)."""

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        leading = []
        for arg in args:  # the root's own options come before the command's name
            if not arg.startswith("-"):
                break
            leading.append(arg)
        if any(arg in VERSION_FLAGS for arg in leading):
            others = [arg for arg in args if arg not in VERSION_FLAGS]
            if others:
                raise refusal(f"--version takes nothing else (got {' '.join(others)}); "
                              "run 'pisa3d --version' alone", ctx)
        return super().parse_args(ctx, args)

    def invoke(self, ctx: Context) -> Any:
        """Ctrl-C that no command handled itself is said in one line (typer would exit 130 in
        silence); a command that handled it (saved a record, named the resume) has said so."""
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            print("pisa3d: interrupted", file=sys.stderr)
            raise typer.Exit(130) from None

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        try:
            # named pisa3d however it was started (python -m pisa3d, a test), as in every message
            result = super().main(args, prog_name or "pisa3d", complete_var, standalone_mode=False, **extra)
        except UsageError as exc:
            if not standalone_mode:
                raise
            if type(exc).__name__ != "NoArgsIsHelpError":  # the help itself was printed already
                print(f"pisa3d: error: {usage_error_line(exc)}", file=sys.stderr)
            sys.exit(exc.exit_code)  # type: ignore[attr-defined]
        except typer.TyperException as exc:  # click's other errors (a file it could not open)
            if not standalone_mode:
                raise
            print(f"pisa3d: error: {_flat(exc.format_message())}", file=sys.stderr)
            sys.exit(exc.exit_code)
        except typer.Abort:
            if not standalone_mode:
                raise
            print("pisa3d: aborted", file=sys.stderr)
            sys.exit(1)
        if not standalone_mode:
            return result
        sys.exit(result if isinstance(result, int) else 0)
