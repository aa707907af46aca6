"""What a definition's chunk says about it besides its code: a compact signature, the first sentence of its doc comment, a class's fields."""

from __future__ import annotations

import re
from typing import Any

from groundls.chunkers.code_names import c_declarator_name, node_text
from tree_sitter import Node

_WS = re.compile(r"\s+")


def compact(text: str, limit: int = 200) -> str:
    text = _WS.sub(" ", text).strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


_TAGS = re.compile(r"<[^>]{1,40}>|\{@\w+\s+([^}]*)\}")


_SENTENCE_END = re.compile(r"(?<=[.!?])\s|。")


def first_sentence(doc: str, limit: int = 160) -> str:
    """First sentence of a docstring/comment (markers and HTML/Javadoc tags removed)."""
    lines = []
    for raw in doc.splitlines():
        line = raw.strip()
        for marker in ("/**", "/*!", "/*", "*/", "///", "//!", "//", "#", "*", '"""', "'''", "--"):
            if line.startswith(marker):
                line = line[len(marker) :].strip()
        if line.endswith("*/"):
            line = line[:-2].strip()
        for quote in ('"""', "'''"):
            if line.endswith(quote):
                line = line[:-3].strip()
        if not line:
            if lines:
                break
            continue
        if line.startswith("@") or line.startswith(":param") or line.startswith(":return"):
            break
        lines.append(line)
    text = _TAGS.sub(lambda m: m.group(1) or "", " ".join(lines))
    text = _WS.sub(" ", text).strip()
    m = _SENTENCE_END.search(text)
    if m:
        text = text[: m.start() + (1 if m.group(0) == "。" else 0)].strip()
    return compact(text, limit)


def python_docstring(body: Node | None) -> str:
    if body is None:
        return ""
    for child in body.named_children:
        if child.type == "comment":
            continue
        if child.type == "expression_statement" and child.named_children:
            first = child.named_children[0]
            if first.type in ("string", "concatenated_string"):
                return node_text(first)
        return ""
    return ""


def _declarator_names(node: Node) -> list[str]:
    names: list[str] = []
    for decl in node.children_by_field_name("declarator"):
        if decl.type == "variable_declarator":
            names.append(node_text(decl.child_by_field_name("name")))
        elif "function_declarator" in _descendant_types(decl, 3):
            continue
        else:
            names.append(c_declarator_name(decl))
    return names


def _descendant_types(node: Node, depth: int) -> set[str]:
    seen = {node.type}
    frontier = [node]
    for _ in range(depth):
        frontier = [c for n in frontier for c in n.named_children]
        seen.update(c.type for c in frontier)
    return seen


def field_names(node: Node, language: str) -> list[str]:
    """Names declared by one class-body member that is not a method (fields, properties, consts)."""
    t = node.type
    names: list[str] = []
    if language == "python":
        if t == "expression_statement" and node.named_children:
            first = node.named_children[0]
            if first.type == "assignment":
                left = first.child_by_field_name("left")
                if left is not None and left.type == "identifier":
                    names.append(node_text(left))
        return names
    if language == "ruby":
        if t == "call" and node_text(node.child_by_field_name("method")).startswith("attr_"):
            args = node.child_by_field_name("arguments")
            if args is not None:
                names.extend(
                    node_text(a).lstrip(":")
                    for a in args.named_children
                    if a.type == "simple_symbol"
                )
        return names
    if t in (
        "field_declaration",
        "property_declaration",
        "public_field_definition",
        "field_definition",
        "property_signature",
        "event_field_declaration",
        "const_declaration",
        "enum_constant",
        "enum_variant",
        "enum_assignment",
    ):
        found = [node_text(n) for n in node.children_by_field_name("name")]
        if not found:
            found = _declarator_names(node)
        if not found and node.child_by_field_name("property") is not None:
            found = [node_text(node.child_by_field_name("property"))]
        if not found:
            for child in node.named_children:
                if child.type == "variable_declaration":
                    found.extend(
                        node_text(v.child_by_field_name("name"))
                        for v in child.named_children
                        if v.type == "variable_declarator"
                    )
                elif child.type in ("property_element", "const_element"):
                    sub = child.child_by_field_name("name") or (
                        child.named_children[0] if child.named_children else None
                    )
                    found.append(node_text(sub).lstrip("$"))
        names.extend(n for n in found if n)
    return names


_SELF_WALK = frozenset(
    {
        "block",
        "if_statement",
        "else_clause",
        "elif_clause",
        "try_statement",
        "except_clause",
        "finally_clause",
        "with_statement",
        "for_statement",
        "while_statement",
        "expression_statement",
    }
)


def python_self_attributes(init: Node, limit: int = 40) -> list[str]:
    """``self.x = ...`` targets inside ``__init__``, in source order."""
    names: list[str] = []
    stack: list[Any] = [init]
    visited = 0
    while stack and visited < 5000:
        node = stack.pop()
        visited += 1
        if node.type in ("assignment", "augmented_assignment"):
            left = node.child_by_field_name("left")
            targets = [left] if left is not None and left.type == "attribute" else []
            if left is not None and left.type in ("pattern_list", "tuple_pattern"):
                targets = [c for c in left.named_children if c.type == "attribute"]
            for target in targets:
                obj = target.child_by_field_name("object")
                attr = target.child_by_field_name("attribute")
                if obj is not None and node_text(obj) == "self" and attr is not None:
                    names.append(node_text(attr))
        if node is init or node.type in _SELF_WALK:
            stack.extend(reversed(node.named_children))
        if len(names) >= limit:
            break
    return names
