"""A training run's options: a paper's preset, a TOML file and ``--set KEY=VALUE``, read bounded and typed.

``sumito train`` (:mod:`sumito.cli.train`) reads them from its command line; a config file is at most 64 KiB, and
every value is checked against :class:`~sumito.learn.training.TrainingConfig`'s field before the run starts."""

from __future__ import annotations

import argparse
import dataclasses
import re
import tomllib
from typing import Any

from sumito.defaults import METHOD_PRESETS
from sumito.fileio import read_file_bounded, shown_path
from sumito.learn.training import TrainingConfig, TrainingError

FIELDS = {f.name: f for f in dataclasses.fields(TrainingConfig)}


#: the largest training config file read
MAX_CONFIG_BYTES = 64 * 1024
#: the largest whole number an option takes from a config file or ``--set`` (each option's own bound, checked by
#: TrainingConfig, is smaller; this one keeps a 4,000-digit number from reaching it)
MAX_OPTION_INT = 2**63 - 1
#: ``key = <a number of 20 digits or more>`` in a config file: refused, naming the key, before tomllib converts
#: it (past 4,300 digits its conversion is a ValueError, below that a slow one)
_LONG_NUMBER = re.compile(r"(?m)^[ \t]*([^=\n]{1,200}?)[ \t]*=[ \t]*[+-]?(?:0[xob])?[0-9A-Fa-f_]{20,}")


def short_text(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def typed_option(key: str, value: Any) -> Any:
    if key not in FIELDS:
        raise TrainingError(f"unknown training option {short_text(key)!r}; options: {', '.join(FIELDS)}")
    kind = type(getattr(TrainingConfig(), key))
    if isinstance(value, str) and kind is not str:
        try:
            if len(value) > 40 or not value.isascii():  # no 5,000-digit numbers, no non-ASCII digits
                raise ValueError
            number = float(value)
            if kind is int:
                if not number.is_integer():
                    raise ValueError
                value = int(number)
            else:
                return number
        except (ValueError, OverflowError):
            raise TrainingError(f"option {key}={short_text(value)!r} must be {kind.__name__}") from None
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > MAX_OPTION_INT.bit_length():
        raise TrainingError(f"option {key} is a number of about {value.bit_length() * 3 // 10:,} digits; "
                            f"at most {MAX_OPTION_INT}")
    if not isinstance(value, str | int | float):  # a TOML list, table or date: never an option's value
        raise TrainingError(f"option {key} must be {kind.__name__}, not a {type(value).__name__}")
    return value  # TrainingConfig checks the type and the bounds of each value


def read_config(path: str) -> dict[str, Any]:
    """The options of a TOML config file, read bounded (a regular file of at most 64 KiB); one-line errors."""
    shown = shown_path(path)
    try:
        raw = read_file_bounded(path, MAX_CONFIG_BYTES, "config file")
    except ValueError as exc:
        raise TrainingError(str(exc)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise TrainingError(f"{shown}: not a text file (not UTF-8)") from None
    long = _LONG_NUMBER.search(text)
    if long is not None:
        raise TrainingError(f"{shown}: option {short_text(long[1].strip())!r} is a number of 20 digits or more; "
                            f"the largest option takes at most {MAX_OPTION_INT}")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TrainingError(f"{shown}: not TOML ({exc})") from None
    except ValueError:  # tomllib's int conversion limit, for a long number the scan above did not see (in a list)
        raise TrainingError(f"{shown}: a number too long to read") from None
    except RecursionError:  # arrays or tables nested thousands deep (tomllib recurses once a level)
        raise TrainingError(f"{shown}: not TOML of ours (nested too deeply)") from None


def options_from_args(args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, str]]:
    """The options the command line sets (a preset's, a config file's, ``--set``'s, ``--seed``), and how each
    was set (for a message about it)."""
    options: dict[str, Any] = dict(METHOD_PRESETS.get(args.preset, {})) if args.preset else {}
    flags = {key: f"{key} (--preset {args.preset})" for key in options}
    if args.config:
        data = read_config(args.config)
        options.update({k: typed_option(k, v) for k, v in data.items()})
        flags.update({k: f"{k} (--config)" for k in data})
    for item in args.set:
        key, eq, value = item.partition("=")
        if not eq:
            raise TrainingError(f"--set {short_text(item)!r} needs KEY=VALUE")
        options[key.strip()] = typed_option(key.strip(), value.strip())
        flags[key.strip()] = f"--set {key.strip()}"
    if args.seed is not None:
        options["seed"] = args.seed
        flags["seed"] = "--seed"
    return options, flags


def config_from_args(args: argparse.Namespace) -> TrainingConfig:
    return TrainingConfig(**options_from_args(args)[0])
