"""Game records: a small PGN-like text format with header tags and the move list.

Example::

    [Event "Casual game"]
    [Date "2026.11.22"]
    [Black "random:seed=1"]
    [White "random:seed=2"]
    [Layout "standard"]
    [Result "1-0"]
    [Reason "push-off"]

    1. a1b1 i5h5 2. b2c3 h4g4 ... 1-0

Tags that set up the game: ``Layout`` (a layout name) or ``Position`` (a position string, which
wins when both are given), ``WinThreshold``, ``InlineOnly`` (``yes``/``no``), and the draw rules
``MaxPlies``, ``Repetitions``, ``NoCapturePlies`` (a number or ``off``) and ``NoMoves``
(``draw``/``loss``). ``Result`` is ``1-0`` (Black won), ``0-1`` (White won), ``1/2-1/2`` or ``*``
(unfinished); ``Reason`` says why it ended. Any other tag is kept as it is.

Reading replays every move. A record whose moves are illegal, whose result disagrees with its
moves, or that is malformed in any other way raises :class:`RecordError` naming the line; a file
may hold several records, one after another.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from sumito.bounds import MAX_LINE_CHARS, MAX_RECORD_BYTES, MAX_RECORD_PLIES
from sumito.errors import SumitoError
from sumito.fileio import atomic_write_text, open_regular, reason_of
from sumito.games.abalone.draws import DrawRules
from sumito.games.abalone.errors import RecordError
from sumito.games.abalone.game import DECLARED_REASONS, REASONS, Game, Outcome
from sumito.games.abalone.geometry import BLACK, WHITE
from sumito.games.abalone.position import Position
from sumito.games.abalone.variants import LAYOUTS, get_layout

_TAG = re.compile(r'^\[([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\]\s*$')
_MOVE_NUMBER = re.compile(r"^[0-9]{1,9}\.(\.\.)?$")
_RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
#: what the first token of a record without tags may look like: a move number, a result or a move
_CELL = r"[a-zA-Z][0-9]{1,2}"
_MOVE_SHAPED = re.compile(rf"^([0-9]{{1,9}}\.(\.\.)?|1-0|0-1|1/2-1/2|\*|{_CELL}-?{_CELL}(-?{_CELL})?)$")
_SETUP_ORDER = ("Event", "Site", "Date", "Round", "Black", "White", "Layout", "Position")
_RULE_TAGS = ("WinThreshold", "InlineOnly", "MaxPlies", "Repetitions", "NoCapturePlies", "NoMoves")


@dataclass
class GameRecord:
    """A game with its header tags. ``game`` holds the replayed moves and the outcome."""

    game: Game
    tags: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_game(cls, game: Game, **tags: str) -> GameRecord:
        """A record of ``game``; setup, rule and result tags are filled in from the game itself."""
        full = {"Event": "Sumito game", "Date": _dt.date.today().strftime("%Y.%m.%d")}
        full.update({k: str(v) for k, v in tags.items()})
        full.update(_setup_tags(game))
        outcome = game.outcome()
        full["Result"] = outcome.result if outcome else "*"
        if outcome:
            full["Reason"] = outcome.reason
        else:
            full.pop("Reason", None)
        full["Plies"] = str(game.plies)
        return cls(game, full)

    @property
    def result(self) -> str:
        return self.tags.get("Result", "*")

    def to_text(self) -> str:
        ordered = [k for k in _SETUP_ORDER if k in self.tags]
        ordered += [k for k in _RULE_TAGS if k in self.tags]
        ordered += [k for k in self.tags if k not in ordered]
        lines = [f'[{k} "{_escape(self.tags[k])}"]' for k in ordered]
        lines.append("")
        lines.extend(_wrap(_movetext(self.game, self.result)))
        return "\n".join(lines) + "\n"


def _setup_tags(game: Game) -> dict[str, str]:
    start = game.start
    tags: dict[str, str] = {}
    for name, layout in LAYOUTS.items():
        if layout.variant.side == start.variant.side and layout.position_string == start.to_string():
            tags["Layout"] = name
            break
    else:
        tags["Position"] = start.to_string()
    variant = start.variant
    base = get_layout(tags["Layout"]).variant if "Layout" in tags else None
    if base is None or variant.win_threshold != base.win_threshold:
        tags["WinThreshold"] = str(variant.win_threshold)
    if variant.inline_only:
        tags["InlineOnly"] = "yes"
    rules = game.rules
    defaults = DrawRules()
    for tag, value, default in (
        ("MaxPlies", rules.max_plies, defaults.max_plies),
        ("Repetitions", rules.repetitions, defaults.repetitions),
        ("NoCapturePlies", rules.no_capture_plies, defaults.no_capture_plies),
    ):
        if value != default:
            tags[tag] = "off" if value is None else str(value)
    if rules.no_moves != defaults.no_moves:
        tags["NoMoves"] = rules.no_moves
    return tags


def _movetext(game: Game, result: str) -> list[str]:
    tokens = []
    for pos, move in zip(game.positions, game.moves):
        if pos.side_to_move == BLACK:
            tokens.append(f"{pos.move_number}.")
        elif not tokens:
            tokens.append(f"{pos.move_number}...")
        tokens.append(move.notation())
    tokens.append(result)
    return tokens


def _wrap(tokens: list[str], width: int = 79) -> list[str]:
    lines, line = [], ""
    for tok in tokens:
        if line and len(line) + 1 + len(tok) > width:
            lines.append(line)
            line = tok
        else:
            line = f"{line} {tok}" if line else tok
    if line:
        lines.append(line)
    return lines


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


# --------------------------------------------------------------------------- reading


def parse_records(text: str, source: str = "record") -> list[GameRecord]:
    """Every game record in ``text``; raises :class:`RecordError` naming the first bad line.

    ``text`` is bounded before it is split: at most :data:`~sumito.bounds.MAX_RECORD_BYTES` characters,
    lines of at most :data:`~sumito.bounds.MAX_LINE_CHARS`, games of at most
    :data:`~sumito.bounds.MAX_RECORD_PLIES` moves."""
    if len(text) > MAX_RECORD_BYTES:
        raise RecordError(f"{source}: {len(text):,} characters; a record file may have at most {MAX_RECORD_BYTES:,}")
    records: list[GameRecord] = []
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        if len(line) > MAX_LINE_CHARS:
            raise RecordError(f"{source}, line {number}: {len(line):,} characters; a line may have at most "
                              f"{MAX_LINE_CHARS:,}")
    i = 0
    n = len(lines)
    while i < n:
        while i < n and not lines[i].strip():
            i += 1
        if i >= n:
            break
        start_line = i + 1
        tags: dict[str, str] = {}
        tag_lines: dict[str, int] = {}
        while i < n and lines[i].strip().startswith("["):
            m = _TAG.match(lines[i].strip())
            if not m:
                shown = _short(lines[i].strip())
                raise RecordError(f'{source}, line {i + 1}: malformed tag {shown!r} (write [Name "value"])')
            name, value = m.group(1), _unescape(m.group(2))
            if name in tags:
                raise RecordError(f"{source}, line {i + 1}: tag {name} appears twice")
            tags[name] = value
            tag_lines[name] = i + 1
            i += 1
        tokens: list[tuple[str, int]] = []
        while i < n and not lines[i].strip().startswith("["):
            tokens.extend((tok, i + 1) for tok in _strip_comments(lines[i]).split())
            i += 1
        if not tags and not tokens:
            continue
        if not tags and not _MOVE_SHAPED.match(tokens[0][0]):
            # no tags and no move where the moves begin: some other file, said so rather than "not a move"
            raise RecordError(
                f"{source} is not a game record: line {tokens[0][1]} starts with {_short(tokens[0][0], 30)!r}, "
                'not a [Tag "value"] line or a move'
            )
        records.append(_build(tags, tag_lines, tokens, source, start_line))
    if not records:
        raise RecordError(f"{source}: no game record found")
    return records


def _short(text: str, most: int = 60) -> str:
    """``text`` cut to ``most`` characters for an error message (a message quotes, it does not echo)."""
    return text if len(text) <= most else text[: most - 3] + "..."


def _strip_comments(line: str) -> str:
    line = re.sub(r"\{[^}]*\}", " ", line)
    return line.split(";", 1)[0]


def _tag_int(tags: dict[str, str], lines: dict[str, int], name: str, source: str, allow_off: bool) -> int | None:
    value = tags[name].strip().lower()
    if allow_off and value in ("off", "none", "-", ""):
        return None
    # the length is checked before int(): a 5,000-digit number is an error, not a slow conversion or a crash
    if not re.fullmatch(r"[0-9]{1,9}", value) or int(value) < 1:
        shown = tags[name] if len(tags[name]) <= 20 else tags[name][:17] + "..."
        raise RecordError(
            f"{source}, line {lines[name]}: {name} must be a positive whole number, not {shown!r} (at most 999999999)"
        )
    return int(value)


def _build(
    tags: dict[str, str], lines: dict[str, int], tokens: list[tuple[str, int]], source: str, at: int
) -> GameRecord:
    try:
        if "Position" in tags:
            start_text = tags["Position"]
            variant_base = None
        else:
            lay = get_layout(tags.get("Layout", "standard"))
            start_text = lay.position_string
            variant_base = lay.variant
        probe = Position.from_string(start_text, variant_base)
    except SumitoError as exc:
        key = "Position" if "Position" in tags else "Layout"
        line = lines.get(key, at)
        raise RecordError(f"{source}, line {line}: {exc}") from None
    variant = probe.variant
    if "WinThreshold" in tags:
        threshold = _tag_int(tags, lines, "WinThreshold", source, False)
        try:
            variant = variant.with_options(win_threshold=threshold)
        except SumitoError as exc:
            raise RecordError(f"{source}, line {lines['WinThreshold']}: {exc}") from None
    if "InlineOnly" in tags:
        flag = tags["InlineOnly"].strip().lower()
        if flag not in ("yes", "no", "true", "false"):
            raise RecordError(
                f"{source}, line {lines['InlineOnly']}: InlineOnly must be yes or no, "
                f"not {_short(tags['InlineOnly'])!r}"
            )
        variant = variant.with_options(inline_only=flag in ("yes", "true"))
    rule_values: dict[str, int | str | None] = {}
    rule_tags = {"MaxPlies": "max_plies", "Repetitions": "repetitions", "NoCapturePlies": "no_capture_plies"}
    for tag, name in rule_tags.items():
        if tag in tags:
            rule_values[name] = _tag_int(tags, lines, tag, source, True)
    if "NoMoves" in tags:
        rule_values["no_moves"] = tags["NoMoves"].strip().lower()
    for tag, name in (*rule_tags.items(), ("NoMoves", "no_moves")):
        if name in rule_values:
            try:
                DrawRules(**{name: rule_values[name]})
            except SumitoError as exc:
                raise RecordError(f"{source}, line {lines[tag]}: {exc}") from None
    rules = DrawRules(**rule_values)
    try:
        start = Position.from_string(start_text, variant)
    except SumitoError as exc:
        raise RecordError(f"{source}, line {at}: {exc}") from None
    game = Game(start, rules)

    result_token: str | None = None
    result_line = at
    ply = 0
    for tok, line in tokens:
        if result_token is not None:
            raise RecordError(f"{source}, line {line}: {_short(tok)!r} after the result {result_token}")
        if _MOVE_NUMBER.match(tok):
            continue
        if tok in _RESULTS:
            result_token, result_line = tok, line
            continue
        ply += 1
        if ply > MAX_RECORD_PLIES:
            raise RecordError(f"{source}, line {line}: more than {MAX_RECORD_PLIES:,} moves in one game")
        outcome = game.outcome()
        if outcome is not None:
            raise RecordError(
                f"{source}, line {line}: move {ply} ({_short(tok)}) comes after the game ended: {outcome.describe()}"
            )
        try:
            game.push(tok)
        except SumitoError as exc:
            raise RecordError(f"{source}, line {line}: move {ply} ({_short(tok)}): {exc}") from None

    tag_result = tags.get("Result")
    if tag_result is not None and tag_result not in _RESULTS:
        raise RecordError(
            f"{source}, line {lines['Result']}: Result must be one of {', '.join(_RESULTS)}, not {_short(tag_result)!r}"
        )
    if tag_result and result_token and tag_result != result_token:
        raise RecordError(
            f"{source}, line {result_line}: the moves end with {result_token} but the Result tag says {tag_result}"
        )
    result = tag_result or result_token or "*"
    reason = tags.get("Reason")
    if reason is not None and reason not in REASONS:
        raise RecordError(
            f"{source}, line {lines['Reason']}: unknown Reason {_short(reason)!r}; known: {', '.join(REASONS)}"
        )
    outcome = game.outcome()
    where = lines.get("Result", result_line)
    if outcome is not None:
        if result != outcome.result:
            raise RecordError(
                f"{source}, line {where}: the result says {result} but the moves end in {outcome.describe()}"
            )
        if reason is not None and reason != outcome.reason:
            raise RecordError(
                f"{source}, line {lines['Reason']}: the Reason tag says {reason} but the moves end by {outcome.reason}"
            )
    elif result == "*":
        if reason is not None:
            raise RecordError(f"{source}, line {lines['Reason']}: an unfinished game (result *) cannot have a Reason")
    else:
        if reason not in DECLARED_REASONS:
            raise RecordError(
                f"{source}, line {where}: the result says {result} but the game is not over after its moves; "
                f"a Reason tag must say how it ended ({', '.join(DECLARED_REASONS)})"
            )
        winner = {"1-0": BLACK, "0-1": WHITE, "1/2-1/2": None}[result]
        try:
            game.declare(Outcome(winner, reason))
        except SumitoError as exc:
            raise RecordError(f"{source}, line {where}: {exc}") from None
    if "Plies" in tags and tags["Plies"].strip() != str(game.plies):
        shown = tags["Plies"] if len(tags["Plies"]) <= 20 else tags["Plies"][:17] + "..."
        raise RecordError(
            f"{source}, line {lines['Plies']}: the Plies tag says {shown!r} "
            f"but the record has {game.plies} moves"
        )
    record_tags = dict(tags)
    record_tags["Result"] = result
    return GameRecord(game, record_tags)


def read_records(path: str | os.PathLike[str]) -> list[GameRecord]:
    """Every record in the file at ``path``."""
    p = Path(path)
    try:
        if not p.is_file():  # a folder, a FIFO or /dev/zero: never read (it could block or never end)
            why = "not a regular file" if p.exists() else "No such file or directory"
            raise RecordError(f"cannot read {p}: {why}")
        # opened as every reader opens (without blocking, checked again on the descriptor: a FIFO put in its
        # place since the check above is refused too); the read is bounded below
        with open_regular(p, 2**62, "record file") as fh:
            data = fh.read(MAX_RECORD_BYTES + 1)
    except ValueError as exc:
        raise RecordError(f"cannot read {p}: {reason_of(exc, p, 'record file')}") from None
    except OSError as exc:
        raise RecordError(f"cannot read {p}: {exc.strerror or exc}") from None
    if len(data) > MAX_RECORD_BYTES:
        raise RecordError(f"{p}: more than {MAX_RECORD_BYTES:,} bytes; a record file may have at most that")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise RecordError(f"{p} is not a text file (not UTF-8)") from None
    return parse_records(text, source=str(p))


def write_records(path: str | os.PathLike[str], records: list[GameRecord]) -> None:
    """Write ``records`` to ``path`` atomically (a crash leaves the old file or the new one)."""
    atomic_write_text(path, "\n".join(r.to_text() for r in records))
