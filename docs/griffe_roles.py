"""A griffe extension for the docs build: turns the docstrings' Sphinx roles into code and cross-references.

The docstrings are Markdown but name other objects the Sphinx way (:func:`~sumito.fileio.atomic_write_bytes`,
:class:`Move`, :mod:`sumito.web.scheduler`, ``literal``). mkdocstrings would show those raw, so this extension
rewrites each docstring's text once griffe has loaded the package, before mkdocstrings parses and renders it:

- ``:role:`~a.b.c` `` becomes a link titled `c`, ``:role:`a.b.c` `` a link titled `a.b.c`,
  ``:role:`title <a.b.c>` `` a link titled `title`, and ``:role:`!a.b.c` `` plain code;
- a target is resolved the way Sphinx does: as written when it names a loaded object, otherwise from the scope
  of the documented object (its members, then its parents', then the module's names and imports), and the link
  points at the object's canonical path;
- the link is an *optional* autorefs cross-reference, the kind mkdocstrings itself emits for annotations: when
  the target is rendered somewhere on the site it becomes a link, when it isn't (a private helper, an object on
  no API page) it stays plain code, without the warning that `mkdocs build --strict` would turn into an error;
- a target that cannot be resolved at all (a builtin, a third-party name) is plain code;
- reST ````literal```` becomes Markdown `` `literal` ``; fenced code blocks and existing code spans are left as
  they are, and so is the rest of the Markdown.

Only griffe's copy of each docstring is changed: the modules' `__doc__` (what `help()` shows) is not touched,
and nothing here runs outside the docs build. mkdocs.yml loads the file through the handler's `extensions:`
option.
"""

from __future__ import annotations

import html
import re
from typing import Any

import griffe

_ROLES = "func|class|mod|meth|data|attr|exc|obj|const|type|any|function|method|attribute|exception|module"

# One pass over the text, leftmost match first: a fenced code block is skipped, a role is rewritten,
# a ``double`` code span is rewritten, a `single` code span is skipped (so nothing inside it is touched).
_INLINE = r"(?:(?!\n[ \t]*\n)[^`])"  # a character of a code span: no backtick, no blank line
_TOKEN = re.compile(
    r"(?P<fence>^[ \t]*(?P<fchar>`{3,}|~{3,}).*?^[ \t]*(?P=fchar)[ \t]*$)"
    rf"|(?P<role>:(?:py:)?(?P<name>{_ROLES}):`(?P<body>{_INLINE}+)`)"
    rf"|(?P<double>(?<!`)``(?P<literal>{_INLINE}+)``(?!`))"
    rf"|(?P<code>(?P<ticks>`+)(?:{_INLINE}|`)+?(?P=ticks)(?!`))",
    re.MULTILINE | re.DOTALL,
)
_EXPLICIT_TITLE = re.compile(r"^(?P<title>.+?)\s*<(?P<target>[^<>]+)>$", re.DOTALL)
_IDENTIFIER = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_][\w]*)*$")


def _code(text: str) -> str:
    """A Markdown code span holding `text` (which holds no backtick)."""
    text = " ".join(text.split())
    if text.startswith(" ") or text.endswith(" "):
        return f"`` {text} ``"
    return f"`{text}`"


def _lookup(collection: griffe.ModulesCollection, path: str) -> str | None:
    """The canonical path of the loaded object at `path`, or None if there is none."""
    try:
        obj = collection.get_member(path)
    except (KeyError, ValueError, griffe.AliasResolutionError, griffe.CyclicAliasError):
        return None
    try:
        return obj.canonical_path
    except (griffe.AliasResolutionError, griffe.CyclicAliasError):
        return path


def _resolve(scope: griffe.Object, target: str) -> str | None:
    """The canonical path of the object that `target`, written in the docstring of `scope`, names."""
    if not _IDENTIFIER.match(target):
        return None
    collection = scope.modules_collection
    if found := _lookup(collection, target):
        return found
    head, _, rest = target.partition(".")
    try:
        resolved = scope.resolve(head)
    except griffe.NameResolutionError:
        return None
    return _lookup(collection, f"{resolved}.{rest}" if rest else resolved)


def _role(scope: griffe.Object, body: str) -> str:
    """The Markdown for one role, given what is between its backticks."""
    body = " ".join(body.split())
    if match := _EXPLICIT_TITLE.match(body):
        title, target = match["title"], match["target"].strip()
    else:
        title = target = body
    link = True
    if target.startswith("!"):
        link = False
        target = target[1:]
        title = title[1:] if title.startswith("!") else title
    if target.startswith("~"):
        target = target[1:]
        if title.startswith("~"):
            title = target.rsplit(".", 1)[-1]
    target = target.lstrip(".")
    path = _resolve(scope, target) if link else None
    if path is None:
        return _code(title)
    # An optional autoref: a link when the target is rendered on the site, plain code (no warning) when not.
    return f'<autoref optional identifier="{html.escape(path)}">{_code(title)}</autoref>'


def rewrite(scope: griffe.Object, text: str) -> str:
    """`text`, a docstring of `scope`, with its Sphinx roles and reST literals turned into Markdown."""

    def replace(match: re.Match[str]) -> str:
        if match["role"]:
            return _role(scope, match["body"])
        if match["double"]:
            return _code(match["literal"])
        return match[0]

    return _TOKEN.sub(replace, text)


class SphinxRoles(griffe.Extension):
    """Rewrite the Sphinx roles of every docstring in a package once it is loaded."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        """Walk the package's objects (not its aliases: their targets are walked where they are defined)."""
        seen: set[int] = set()
        stack: list[griffe.Object] = [pkg]
        while stack:
            obj = stack.pop()
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            if obj.docstring is not None:
                obj.docstring.value = rewrite(obj, obj.docstring.value)
            stack.extend(member for member in obj.members.values() if not member.is_alias)
