"""A small workspace whose docs name its code and whose tests call it, and the real language
server over stdio on it, for the tests of the editor's standard requests (symbols, references,
definitions, lenses, code actions)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.helpers.raw_lsp import RawServer

FILES = {
    "src/shop/cart.py": '''"""A shopping cart."""


class Cart:
    """Items and their prices."""

    def __init__(self):
        self.items = []

    def add_item(self, name, price):
        """Add one item at a price."""
        self.items.append((name, price))

    def cart_total(self):
        return sum(p for _, p in self.items)


def apply_discount(cart, percent):
    """Take a percentage off the cart's total."""
    total = cart.cart_total()
    return total - total * percent / 100
''',
    "src/shop/checkout.py": """from shop.cart import Cart, apply_discount


def checkout(names):
    cart = Cart()
    for name in names:
        cart.add_item(name, 10)
    return apply_discount(cart, 5)


def quick_checkout(cart):
    return apply_discount(cart, 0) + apply_discount(cart, 1)
""",
    "src/shop/shipping.go": """package shop

// ShippingCost is the price of sending a parcel of the given weight.
func ShippingCost(weight float64) float64 {
	return 4.5 + weight*0.8
}
""",
    "tests/test_cart.py": """from shop.cart import Cart, apply_discount


def test_apply_discount_takes_percent_off():
    cart = Cart()
    cart.add_item("pen", 100)
    assert apply_discount(cart, 10) == 90


def test_cart_total_sums_prices():
    cart = Cart()
    cart.add_item("pen", 1)
    assert cart.cart_total() == 1
""",
    "docs/guide.md": """# Guide

## Discounts

Use `apply_discount` to take a percentage off a cart. It reads `Cart.cart_total()`
and never changes the cart.

## Adding items

Call ``Cart.add_item`` with a name and a price:

```python
cart.add_item("pen", 3)
```

## Shipping

A parcel's price comes from `ShippingCost`; the `checkout` total leaves it out.
""",
    "docs/api.rst": """API
===

Carts
-----

:func:`shop.cart.apply_discount` returns the discounted total.
See :meth:`~shop.cart.Cart.add_item` for adding items.
""",
    "docs/page.html": """<html><body><h1>Reference</h1>
<p>The function <code>apply_discount</code> takes a percentage off a cart's total.</p>
</body></html>
""",
}

#: Answers without the answer model (fast, no model words), every surface on.
INIT_OPTIONS = {"groundls": {"answer": {"usePackagedModel": False, "modelPath": ""}}}

CAPABILITIES: dict[str, Any] = {
    "workspace": {"symbol": {}, "workspaceFolders": True, "codeLens": {"refreshSupport": True}},
    "textDocument": {
        "references": {},
        "definition": {"linkSupport": False},
        "codeLens": {},
        "codeAction": {
            "codeActionLiteralSupport": {
                "codeActionKind": {"valueSet": ["", "quickfix", "refactor", "source"]}
            }
        },
    },
    "window": {"showDocument": {"support": True}},
}


def write_workspace(root: Path, extra: dict[str, str] | None = None) -> Path:
    for rel, text in {**FILES, **(extra or {})}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def start(tmp: Path, init_options: Any = None, extra: dict[str, str] | None = None) -> RawServer:
    """The real server on a fresh copy of the workspace, its first index finished."""
    root = write_workspace(tmp / "ws", extra)
    server = RawServer(tmp / "index", cwd=tmp)
    server.root = root  # type: ignore[attr-defined]
    server.index_dir = tmp / "index"  # type: ignore[attr-defined]
    msg_id = server.request(
        "initialize",
        {
            "processId": None,
            "rootUri": root.as_uri(),
            "capabilities": CAPABILITIES,
            "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            "initializationOptions": INIT_OPTIONS if init_options is None else init_options,
        },
    )
    server.init_result = server.reply(msg_id, timeout=60)["result"]  # type: ignore[attr-defined]
    server.notify("initialized", {})
    server.wait_for(lambda m: "indexed" in m.get("params", {}).get("message", ""), 180)
    return server


def ask(server: RawServer, method: str, params: Any, timeout: float = 60.0) -> Any:
    """A request's result (an error reply fails the test, naming it)."""
    reply = server.reply(server.request(method, params), timeout)
    assert "error" not in reply, json.dumps(reply["error"])
    return reply["result"]


def settled(server: RawServer, timeout: float = 180.0) -> None:
    """Wait until no folder indexes and the deep tier is filled (rankings move while it fills)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = ask(server, "workspace/executeCommand", {"command": "groundls.status"})
        if all(not f["indexing"] and not f["deepTier"] for f in status["folders"]):
            return
        time.sleep(0.2)
    raise AssertionError("the index did not settle")


def uri(server: RawServer, rel: str) -> str:
    return (server.root / rel).as_uri()  # type: ignore[attr-defined]


def rel_of(server: RawServer, location: dict[str, Any]) -> str:
    root = server.root.as_uri()  # type: ignore[attr-defined]
    assert location["uri"].startswith(root + "/"), location["uri"]
    return location["uri"][len(root) + 1 :]


def position(server: RawServer, rel: str, needle: str, nth: int = 0) -> dict[str, int]:
    """The position of the ``nth`` occurrence of ``needle`` in a workspace file: where its
    ``|`` stands (``def apply|_discount``), else on its second character."""
    cursor = needle.find("|")
    needle = needle.replace("|", "")
    lines = (server.root / rel).read_text().splitlines()  # type: ignore[attr-defined]
    seen = 0
    for n, line in enumerate(lines):
        at = line.find(needle)
        while at >= 0:
            if seen == nth:
                return {"line": n, "character": at + (cursor if cursor >= 0 else 1)}
            seen += 1
            at = line.find(needle, at + 1)
    raise AssertionError(f"{needle!r} not in {rel}")


def serving(tmp: Path, **kwargs: Any) -> Iterator[RawServer]:
    server = start(tmp, **kwargs)
    try:
        yield server
    finally:
        server.close()
