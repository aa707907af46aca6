"""Typed values from loose JSON (settings, command arguments), structured with cattrs.

Keys may be camelCase or snake_case. Primitive types are strict: ``true`` is not a number and
``"10"`` is not an integer. :func:`structure` raises :class:`Invalid` with one line a person can
act on; :func:`structure_lenient` keeps the default of every field whose value does not fit and
says so in a warning (settings must never stop the server).
"""

from __future__ import annotations

import dataclasses
import re
import typing
from typing import Any, TypeVar

import cattrs

T = TypeVar("T")


class Invalid(ValueError):
    """A value that does not fit its field; the message names the field and what was expected."""


_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings (keys too) replaced by U+FFFD: JSON's
    ``"\\ud800"`` escapes and undecodable command-line bytes become text every layer can take."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value) if _SURROGATE.search(value) else value
    if isinstance(value, list):
        return [clean_text(v) for v in value]
    if isinstance(value, dict):
        return {clean_text(k): clean_text(v) for k, v in value.items()}
    return value


def describe(value: Any) -> str:
    """The JSON name of a value's type (for messages)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def snake(key: str) -> str:
    """``maxPerFile`` -> ``max_per_file`` (snake_case keys stay as they are)."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", lambda m: "_" + m.group(1).lower(), key)


def _int(value: Any, _: Any) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise Invalid(f"must be an integer, got {describe(value)}")
    return value


def _float(value: Any, _: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Invalid(f"must be a number, got {describe(value)}")
    return float(value)


def _bool(value: Any, _: Any) -> bool:
    if not isinstance(value, bool):
        raise Invalid(f"must be true or false, got {describe(value)}")
    return value


def _str(value: Any, _: Any) -> str:
    if not isinstance(value, str):
        raise Invalid(f"must be a string, got {describe(value)}")
    return value


def _strings(value: Any, _: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]  # one string is a list of one
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) and v for v in value):
        raise Invalid("must be an array of non-empty strings")
    return tuple(value)


converter = cattrs.Converter(forbid_extra_keys=True)
converter.register_structure_hook(int, _int)
converter.register_structure_hook(float, _float)
converter.register_structure_hook(bool, _bool)
converter.register_structure_hook(str, _str)
converter.register_structure_hook_func(lambda t: t == tuple[str, ...], _strings)
converter.register_structure_hook_func(lambda t: t == list[str], lambda v, t: list(_strings(v, t)))


def camel(name: str) -> str:
    """``max_per_file`` -> ``maxPerFile``."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def structure(cls: type[T], data: Any) -> T:
    """``data`` as a ``cls`` (a dataclass), or :class:`Invalid` naming the first problem."""
    if not isinstance(data, dict):
        raise Invalid(f"must be an object, got {describe(data)}")
    known = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = [str(k) for k in data if snake(str(k)) not in known]
    if unknown:
        allowed = ", ".join(sorted(camel(n) for n in known)) or "none"
        raise Invalid(f"unknown argument(s) {', '.join(map(repr, unknown))}; allowed: {allowed}")
    data = {snake(str(k)): v for k, v in data.items()}
    missing = [
        f.name
        for f in dataclasses.fields(cls)  # type: ignore[arg-type]
        if f.default is dataclasses.MISSING
        and f.default_factory is dataclasses.MISSING
        and data.get(f.name) is None
    ]
    if missing:
        raise Invalid(f'"{camel(missing[0])}" is required')
    data = {k: v for k, v in data.items() if v is not None}  # null means "not given"
    try:
        return converter.structure(data, cls)
    except cattrs.ClassValidationError as exc:
        raise Invalid(_first_problem(exc)) from None


def _first_problem(exc: cattrs.ClassValidationError) -> str:
    with_notes, without = exc.group_exceptions()
    for error, note in with_notes:
        name = camel(note.name)
        return f'"{name}" {error}' if isinstance(error, Invalid) else f'"{name}": {error}'
    for error in without:
        return str(error)
    return str(exc)


def structure_lenient(cls: type[T], data: Any, where: str) -> tuple[T, list[str]]:
    """A ``cls`` from ``data`` field by field: a bad or unknown value warns and keeps the default."""
    obj = cls()
    warnings: list[str] = []
    if data is None:
        return obj, warnings
    if not isinstance(data, dict):
        warnings.append(f"{where}: expected an object, got {describe(data)}; using defaults")
        return obj, warnings
    hints = typing.get_type_hints(cls)
    for raw_key, value in data.items():
        key = snake(str(raw_key))
        if key not in hints:
            warnings.append(f"{where}.{raw_key}: unknown setting, ignored")
            continue
        default = getattr(obj, key)
        if dataclasses.is_dataclass(default):
            nested, more = structure_lenient(type(default), value, f"{where}.{raw_key}")
            setattr(obj, key, nested)
            warnings += more
            continue
        try:
            checked = converter.structure(value, hints[key])
        except (Invalid, cattrs.BaseValidationError):
            checked = None
        if checked is None or (isinstance(checked, (int, float)) and checked < 0):
            warnings.append(
                f"{where}.{raw_key}: invalid value {value!r}; using default {default!r}"
            )
            continue
        setattr(obj, key, checked)
    return obj, warnings
