"""Every document the project names is one it has, and every section it names is there.

The code, docstrings, proto comments (and the clients generated from them), the lobby's
OpenAPI descriptions, the README and the docs refer to documents by path: ``docs/rules.md``,
``docs/fairness.md §4.2``, ``docs/operations.md, "Several engine nodes"``, or by a Markdown
link ``[rules.md §2.8](rules.md#28-the-clock-and-timeouts)``. A name of a document the project
does not ship (the design notes it was built from, for instance) leaves a reader with nothing
to open; a section number or title that moved leaves him in the wrong place. This test reads
every tracked text file and checks each such reference against the headings of the document.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Files whose text is not the project's own words (lock files, vendored or binary data).
SKIPPED_SUFFIXES = (".png", ".jpg", ".svg", ".binpb", ".lock", ".sqlite3", ".woff", ".woff2")
SKIPPED_NAMES = ("package-lock.json",)

#: A document named by its file: a path or a bare name ending in .md (not inside a URL).
DOCUMENT = re.compile(r"(?<![\w/.:#-])((?:[\w.-]+/)*[\w.-]+\.md)\b(?!\w)")
#: A section named after a document: "§2.8", "§ 4", or ', "Several engine nodes"'.
NUMBERED = re.compile(r"\s*,?\s*§\s*(\d+(?:\.\d+)*)")
TITLED = re.compile(r',\s*"([^"\n]+)"')
#: A Markdown link to a document's heading.
ANCHOR = re.compile(r"\]\(((?:[\w.-]+/)*[\w.-]+\.md)#([\w-]+)\)")


@dataclass(frozen=True)
class Reference:
    source: str
    line: int
    document: str
    section: str | None = None  # "2.8", a quoted title, or "#anchor"

    def __str__(self) -> str:
        where = f" {self.section}" if self.section else ""
        return f"{self.source}:{self.line}: {self.document}{where}"


def tracked_text_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    files = []
    for name in filter(None, listed.split("\0")):
        path = ROOT / name
        if name.endswith(SKIPPED_SUFFIXES) or path.name in SKIPPED_NAMES or not path.is_file():
            continue
        if path == Path(__file__).resolve():
            continue  # its probes name wrong documents on purpose
        files.append(path)
    return files


def references(path: Path) -> Iterator[Reference]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return
    source = str(path.relative_to(ROOT))
    for number, line in enumerate(text.splitlines(), 1):
        yield from line_references(source, number, line)


def line_references(source: str, number: int, line: str) -> Iterator[Reference]:
    for match in DOCUMENT.finditer(line):
        rest = line[match.end() :]
        numbered, titled = NUMBERED.match(rest), TITLED.match(rest)
        section = numbered.group(1) if numbered else f'"{titled.group(1)}"' if titled else None
        yield Reference(source, number, match.group(1), section)
    for match in ANCHOR.finditer(line):
        yield Reference(source, number, match.group(1), "#" + match.group(2))


def problem(reference: Reference) -> str | None:
    """What is wrong with the reference (None: it names a document and section we have)."""
    path = resolve(reference)
    if path is None:
        return f"{reference}: no such document in the project"
    if reference.section and path.suffix == ".md" and not section_found(path, reference.section):
        return f"{reference}: no such section in {path.relative_to(ROOT)}"
    return None


def resolve(reference: Reference) -> Path | None:
    """The project's file the reference names: relative to the file that names it (as a
    Markdown link is), else to the repository's root (as ``docs/rules.md`` is)."""
    source_dir = (ROOT / reference.source).parent
    for base in (source_dir, ROOT):
        candidate = (base / reference.document).resolve()
        if candidate.is_file() and ROOT in candidate.parents:
            return candidate
    return None


@cache
def headings(path: Path) -> tuple[str, ...]:
    found, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (match := re.match(r"#{1,6}\s+(.+?)\s*#*$", line)):
            found.append(match.group(1))
    return tuple(found)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.lower().replace("`", ""))
    return text.replace(" ", "-")


def section_found(path: Path, section: str) -> bool:
    titles = headings(path)
    if section.startswith("#"):
        return section[1:] in {slug(t) for t in titles}
    if section.startswith('"'):
        wanted = section.strip('"').lower()
        return any(t.lower() == wanted or t.lower().startswith(wanted) for t in titles)
    return any(re.match(rf"{re.escape(section)}\.?\s", t) for t in titles)


def all_problems() -> list[str]:
    return [
        found
        for path in tracked_text_files()
        for reference in references(path)
        if (found := problem(reference)) is not None
    ]


def test_every_document_and_section_named_is_in_the_project() -> None:
    problems = all_problems()
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("line", "wrong"),
    [
        ("see RULES.md §4", ["no such document"]),
        ("see docs/rules.md §4", ["no such section"]),
        ("see docs/rules.md §2.8 and docs/fairness.md §5", [None, None]),
        ("(docs/hand-scripts.md §2) and docs/operations.md", [None, None]),
        ('see docs/operations.md, "Several engine nodes"', [None]),
        ('see docs/operations.md, "No such part"', ["no such section"]),
        ("[the clock](rules.md#28-the-clock-and-timeouts)", [None, None]),
        ("[settings](rules.md#4-settings)", [None, "no such section"]),
        ("https://example.com/RULES.md is a URL, not a document here", []),
        ("STACK_NOTES.md and docs/leagues.md", ["no such document", "no such document"]),
    ],
)
def test_the_check_catches_what_it_is_for(line: str, wrong: list[str | None]) -> None:
    """A design note outside the project, a section number that moved, a title or an anchor
    that does not exist are caught; real ones pass. (Links resolve from docs/ here.)"""
    found = [problem(r) for r in line_references("docs/probe.md", 1, line)]
    assert len(found) == len(wrong), found
    for got, want in zip(found, wrong, strict=True):
        assert (got is None) if want is None else (got is not None and want in got), got
