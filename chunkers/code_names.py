"""A definition's name as code writes it: a node's text, a scoped name's parts, a C declarator's name, generics left out."""

from __future__ import annotations

from tree_sitter import Node


def node_text(node: Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "replace")


def _strip_generics(name: str) -> str:
    depth = 0
    out = []
    for ch in name:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    return "".join(out).strip()


def split_scoped(name: str) -> list[str]:
    """``a::b::C``, ``A\\B`` or ``a.b`` -> parts; generic arguments dropped."""
    name = _strip_generics(name).replace("::", ".").replace("\\", ".")
    return [p for p in (s.strip().strip("&*") for s in name.split(".")) if p]


_DECLARATOR_NAMES = frozenset(
    {
        "identifier",
        "field_identifier",
        "qualified_identifier",
        "destructor_name",
        "operator_name",
        "type_identifier",
        "template_function",
        "operator_cast",
    }
)


def c_declarator_name(node: Node) -> str:
    """Dig through pointer/function/reference declarators to the declared name."""
    cur: Node | None = node
    for _ in range(16):
        if cur is None:
            return ""
        if cur.type in _DECLARATOR_NAMES:
            return node_text(cur)
        nxt = cur.child_by_field_name("declarator")
        if nxt is None:
            for child in cur.named_children:
                if child.type in _DECLARATOR_NAMES or child.type.endswith("declarator"):
                    nxt = child
                    break
        cur = nxt
    return ""
