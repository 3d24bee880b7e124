"""Plain metavars in ``kgb --help`` (fresh user 44): typer 0.29's plain layout wrote a required argument ``{DIRECTORY}``
in the usage line, ``DIRECTORY <path>`` and ``RUN <list[Path]>`` in the argument list, and every option that takes a
value as ``--tier <str>`` or ``--jobs <int range>``, even where the command gave ``metavar=``.

:class:`PlainHelpGroup` is the ``kgb`` app's group class (``typer.Typer(cls=...)``, typer's own hook). When typer
builds the commands it gives every option that takes a value and has no ``metavar=`` the metavar argparse would
(``--case-timeout CASE_TIMEOUT``; ``PATH`` for a path), and writes every argument by its metavar alone:
``DIRECTORY`` (required), ``[DIR]`` (optional), ``RUN...`` (several), both in the usage line and in the list.
Ranges, defaults and choices are still written in each help text's ``[default: ...]`` part, as before.
"""
from __future__ import annotations

from typing import Any

import click
from typer.core import TyperArgument, TyperGroup, TyperOption


def option_metavar(opt: click.Option) -> str:
    """``PATH`` for an option that takes a path; otherwise the metavar argparse would give ``opt``: its first long
    name, without dashes, upper-cased, ``-`` as ``_`` (``--case-timeout CASE_TIMEOUT``)."""
    desc = getattr(opt, "type_descriptor", None)
    if desc is not None and getattr(desc, "is_path", False):
        return "PATH"
    longs = [o for o in opt.opts if o.startswith("--")] or list(opt.opts)
    return longs[0].lstrip("-").replace("-", "_").upper()


def _plain_argument(arg: TyperArgument) -> None:
    """Write ``arg`` by its metavar (or name, upper-cased) only: no type beside it, no braces around it."""
    name = arg.metavar or (arg.name or "").upper()
    several = arg.nargs != 1
    usage = (name if arg.required else f"[{name}]") + ("..." if several else "")
    listed = name + ("..." if several else "")
    # typer 0.29 has no per-argument hook for these two texts: they are set on this instance only
    arg._usage_display_name = lambda: usage  # type: ignore[method-assign]
    arg._rich_display_name = lambda: listed  # type: ignore[method-assign]
    arg.display_type_rich = lambda ctx: None  # type: ignore[method-assign]


def plain_metavars(cmd: click.Command) -> None:
    """Give ``cmd``'s parameters plain metavars (see the module's docstring)."""
    for p in cmd.params:
        if isinstance(p, TyperOption) and p.metavar is None and not p.is_flag and not p.count:
            p.metavar = option_metavar(p)
        elif isinstance(p, TyperArgument):
            _plain_argument(p)


class PlainHelpGroup(TyperGroup):
    """The ``kgb`` group: typer's, with plain metavars in every command's help (:func:`plain_metavars`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for cmd in self.commands.values():
            plain_metavars(cmd)
