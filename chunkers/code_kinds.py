"""Which syntax nodes are definitions, language by language: functions and classes, and those a grammar writes otherwise (a C declaration's declarator, a Zig container, an Elixir call, a Lua or JavaScript function assigned to a name)."""

from __future__ import annotations

import re
from collections.abc import Callable

from tree_sitter import Node

from .code_langs import (
    ELIXIR_DOC_ATTRIBUTES,
)
from .code_names import c_declarator_name, node_text, split_scoped

FUNCTION_VALUES = frozenset(
    {
        "arrow_function",
        "function_expression",
        "function",
        "generator_function",
        "generator_function_expression",
    }
)

ZIG_TYPES = frozenset(
    {"struct_declaration", "enum_declaration", "union_declaration", "opaque_declaration"}
)

ELIXIR_MODULES = frozenset({"defmodule", "defprotocol", "defimpl"})

ELIXIR_FUNCTIONS = frozenset(
    {"def", "defp", "defmacro", "defmacrop", "defguard", "defguardp", "defdelegate"}
)

C_WRAPPERS = frozenset({"declaration", "type_definition", "field_declaration"})

DECORATION = frozenset({"attribute_item", "attribute_list", "decorator", "annotation"})

_PLAIN_NAME = re.compile(r"[\w$]+(?:\.[\w$]+)*")


def assigned_name(assignment: Node, function: Node) -> str:
    """The name a function assigned to a property is called by: ``app.handle = function ...``
    is ``app.handle``, ``Foo.prototype.bar = ...`` is ``Foo.bar``; assigned to ``module.exports``
    or ``exports`` (or to something that is not a plain name) it is the function's own name."""
    left = node_text(assignment.child_by_field_name("left"))
    parts = [p for p in split_scoped(left) if p != "prototype"]
    if not parts or parts[-1] in ("exports", "module") or not _PLAIN_NAME.fullmatch(left):
        return node_text(function.child_by_field_name("name"))
    return ".".join(parts)


def _exported_function(value: Node | None) -> tuple[str, Node, str] | None:
    """The function a JavaScript module exports as an expression: ``export default function
    () {…}``, or one chosen when the module loads, ``export default isSupported && function
    httpAdapter(config) {…}`` (axios's adapters). Named by its own name, else ``default``."""
    while value is not None and value.type in ("binary_expression", "parenthesized_expression"):
        if value.type == "binary_expression":
            value = value.child_by_field_name("right")
        else:
            value = value.named_children[0] if value.named_children else None
    if value is None or value.type not in FUNCTION_VALUES:
        return None
    name = value.child_by_field_name("name")
    return ("function", value, node_text(name) if name is not None else "default")


class DefinitionKinds:
    """Which syntax nodes are definitions, language by language: functions and classes, and those a grammar writes otherwise (a C declaration's declarator, a Zig container, an Elixir call, a Lua or JavaScript function assigned to a name)."""

    # ------------------------------------------------------------- structure
    def _classify(self, node: Node, in_class: bool) -> tuple[str, Node, str] | None:
        """(kind, definition node, name override) for a definition-ish node, else None."""
        spec = self.spec
        t = node.type
        if t == "decorated_definition" or t == "export_statement":
            inner = node.child_by_field_name(
                "definition" if t == "decorated_definition" else "declaration"
            )
            if inner is None and t == "export_statement":
                return _exported_function(node.child_by_field_name("value"))
            return self._classify(inner, in_class) if inner is not None else None
        if t == "template_declaration":
            for child in reversed(node.named_children):
                found = self._classify(child, in_class)
                if found is not None:
                    return found
            return None
        if t in spec.functions:
            if self._body(node) is None:
                return None
            return ("function", node, "")
        if t in spec.classes:
            if self.language == "go":
                specs = [c for c in node.named_children if c.type == "type_spec"]
                if len(specs) != 1:
                    return None
                if specs[0].child_by_field_name("type") is None:
                    return None
                return ("class", specs[0], "")
            if self.language in ("c", "cpp") and node.child_by_field_name("body") is None:
                return None
            return ("class", node, "")
        if t in spec.containers:
            return ("container", node, "")
        if t in spec.transparent or t == "ERROR":
            # a region the grammar could not parse (macros a C++ header wraps its code in, an
            # unknown annotation) still holds whole definitions: they are found inside it
            return ("transparent", node, "")
        special = _LANGUAGE_DEFINITIONS.get(self.language)
        return special(self, node, in_class) if special is not None else None

    def _c_wrapped(self, node: Node, in_class: bool) -> tuple[str, Node, str] | None:
        """``typedef struct {...} name;`` and ``struct s {...} x;``: the struct is the class."""
        if node.type not in C_WRAPPERS:
            return None
        typ = node.child_by_field_name("type")
        if (
            typ is None
            or typ.type not in self.spec.classes
            or typ.child_by_field_name("body") is None
        ):
            return None
        name = node_text(typ.child_by_field_name("name"))
        if not name:
            decl = node.child_by_field_name("declarator")
            name = c_declarator_name(decl) if decl is not None else ""
        return ("class", typ, name)

    def _zig_container(self, node: Node, in_class: bool) -> tuple[str, Node, str] | None:
        """``const Name = struct {...};``: the struct (enum, union) is the class."""
        if node.type != "variable_declaration":
            return None
        value = next((c for c in node.named_children if c.type in ZIG_TYPES), None)
        if value is None:
            return None
        return ("class", value, node_text(node.named_children[0]))

    def _elixir_call(self, node: Node, in_class: bool) -> tuple[str, Node, str] | None:
        """``defmodule Name do ... end`` is a class, ``def name(args) do ... end`` a function."""
        if node.type != "call":
            return None
        target = node_text(node.child_by_field_name("target"))
        args = next((c for c in node.named_children if c.type == "arguments"), None)
        if args is None or not args.named_children:
            return None
        first = args.named_children[0]
        if target in ELIXIR_MODULES:
            return ("class", node, node_text(first))
        if target in ELIXIR_FUNCTIONS:
            while first.type in ("binary_operator", "call") and first.named_children:
                # ``name(args) when guard`` and ``name(args)``: the name is the call's target
                inner = first.child_by_field_name("left") or first.child_by_field_name("target")
                if inner is None:
                    break
                first = inner
            return ("function", node, node_text(first))
        return None

    def _lua_assigned(self, node: Node, in_class: bool) -> tuple[str, Node, str] | None:
        """``M.name = function(...) ... end``: a function named by what it is assigned to."""
        if node.type != "assignment_statement":
            return None
        names = next((c for c in node.named_children if c.type == "variable_list"), None)
        values = next((c for c in node.named_children if c.type == "expression_list"), None)
        if names is None or values is None or values.named_child_count != 1:
            return None
        value = values.named_children[0]
        if value.type != "function_definition":
            return None
        return ("function", value, node_text(names))

    def _js_bound(self, node: Node, in_class: bool) -> tuple[str, Node, str] | None:
        """A function or class bound to a name: ``const f = () => …``, ``app.handle = function
        …`` (also chained, ``req.get = req.header = function …``), a class field holding one."""
        t = node.type
        if t in ("lexical_declaration", "variable_declaration"):
            decls = [c for c in node.named_children if c.type == "variable_declarator"]
            if len(decls) == 1:
                value = decls[0].child_by_field_name("value")
                if value is not None and value.type in FUNCTION_VALUES:
                    return ("function", value, node_text(decls[0].child_by_field_name("name")))
                if value is not None and value.type == "class":
                    return ("class", value, node_text(decls[0].child_by_field_name("name")))
        if t == "assignment_expression":
            value = node.child_by_field_name("right")
            while value is not None and value.type == "assignment_expression":
                value = value.child_by_field_name("right")
            if value is not None and value.type in FUNCTION_VALUES:
                return ("function", value, assigned_name(node, value))
        if in_class and t in ("public_field_definition", "field_definition"):
            value = node.child_by_field_name("value")
            if value is not None and value.type in FUNCTION_VALUES:
                name = node.child_by_field_name("name") or node.child_by_field_name("property")
                return ("function", value, node_text(name))
        return None

    def _annotates(self, node: Node) -> bool:
        """Whether a node only describes the definition after it (a comment, a decorator, an
        elixir ``@doc``), so that definition's leading block may reach above it."""
        if "comment" in node.type or node.type in DECORATION or node.type == "haddock":
            return True
        return self.language == "elixir" and node_text(node).startswith(ELIXIR_DOC_ATTRIBUTES)


#: Definitions that only some languages write, beyond the node types of their Spec.
_LANGUAGE_DEFINITIONS: dict[
    str, Callable[[DefinitionKinds, Node, bool], tuple[str, Node, str] | None]
] = {
    "c": DefinitionKinds._c_wrapped,
    "cpp": DefinitionKinds._c_wrapped,
    "zig": DefinitionKinds._zig_container,
    "elixir": DefinitionKinds._elixir_call,
    "lua": DefinitionKinds._lua_assigned,
    "javascript": DefinitionKinds._js_bound,
    "typescript": DefinitionKinds._js_bound,
    "tsx": DefinitionKinds._js_bound,
}
