"""Per-language tree-sitter knowledge for the code chunker: grammars, node kinds, names, fields."""

from __future__ import annotations

import importlib
import threading
import time
from dataclasses import dataclass
from pathlib import PurePosixPath

from groundls.chunkers.code_names import node_text, split_scoped
from tree_sitter import Language, Node, Parser, Tree

# language -> (grammar module, function returning the language pointer)
GRAMMARS: dict[str, tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "java": ("tree_sitter_java", "language"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "csharp": ("tree_sitter_c_sharp", "language"),
    "ruby": ("tree_sitter_ruby", "language"),
    "php": ("tree_sitter_php", "language_php"),
    "kotlin": ("tree_sitter_kotlin", "language"),
    "scala": ("tree_sitter_scala", "language"),
    "swift": ("tree_sitter_swift", "language"),
    "lua": ("tree_sitter_lua", "language"),
    "bash": ("tree_sitter_bash", "language"),
    "zig": ("tree_sitter_zig", "language"),
    "elixir": ("tree_sitter_elixir", "language"),
    "haskell": ("tree_sitter_haskell", "language"),
}


@dataclass(frozen=True)
class Spec:
    """Which node types are functions, classes, namespaces and see-through blocks in a grammar."""

    functions: frozenset[str]
    classes: frozenset[str]
    containers: frozenset[str] = frozenset()
    transparent: frozenset[str] = frozenset()
    comment_prefixes: tuple[str, ...] = ("//",)
    #: the node types that are a definition's body in a grammar without a ``body`` field
    bodies: frozenset[str] = frozenset()
    #: a definition without such a body is its own body (``f x = x + 1``, ``def f(x), do: x``)
    self_bodied: bool = False


#: What documents the elixir definition below it (read as its leading comment).
ELIXIR_DOC_ATTRIBUTES = ("@doc ", "@spec ", "@impl ", "@deprecated ")
_C_FUNCS = frozenset({"function_definition"})
_C_CLASSES = frozenset({"struct_specifier", "union_specifier", "enum_specifier"})
_PREPROC = frozenset(
    {"preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef"}
)
_JS_FUNCS = frozenset(
    {"function_declaration", "generator_function_declaration", "method_definition"}
)
_JS_TRANSPARENT = frozenset({"expression_statement", "ambient_declaration"})

SPECS: dict[str, Spec] = {
    "python": Spec(
        functions=frozenset({"function_definition"}),
        classes=frozenset({"class_definition"}),
        transparent=frozenset(
            {
                "if_statement",
                "elif_clause",
                "else_clause",
                "try_statement",
                "except_clause",
                "finally_clause",
                "with_statement",
                "block",
            }
        ),
        comment_prefixes=("#",),
    ),
    "javascript": Spec(
        functions=_JS_FUNCS,
        classes=frozenset({"class_declaration"}),
        transparent=_JS_TRANSPARENT,
    ),
    "typescript": Spec(
        functions=_JS_FUNCS,
        classes=frozenset(
            {
                "class_declaration",
                "abstract_class_declaration",
                "interface_declaration",
                "enum_declaration",
            }
        ),
        containers=frozenset({"internal_module", "module"}),
        transparent=_JS_TRANSPARENT,
    ),
    "java": Spec(
        functions=frozenset(
            {"method_declaration", "constructor_declaration", "compact_constructor_declaration"}
        ),
        classes=frozenset(
            {
                "class_declaration",
                "interface_declaration",
                "enum_declaration",
                "record_declaration",
                "annotation_type_declaration",
            }
        ),
    ),
    "go": Spec(
        functions=frozenset({"function_declaration", "method_declaration"}),
        classes=frozenset({"type_declaration"}),
    ),
    "rust": Spec(
        functions=frozenset({"function_item"}),
        classes=frozenset(
            {
                "struct_item",
                "enum_item",
                "union_item",
                "trait_item",
                "impl_item",
                "type_item",
                "macro_definition",
            }
        ),
        containers=frozenset({"mod_item"}),
        comment_prefixes=("//", "#["),
    ),
    "c": Spec(
        functions=_C_FUNCS,
        classes=_C_CLASSES,
        containers=frozenset({"linkage_specification"}),
        transparent=_PREPROC,
    ),
    "cpp": Spec(
        functions=_C_FUNCS,
        classes=_C_CLASSES | {"class_specifier"},
        containers=frozenset({"namespace_definition", "linkage_specification"}),
        transparent=_PREPROC,
    ),
    "csharp": Spec(
        functions=frozenset(
            {
                "method_declaration",
                "constructor_declaration",
                "destructor_declaration",
                "operator_declaration",
                "conversion_operator_declaration",
                "local_function_statement",
            }
        ),
        classes=frozenset(
            {
                "class_declaration",
                "struct_declaration",
                "interface_declaration",
                "record_declaration",
                "record_struct_declaration",
                "enum_declaration",
            }
        ),
        containers=frozenset({"namespace_declaration", "file_scoped_namespace_declaration"}),
        transparent=frozenset({"preproc_if", "preproc_else", "preproc_elif", "preproc_region"}),
    ),
    "ruby": Spec(
        functions=frozenset({"method", "singleton_method"}),
        classes=frozenset({"class", "module"}),
        transparent=frozenset({"singleton_class", "body_statement"}),
        comment_prefixes=("#",),
    ),
    "php": Spec(
        functions=frozenset({"function_definition", "method_declaration"}),
        classes=frozenset(
            {"class_declaration", "interface_declaration", "trait_declaration", "enum_declaration"}
        ),
        containers=frozenset({"namespace_definition"}),
        comment_prefixes=("//", "#"),
    ),
}
SPECS.update(
    {
        "kotlin": Spec(
            functions=frozenset({"function_declaration", "secondary_constructor"}),
            classes=frozenset({"class_declaration", "object_declaration"}),
            # a companion object's members belong to its class
            transparent=frozenset({"companion_object", "class_body"}),
            bodies=frozenset({"function_body", "class_body", "enum_class_body"}),
        ),
        "scala": Spec(
            functions=frozenset({"function_definition"}),
            classes=frozenset(
                {"class_definition", "object_definition", "trait_definition", "enum_definition"}
            ),
        ),
        "swift": Spec(
            functions=frozenset({"function_declaration", "init_declaration", "deinit_declaration"}),
            classes=frozenset({"class_declaration", "protocol_declaration"}),
        ),
        "lua": Spec(
            functions=frozenset({"function_declaration"}),
            classes=frozenset(),
            comment_prefixes=("--",),
        ),
        "bash": Spec(
            functions=frozenset({"function_definition"}),
            classes=frozenset(),
            comment_prefixes=("#",),
        ),
        # zig types are values: ``const Store = struct { ... };`` (see DefinitionFinder)
        "zig": Spec(functions=frozenset({"function_declaration"}), classes=frozenset()),
        # elixir definitions are calls: ``defmodule``, ``def``, ... (see DefinitionFinder),
        # documented by the attributes above them
        "elixir": Spec(
            functions=frozenset(),
            classes=frozenset(),
            comment_prefixes=("#", *ELIXIR_DOC_ATTRIBUTES),
            bodies=frozenset({"do_block"}),
            self_bodied=True,
        ),
        # a type signature is a definition of its own, so it joins the equations that follow
        "haskell": Spec(
            functions=frozenset({"function", "signature"}),
            classes=frozenset({"data_type", "newtype", "type_synonym", "class", "instance"}),
            transparent=frozenset({"declarations"}),
            comment_prefixes=("--",),
            bodies=frozenset({"class_declarations", "instance_declarations"}),
            self_bodied=True,
        ),
    }
)
SPECS["tsx"] = SPECS["typescript"]

_languages: dict[str, Language] = {}
_lang_lock = threading.Lock()
_local = threading.local()


def language_for(language: str) -> Language | None:
    """The cached tree-sitter Language, or None when no grammar is installed for it."""
    if language not in GRAMMARS:
        return None
    lang = _languages.get(language)
    if lang is None:
        with _lang_lock:
            lang = _languages.get(language)
            if lang is None:
                module, func = GRAMMARS[language]
                try:
                    lang = Language(getattr(importlib.import_module(module), func)())
                except (ImportError, AttributeError, ValueError):
                    return None
                _languages[language] = lang
    return lang


def parser_for(language: str) -> Parser | None:
    """A Parser per thread and language (Parser objects are not shared between threads)."""
    cache: dict[str, Parser] | None = getattr(_local, "parsers", None)
    if cache is None:
        cache = {}
        _local.parsers = cache
    parser = cache.get(language)
    if parser is None:
        lang = language_for(language)
        if lang is None:
            return None
        parser = Parser(lang)
        cache[language] = parser
    return parser


#: A parse may take this long, plus ``PARSE_SECONDS_PER_MB`` for each megabyte of source, before
#: it gives up and the file is chunked in line windows. Real files parse at several megabytes a
#: second (commons-lang's 3.9 MB of Java: 0.45 s); over garbage, tree-sitter's error recovery
#: grows much faster than the text (2,500 ``<!--`` in a Ruby file: 107 s;
#: ``scripts/lab/bench_hostile_files.py``). The one rule of the chunkers that reads a clock: only a
#: file that would hold up the index for seconds is chunked differently on a slower machine.
PARSE_SECONDS = 1.0
PARSE_SECONDS_PER_MB = 5.0
_READ_BYTES = 1 << 16


class ParseTooSlow(Exception):
    """A parse gave up at its deadline (see ``PARSE_SECONDS``)."""


def parse_within(parser: Parser, src: bytes) -> Tree:
    """``src`` parsed, or :class:`ParseTooSlow` once its deadline passes (the parser is reset
    for its next file). tree-sitter looks at a deadline only when it reads the source through a
    callback, which costs little (commons-lang's StringUtils.java, 395 KB: 14-25 ms against
    16-22 ms for a plain parse)."""
    deadline = time.monotonic() + PARSE_SECONDS + PARSE_SECONDS_PER_MB * len(src) / 1e6
    try:
        return parser.parse(
            lambda offset, _point: src[offset : offset + _READ_BYTES],
            progress_callback=lambda *_state: time.monotonic() > deadline,
        )
    except ValueError as exc:  # "Parsing failed": halted by the callback
        parser.reset()
        raise ParseTooSlow from exc


def module_prefix(path: str, language: str, root: Node) -> tuple[str, ...]:
    """The leading qualified-name parts every definition of this file gets."""
    p = PurePosixPath(path)
    if language == "python":
        parts = list(p.with_suffix("").parts)
        if "src" in parts[:-1]:
            # a src layout anywhere (a monorepo's ``services/api/src/api/app.py``, an unpacked
            # ``pkg-1.0/src/pkg/core.py``): the import path starts inside the last one
            parts = parts[len(parts) - parts[::-1].index("src") :]
        elif parts and parts[0] == "lib":
            parts = parts[1:]
        # nor is a folder whose name is no identifier imported (``jaconv-0.5.0/``, ``my-app/``)
        unimportable = [i for i, part in enumerate(parts[:-1]) if not part.isidentifier()]
        if unimportable:
            parts = parts[unimportable[-1] + 1 :]
        if parts and parts[-1] == "__init__":
            parts = parts[:-1]
        return tuple(parts) or (p.stem,)
    for child in root.named_children:
        if language == "java" and child.type == "package_declaration":
            for sub in child.named_children:
                if sub.type in ("scoped_identifier", "identifier"):
                    return tuple(split_scoped(node_text(sub)))
        if language == "go" and child.type == "package_clause":
            return (
                tuple(split_scoped(node_text(child.named_children[0])))
                if child.named_children
                else ()
            )
        if (
            language == "php"
            and child.type == "namespace_definition"
            and child.child_by_field_name("body") is None
        ):
            return tuple(split_scoped(node_text(child.child_by_field_name("name"))))
        if language == "csharp" and child.type == "file_scoped_namespace_declaration":
            return tuple(split_scoped(node_text(child.child_by_field_name("name"))))
    if language in ("ruby", "csharp", "java"):
        return ()
    stem = p.stem
    if stem in ("mod", "lib", "main", "index") and len(p.parts) > 1:
        stem = p.parent.name
    return (stem,) if stem else ()
