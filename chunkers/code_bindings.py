"""The module-level names a file binds besides its definitions (``g = LocalProxy(...)``, a Ruby constant): the symbol table knows them too."""

from __future__ import annotations

from tree_sitter import Node

from .code_names import node_text

#: Statements that bind names at module level, by language: the statement's node types.
_BINDINGS = {
    "python": frozenset({"expression_statement"}),
    "javascript": frozenset({"lexical_declaration", "variable_declaration", "export_statement"}),
    "go": frozenset({"var_declaration", "const_declaration"}),
    "rust": frozenset({"const_item", "static_item"}),
    "ruby": frozenset({"assignment"}),
}


def module_bindings(node: Node, language: str) -> list[str]:
    """The names a module-level statement binds that are not definitions of their own: a
    variable or constant (``g = LocalProxy(...)``, ``export const ZodType = ...``, ``var ErrBad
    = ...``, ``MAX = 10``). Users ask for these by name as they ask for functions."""
    if node.type not in _BINDINGS.get(language, ()):
        return []
    if language == "python":
        out = []
        for child in node.named_children:
            left = child.child_by_field_name("left") if child.type == "assignment" else None
            if left is not None and left.type == "identifier":
                out.append(node_text(left))
        return out
    if language in ("javascript", "typescript", "tsx"):
        if node.type == "export_statement":
            inner = node.child_by_field_name("declaration")
            return module_bindings(inner, language) if inner is not None else []
        return [
            node_text(name)
            for d in node.named_children
            if d.type == "variable_declarator"
            and (name := d.child_by_field_name("name")) is not None
            and name.type == "identifier"
        ]
    if language == "go":
        specs = [c for c in node.named_children if c.type in ("var_spec", "const_spec")]
        for group in (c for c in node.named_children if c.type.endswith("_spec_list")):
            specs.extend(c for c in group.named_children if c.type in ("var_spec", "const_spec"))
        return [
            node_text(spec.child(i))
            for spec in specs
            for i in range(spec.child_count)
            if spec.field_name_for_child(i) == "name"
        ]
    if language == "rust":
        return [node_text(node.child_by_field_name("name"))]
    if language == "ruby":
        left = node.child_by_field_name("left")
        return [node_text(left)] if left is not None and left.type == "constant" else []
    return []
