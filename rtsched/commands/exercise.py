"""``rtsched exercise --topic T --seed S``: a per-student exercise sheet and its answer key."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = ["register"]


def exercise_command(
    topic: Annotated[str | None, typer.Option("--topic", help="The topic (see --list-topics).")] = None,
    seed: Annotated[
        str | None, typer.Option("--seed", help="An integer or any text, e.g. a student ID: same seed, same sheet.")
    ] = None,
    sheet: Annotated[
        str | None, typer.Option("--sheet", help="Write the sheet (Markdown) here (default: standard output).")
    ] = None,
    key: Annotated[str | None, typer.Option("--key", help="Write the answer key (Markdown) here.")] = None,
    list_topics: Annotated[bool, typer.Option("--list-topics", help="List the topics and exit.")] = False,
) -> None:
    """Write an exercise sheet and its answer key, reproducible from a seed.

    The task sets are drawn from the seed so that the exercise is instructive (tests that disagree,
    a set one heuristic packs and another does not, ...); the key gives every answer with its
    derivation step by step, computed by the analyses. The same topic, seed and rtsched version
    give byte-identical files.

    Exit status: 0 on success, 2 on bad input (unknown topic, missing seed, unwritable file).
    """
    from rtsched.errors import InputError
    from rtsched.exercise import TOPICS, make_exercise

    if list_topics:
        width = max(len(name) for name in TOPICS)
        for name, (description, _) in TOPICS.items():
            typer.echo(f"{name:<{width}}  {description}")
        return
    if topic is None:
        raise InputError(f"give a topic with --topic ({', '.join(TOPICS)})", field="--topic")
    if seed is None:
        raise InputError("give a seed with --seed (an integer or a student ID)", field="--seed")
    exercise = make_exercise(topic, seed)
    files = [(path, text, option) for path, text, option in ((sheet, exercise.sheet, "--sheet"), (key, exercise.key, "--key"))
             if path is not None]  # fmt: skip
    # Every file is written beside its destination first, so that an unwritable --key fails
    # before the sheet is printed or written (issue #46), and nothing is left half done.
    staged: list[tuple[Path, Path]] = []
    try:
        for path, text, option in files:
            staged.append((_stage(path, text, option), Path(path)))
        if sheet is None:
            typer.echo(exercise.sheet, nl=False)
        for temporary, destination in staged:
            temporary.replace(destination)
            typer.echo(f"wrote {destination}", err=True)
    finally:
        for temporary, _ in staged:
            temporary.unlink(missing_ok=True)


def _stage(path: str, text: str, option: str) -> Path:
    """``text`` written to a temporary file beside ``path`` (renamed onto it once every file is staged)."""
    from rtsched.errors import InputError

    destination = Path(path)
    if destination.is_dir():
        raise InputError(f"cannot write {path}: it is a directory", field=option)
    temporary = destination.with_name(f".{destination.name}.rtsched-tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
    except OSError as err:
        raise InputError(f"cannot write {path}: {err.strerror}", field=option) from None
    return temporary


def register(app: typer.Typer) -> None:
    """Add ``exercise`` to the CLI."""
    app.command("exercise")(exercise_command)
