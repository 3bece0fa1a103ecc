"""Errors raised by rtsched.

Every error about user input says *where* the problem is: the file, the line (or the index of
the task set in a many-set file), the task and the field. The CLI prints ``str(error)`` and exits
with status 2; it never shows a traceback for an :class:`InputError`.
"""

from __future__ import annotations

__all__ = ["InputError", "RtschedError", "TaskError", "UnknownVerdictError"]


class RtschedError(Exception):
    """Base class of every error rtsched raises on purpose."""


class InputError(RtschedError, ValueError):
    """Malformed user input: a file, a task set or a parameter.

    Parameters
    ----------
    message:
        What is wrong, in plain words.
    file, line, set_index, task, field:
        Where it is wrong; every part that is known is printed.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        set_index: int | None = None,
        task: int | str | None = None,
        field: str | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.set_index = set_index
        self.task = task
        self.field = field
        super().__init__(str(self))

    def located(self, **where: object) -> InputError:
        """Return a copy with more location information (existing parts are kept)."""
        merged = {
            "file": self.file,
            "line": self.line,
            "set_index": self.set_index,
            "task": self.task,
            "field": self.field,
        }
        for key, value in where.items():
            if merged.get(key) is None:
                merged[key] = value  # type: ignore[assignment]
        return type(self)(self.message, **merged)  # type: ignore[arg-type]

    def __str__(self) -> str:
        parts = []
        if self.file is not None:
            parts.append(_one_line(str(self.file)))
        if self.line is not None:
            parts.append(f"line {self.line}")
        if self.set_index is not None:
            parts.append(f"task set {self.set_index}")
        if self.task is not None:
            parts.append(f"task {_one_line(str(self.task), 80)}")
        if self.field is not None:
            parts.append(f"field {_one_line(str(self.field), 80)}")
        where = ", ".join(parts)
        message = _one_line(self.message)
        return f"{where}: {message}" if where else message


def _one_line(text: str, limit: int = 0) -> str:
    """``text`` on one line, at most ``limit`` characters (0: any) with an ellipsis.

    Control characters (a task name spanning lines in a quoted CSV cell) are written as escapes.
    """
    if not text.isprintable():
        text = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)
    if limit and len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


class TaskError(InputError):
    """An invalid task parameter (raised while building a :class:`~rtsched.TaskSet`)."""


class UnknownVerdictError(RtschedError):
    """A boolean answer was asked for, but an analysis's work budget ran out on some sets.

    ``Analysis.batch`` returns True/False per set and would otherwise have to call "unknown"
    False; ``Analysis.decide`` returns the codes 1 / 0 / -1 instead.
    """

