"""Tests for the tree-sitter code chunker, against the real grammars and small fixture files."""

from __future__ import annotations

from pathlib import Path

import pytest
from groundls.chunkers import MEMBERS, Chunk, ChunkOptions, chunk_file, code_langs
from groundls.chunkers.base import CHUNK_ID_RE, content_hash
from groundls.chunkers.code import code_pieces
from groundls.chunkers.gloss import comment_lines

FIXTURES = Path(__file__).parents[1] / "fixtures" / "code"


def read(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def line_of(text: str, needle: str, start: int = 1, exact: bool = False) -> int:
    """1-based number of the first line at or after ``start`` containing (or, exact, being) it."""
    for number, line in enumerate(text.split("\n"), 1):
        if number >= start and (line.strip() == needle if exact else needle in line):
            return number
    raise AssertionError(f"{needle!r} not in fixture")


def only(chunks: list[Chunk], title: str) -> Chunk:
    found = [c for c in chunks if c.title == title]
    assert len(found) == 1, (title, [c.title for c in chunks])
    return found[0]


def titles(chunks: list[Chunk]) -> set[tuple[str, str]]:
    return {(c.title, c.text_type) for c in chunks}


# --------------------------------------------------------------------------- python


@pytest.fixture(scope="module")
def cart_py() -> tuple[str, list[Chunk]]:
    text = read("cart.py")
    return text, chunk_file("src/shop/cart.py", text)


def test_python_functions_methods_and_nested_classes_get_qualified_names(cart_py):
    _, chunks = cart_py
    assert {
        ("shop.cart.Cart", "class"),
        ("shop.cart.Cart.__init__", "method"),
        ("shop.cart.Cart.total", "method"),
        ("shop.cart.Cart.add", "method"),
        ("shop.cart.Cart.Item", "class"),
        ("shop.cart.Cart.Item.__init__", "method"),
        ("shop.cart.Cart.Item.describe", "method"),
        ("shop.cart.checkout", "function"),
    } <= titles(chunks)
    add = only(chunks, "shop.cart.Cart.add")
    assert add.symbol == "add"
    assert add.signature == "def add(self, item, quantity=1):"
    assert add.breadcrumb == ("shop", "cart", "Cart", "add")


def test_python_method_chunk_starts_at_its_decorator_and_ends_with_the_def(cart_py):
    text, chunks = cart_py
    total = only(chunks, "shop.cart.Cart.total")
    assert total.start_line == line_of(text, "@property")
    assert total.end_line == line_of(text, "return round(subtotal")
    assert total.text.split("\n")[0].strip() == "@property"


def test_function_chunk_text_is_exactly_its_source_lines(cart_py):
    text, chunks = cart_py
    lines = text.split("\n")
    for c in chunks:
        if c.text_type in ("function", "method"):
            assert c.text == "\n".join(lines[c.start_line - 1 : c.end_line]), c.title


def test_python_class_header_lists_member_signatures_without_bodies(cart_py):
    _, chunks = cart_py
    header = only(chunks, "shop.cart.Cart")
    assert "class Cart:" in header.text
    assert "A shopping cart that holds line items." in header.text
    assert 'currency = "EUR"' in header.text
    assert "def add(self, item, quantity=1):" in header.text
    assert "@property" in header.text and "def total(self):" in header.text
    assert "class Item:" in header.text
    assert "self.items.append" not in header.text
    assert "raise ValueError" not in header.text
    assert "self.name = name" not in header.text


def test_python_closure_stays_inside_its_parent_function(cart_py):
    _, chunks = cart_py
    assert not [c for c in chunks if c.title.endswith(".check")]
    assert "def check(q):" in only(chunks, "shop.cart.Cart.add").text


def test_method_context_names_path_class_doc_fields_and_signature(cart_py):
    _, chunks = cart_py
    add = only(chunks, "shop.cart.Cart.add")
    context = add.embed_text[: add.embed_text.index(add.text)]
    assert context.startswith("src/shop/cart.py\nshop.cart.Cart.add\n")
    assert "class Cart: A shopping cart that holds line items." in context
    assert "It also knows its owner" not in context
    assert "fields: currency, owner, items" in context
    assert "def add(self, item, quantity=1):" in context
    assert len(context) < 400


def test_python_module_code_becomes_module_pieces_and_a_tiny_function_is_merged(cart_py):
    _, chunks = cart_py
    module = [c for c in chunks if c.text_type == "module"]
    assert len(module) == 1
    assert "import json" in module[0].text and "TAX_RATE" in module[0].text
    assert "def _log(msg):" in module[0].text
    assert not [c for c in chunks if c.title == "shop.cart._log"]


def test_japanese_comment_is_kept_in_its_function_chunk(cart_py):
    _, chunks = cart_py
    assert "合計金額を計算して JSON を返す" in only(chunks, "shop.cart.checkout").text


@pytest.mark.parametrize(
    ("path", "title"),
    [
        ("src/shop/__init__.py", "shop.helper"),
        ("services/api/src/api/app.py", "api.app.helper"),
        ("pykakasi-2.3.0/src/pykakasi/kanji.py", "pykakasi.kanji.helper"),
        ("lib/pkg/sub/mod.py", "pkg.sub.mod.helper"),
        ("numpy/lib/utils.py", "numpy.lib.utils.helper"),
        ("jaconv-0.5.0/jaconv/jaconv.py", "jaconv.jaconv.helper"),
        ("my-app/api/views.py", "api.views.helper"),
        ("tools/run.py", "tools.run.helper"),
        ("setup.py", "setup.helper"),
    ],
)
def test_python_module_path_is_what_imports_it_inside_src_layouts_and_unimportable_folders(
    path, title
):
    chunks = chunk_file(path, "def helper(value):\n    return value * 2 + 1  # doubled plus one\n")
    assert [c.title for c in chunks] == [title]


def test_python_defs_inside_module_level_if_blocks_are_found():
    text = (
        "import sys\n\nCONSOLE_ENCODING = 'utf-8'  # shared by both variants below\n\n"
        "if sys.platform == 'win32':\n"
        "    def open_console(name):\n"
        "        return f'windows console for {name}'\n"
        "else:\n"
        "    def open_console(name):\n"
        "        return f'posix terminal for {name}'\n"
    )
    chunks = chunk_file("term.py", text)
    consoles = [c for c in chunks if c.title == "term.open_console"]
    # the bare ``else:`` line is too small to stand alone and joins the first variant
    assert [(c.start_line, c.end_line) for c in consoles] == [(6, 8), (9, 10)]
    assert len({c.id for c in consoles}) == 2


# --------------------------------------------------------------------- other languages

LANGUAGE_CASES = {
    "java": (
        "Inventory.java",
        "src/main/java/com/example/store/Inventory.java",
        [
            ("com.example.store.Inventory", "class", "/**", "private int revision;"),
            ("com.example.store.Inventory.Inventory", "method", "/** Creates", "}"),
            ("com.example.store.Inventory.add", "method", None, "}"),
            ("com.example.store.Inventory.totalCount", "method", "public int totalCount", None),
            ("com.example.store.Inventory.Entry", "class", "/** One product line. */", None),
            ("com.example.store.Inventory.Entry.Entry", "method", "Entry(String name", None),
            ("com.example.store.Inventory.Status", "class", "enum Status", None),
            ("com.example.store.Inventory.Status.isOpen", "method", "boolean isOpen", None),
        ],
    ),
    "go": (
        "store.go",
        "internal/store/store.go",
        [
            ("store.Item", "class", "// Item is one product", "Qty   int"),
            ("store.Item.Total", "method", "// Total returns", "}"),
            ("store.NewItem", "function", "// NewItem builds", None),
            ("store.Pricer", "class", "// Pricer computes", None),
        ],
    ),
    "rust": (
        "inventory.rs",
        "src/inventory.rs",
        [
            ("inventory.Item", "class", "/// A product", "pub cents: u64,"),
            ("inventory.Item (impl)", "extension", "impl Item {", None),
            ("inventory.Item (impl fmt::Display)", "extension", "impl fmt::Display", None),
            ("inventory.Item.new", "method", "/// Creates a new item", None),
            ("inventory.Item.euros", "method", "pub fn euros", None),
            ("inventory.Item.fmt", "method", "fn fmt(", None),
            ("inventory.Priced", "class", "pub trait Priced", None),
            ("inventory.Priced.discounted", "method", "fn discounted", None),
            ("inventory.tests.it_builds_an_item", "function", None, None),
            # a doc line that ends like a block comment is still a line comment
            ("inventory.item", "class", "/// Builds an item in one line", None),
        ],
    ),
    "c": (
        "list.c",
        "src/list.c",
        [
            ("list.node", "class", "/* A node", None),
            ("list.list_t", "class", "typedef struct {", "} list_t;"),
            ("list.list_push", "function", "/* Push a value", "}"),
            ("list.list_length", "function", "static size_t list_length", None),
        ],
    ),
    "cpp": (
        "shapes.cpp",
        "src/shapes.cpp",
        [
            ("shapes.geo.Shape", "class", "// Base class", None),
            ("shapes.geo.Circle", "class", "class Circle", None),
            ("shapes.geo.Circle.area", "method", "double area() const override", None),
            ("shapes.geo.Circle.perimeter", "method", "double Circle::perimeter", None),
        ],
    ),
    "csharp": (
        "Inventory.cs",
        "Store/Inventory.cs",
        [
            ("Store.Core.Inventory", "class", "/// <summary>", None),
            ("Store.Core.Inventory.Inventory", "method", "public Inventory()", None),
            ("Store.Core.Inventory.Add", "method", "public void Add", None),
        ],
    ),
    "ruby": (
        "cart.rb",
        "lib/shop/cart.rb",
        [
            # the namespace is reopened here; ``lib/shop.rb`` would define it
            ("Shop", "extension", "module Shop", "module Shop"),
            ("Shop.Cart", "class", "# A cart full", None),
            ("Shop.Cart.initialize", "method", "def initialize", None),
            ("Shop.Cart.add", "method", "def add", None),
            ("Shop.Cart.build", "method", "def self.build", None),
        ],
    ),
    "php": (
        "User.php",
        "app/Models/User.php",
        [
            ("App.Models.User", "class", "/**", None),
            ("App.Models.User.getName", "method", "public function getName", None),
            ("App.Models.User.fromArray", "method", "public static function fromArray", None),
            ("App.Models.normalize_email", "function", "function normalize_email", None),
        ],
    ),
    "javascript": (
        "cart.js",
        "web/cart.js",
        [
            ("cart.Cart", "class", "/** A cart", None),
            ("cart.Cart.constructor", "method", "constructor(owner)", None),
            ("cart.Cart.add", "method", "add(item, quantity = 1)", None),
            ("cart.Cart.empty", "method", "static empty", None),
            ("cart.total", "function", "export function total", None),
            ("cart.describe", "function", "export const describe", "};"),
        ],
    ),
    "typescript": (
        "cart.ts",
        "web/cart.ts",
        [
            ("cart.Item", "class", "export interface Item", None),
            ("cart.Cart", "class", "/** A typed cart. */", None),
            ("cart.Cart.add", "method", "add(item: T", None),
            ("cart.Cart.total", "method", "get total()", None),
            ("cart.Util.clamp", "function", "export namespace Util", "}"),
            ("cart.format", "function", "export const format", None),
        ],
    ),
    "kotlin": (
        "Cart.kt",
        "src/main/kotlin/shop/Cart.kt",
        [
            ("Cart.Cart", "class", "/** A cart of line items", None),
            ("Cart.Cart.add", "method", "/** Adds an item", "}"),
            ("Cart.Cart.empty", "method", "fun empty", None),  # a companion object's member
            ("Cart.total", "function", "fun total", "}"),
        ],
    ),
    "scala": (
        "Cart.scala",
        "src/main/scala/shop/Cart.scala",
        [
            ("Cart.Cart.add", "method", "def add", "}"),
            ("Cart.Cart.empty", "method", "def empty", None),
            ("Cart.Priced", "class", "trait Priced", None),
            ("Cart.Priced.discounted", "method", "def discounted", None),
        ],
    ),
    "swift": (
        "Cart.swift",
        "Sources/Shop/Cart.swift",
        [
            ("Cart.Cart.init", "method", "init(owner: String)", None),
            ("Cart.Cart.add", "method", "/// Adds an item", "}"),
            ("Cart.Cart.total", "method", "func total", None),
        ],
    ),
    "lua": (
        "cart.lua",
        "lua/shop/cart.lua",
        [
            ("cart.M.total", "method", "function M:total", None),
            ("cart.M.describe", "method", "M.describe = function", None),
        ],
    ),
    "bash": (
        "build.sh",
        "scripts/build.sh",
        [
            ("build.usage", "function", None, "}"),
            ("build.package_release", "function", "function package_release", None),
        ],
    ),
    "zig": (
        "cart.zig",
        "src/cart.zig",
        [
            ("cart.Cart", "class", "/// A cart of line items", None),
            ("cart.Cart.add", "method", "/// Adds an item", "}"),
            ("cart.describe", "function", "pub fn describe", "}"),
        ],
    ),
    "elixir": (
        "cart.ex",
        "lib/shop/cart.ex",
        [
            ("cart.Shop.Cart", "class", "defmodule Shop.Cart do", None),
            ("cart.Shop.Cart.add", "method", '@doc "Adds an item', "end"),
            ("cart.Shop.Cart.line_total", "method", "defp line_total", None),
            ("cart.Shop.Cart.total", "method", "def total", "end"),
        ],
    ),
    "haskell": (
        "Cart.hs",
        "src/Shop/Cart.hs",
        [
            ("Cart.Cart", "class", "-- | A cart of line items.", None),
            # a signature and a function's equations are one definition
            ("Cart.addItem", "function", "-- | Adds an item", "| otherwise = cart"),
            ("Cart.total", "function", "total :: Cart -> Int", None),
        ],
    ),
    "tsx": (
        "Button.tsx",
        "web/Button.tsx",
        [("Button.Button", "function", "export function Button", "}")],
    ),
}


@pytest.mark.parametrize("language", sorted(LANGUAGE_CASES))
def test_each_grammar_yields_qualified_names_kinds_and_line_ranges(language):
    name, path, expected = LANGUAGE_CASES[language]
    text = read(name)
    chunks = chunk_file(path, text)
    assert chunks and all(c.language == language and c.kind == "code" for c in chunks)
    for title, text_type, start_needle, end_needle in expected:
        chunk = only(chunks, title)
        assert chunk.text_type == text_type, title
        if start_needle is not None:
            assert chunk.start_line == line_of(text, start_needle), title
        if end_needle is not None:
            assert chunk.end_line == line_of(text, end_needle, chunk.start_line, exact=True), title


@pytest.mark.parametrize("language", sorted(LANGUAGE_CASES))
def test_every_fixture_gets_valid_unique_ids_and_in_range_lines(language):
    name, path, _ = LANGUAGE_CASES[language]
    text = read(name)
    chunks = chunk_file(path, text)
    n_lines = len(text.rstrip("\n").split("\n"))
    assert len({c.id for c in chunks}) == len(chunks)
    for c in chunks:
        assert CHUNK_ID_RE.match(c.id)
        assert 1 <= c.start_line <= c.end_line <= n_lines, (c.title, c.start_line, c.end_line)
        assert c.text.strip()


def test_functions_assigned_to_properties_are_definitions_named_as_called():
    text = read("app.js")
    chunks = chunk_file("lib/app.js", text)
    handle = only(chunks, "app.app.handle")
    assert handle.symbol == "handle" and handle.text_type == "method"
    assert handle.start_line == line_of(text, "/**")
    assert only(chunks, "app.Router.route").symbol == "route"  # not Router.prototype.route
    assert only(chunks, "app.createApplication").symbol == "createApplication"
    assert only(chunks, "app.exports.compileETag").symbol == "compileETag"
    # a chained assignment is named by its first name; its doc comment is its own despite
    # the blank line between them and the "text/*" inside it
    get = only(chunks, "app.req.get")
    assert get.symbol == "get" and get.start_line == line_of(text, "/**", 20)


def test_a_function_exported_as_an_expression_is_a_definition():
    # axios's adapters: ``export default isSupported && function httpAdapter(config) {…}``
    body = "\n".join(
        f"    const step{i} = await stage{i}(config, step{i - 1});" for i in range(1, 40)
    )
    text = (
        "function resolveFamily(address) {\n  return address.family;\n}\n\n"
        "export default isHttpAdapterSupported && function httpAdapter(config) {\n"
        "  return wrapAsync(async function dispatch(resolve, reject) {\n"
        f"    const step0 = config;\n{body}\n"
        "    req.setTimeout(config.timeout, () => reject(new Error('timeout')));\n"
        "  });\n}\n"
    )
    chunks = chunk_file("lib/adapters/http.js", text)
    adapter = [c for c in chunks if c.title == "http.httpAdapter"]
    assert adapter and all(c.text_type == "function" for c in adapter)
    assert any("req.setTimeout" in c.text for c in adapter)
    assert {c.text_type for c in chunks} == {"function"}  # no module windows left over
    # an anonymous one is the module's default export
    anonymous = "export default isXHRSupported && (function (config) {\n" + body + "\n});\n"
    assert {c.title for c in chunk_file("lib/adapters/xhr.js", anonymous)} == {"xhr.default"}


def test_java_class_header_has_fields_and_member_signatures_but_no_bodies():
    chunks = chunk_file("src/main/java/com/example/store/Inventory.java", read("Inventory.java"))
    header = only(chunks, "com.example.store.Inventory")
    assert "Keeps track of the stock of a store." in header.text
    assert "private int revision;" in header.text
    assert "public void add(String name, int count)" in header.text
    assert "static class Entry" in header.text
    assert "revision++" not in header.text
    assert "mapToInt" not in header.text


def test_java_method_keeps_javadoc_and_context_has_fqcn_class_doc_and_fields():
    chunks = chunk_file("src/main/java/com/example/store/Inventory.java", read("Inventory.java"))
    add = only(chunks, "com.example.store.Inventory.add")
    assert add.start_line == line_of(read("Inventory.java"), "在庫に商品を追加する。") - 1
    assert add.text.startswith("    /**\n") and "@Deprecated" in add.text
    context = add.embed_text[: add.embed_text.index(add.text)]
    assert "com.example.store.Inventory.add" in context
    assert "public class Inventory — Keeps track of the stock of a store." in context
    assert "fields: entries, revision" in context
    assert "Not thread-safe" not in context
    total = only(chunks, "com.example.store.Inventory.totalCount")
    assert "e -> e.count" in total.text  # the lambda stays in its method


def test_go_method_belongs_to_its_receiver_type_and_sees_its_fields():
    chunks = chunk_file("internal/store/store.go", read("store.go"))
    total = only(chunks, "store.Item.Total")
    assert "type Item — Item is one product with a unit price." in total.embed_text
    assert "fields: Name, Price, Qty" in total.embed_text
    new_item = only(chunks, "store.NewItem")
    assert "valid := func(q int) bool" in new_item.text


def test_rust_impl_blocks_are_separate_headers_with_their_own_ids():
    chunks = chunk_file("src/inventory.rs", read("inventory.rs"))
    impls = [c for c in chunks if "(impl" in c.title]
    assert len(impls) == 2 and len({c.id for c in impls}) == 2
    assert "pub fn new(name: &str, cents: u64) -> Self" in impls[0].text
    assert "Item { name" not in impls[0].text
    fmt = only(chunks, "inventory.Item.fmt")
    assert "fields: name, cents" in fmt.embed_text


def test_cpp_out_of_class_definition_is_a_method_of_its_class():
    chunks = chunk_file("src/shapes.cpp", read("shapes.cpp"))
    perimeter = only(chunks, "shapes.geo.Circle.perimeter")
    assert perimeter.breadcrumb == ("shapes", "geo", "Circle", "perimeter")
    assert "fields: radius_" in perimeter.embed_text
    header = only(chunks, "shapes.geo.Circle")
    assert "double area() const override" in header.text
    assert "M_PI * radius_ * radius_" not in header.text


def test_csharp_local_function_stays_inside_its_method():
    chunks = chunk_file("Store/Inventory.cs", read("Inventory.cs"))
    assert not [c for c in chunks if c.title.endswith("Normalize")]
    assert "int Normalize(int x)" in only(chunks, "Store.Core.Inventory.Add").text


# ----------------------------------------------------------------- size handling


def _long_function(statements: int) -> str:
    body = "\n".join(
        f"    total_{i} = compute_value(alpha, beta, {i}) + adjust_offset(total_{max(i - 1, 0)})"
        for i in range(statements)
    )
    return (
        "import math\n\n\n"
        "def long_function(alpha, beta):\n"
        '    """Compute a long chain of values."""\n'
        f"{body}\n"
        "    def helper(x):\n"
        "        return math.sqrt(x) + alpha + beta + 42\n"
        "    return helper(total_0)\n"
    )


def test_oversized_function_is_split_at_statements_and_each_part_repeats_the_signature():
    text = _long_function(40)
    options = ChunkOptions(max_tokens=120)
    chunks = chunk_file("calc.py", text, options)
    parts = [c for c in chunks if c.title == "calc.long_function"]
    assert len(parts) >= 4
    assert parts[0].start_line == line_of(text, "def long_function")
    assert parts[-1].end_line == line_of(text, "return helper(total_0)")
    for part in parts:
        assert "def long_function(alpha, beta):" in part.embed_text
        source = text.split("\n")[part.start_line - 1 : part.end_line]
        assert set(part.text.split("\n")) <= set(source)
    # the tiny trailing statement after the nested helper joins the previous part
    assert "return helper(total_0)" in parts[-1].text and parts[-1].text.count("\n") > 1
    body_parts = [p for p in parts if p.start_line < line_of(text, "def helper")]
    for before, after in zip(body_parts, body_parts[1:], strict=False):
        assert after.start_line == before.end_line + 1  # statement boundaries, no gaps
    keys = [
        p.key for p in code_pieces("calc.py", "python", text, options) if "long_function" in p.key
    ]
    assert keys[0] == "code:calc.long_function" and "code:calc.long_function#part1" in keys


def test_nested_function_of_an_oversized_parent_gets_its_own_chunk():
    text = _long_function(40)
    chunks = chunk_file("calc.py", text, ChunkOptions(max_tokens=120))
    helper = only(chunks, "calc.long_function.helper")
    assert helper.start_line == line_of(text, "def helper")
    assert "def helper(x):" in helper.text


def test_function_within_budget_is_not_split():
    text = _long_function(40)
    chunks = chunk_file("calc.py", text, ChunkOptions(max_tokens=5000))
    assert [c.title for c in chunks if c.text_type == "function"] == ["calc.long_function"]


def test_tiny_one_line_getters_are_merged_into_a_neighbour():
    text = (
        "class Point:\n"
        '    """A point on the plane."""\n\n'
        "    def __init__(self, x, y):\n"
        "        self.x = x\n"
        "        self.y = y\n"
        "        self.label = f'point at {x}, {y}'\n\n"
        "    def gx(self): return self.x\n\n"
        "    def gy(self): return self.y\n"
    )
    chunks = chunk_file("geo.py", text)
    assert not [c for c in chunks if c.title in ("geo.Point.gx", "geo.Point.gy")]
    init = only(chunks, "geo.Point.__init__")
    assert "def gx(self)" in init.text and "def gy(self)" in init.text
    assert init.end_line == 11
    assert "also: def gx(self):" in init.embed_text


def test_oversized_class_header_is_split_into_parts():
    members = "\n\n".join(
        f"    def method_number_{i}(self, argument_{i}, other_{i}):\n        return argument_{i}"
        for i in range(60)
    )
    text = f'class Big:\n    """Doc."""\n\n{members}\n'
    chunks = chunk_file("big.py", text, ChunkOptions(max_tokens=150))
    headers = [c for c in chunks if c.title == "big.Big" and c.text_type in ("class", MEMBERS)]
    assert len(headers) >= 3
    assert all(c.start_line == 1 for c in headers)
    assert sum(c.text.count("def method_number_") for c in headers) == 60
    # the first part defines the class; the later ones list the rest of its members
    assert [c.text_type for c in headers] == ["class"] + [MEMBERS] * (len(headers) - 1)
    assert headers[0].text.startswith("class Big:")


# ----------------------------------------------------------------- odd input


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("broken.py", "def broken(:\n    pass\nclass X(\n    def y(self) return\n"),
        ("Broken.java", "public class Broken { void a( { int x = ; } }}} \n/** dangling"),
        ("broken.go", "package x\nfunc (\ntype struct {{\n"),
        ("broken.rs", "impl for { fn (\n"),
        ("broken.ts", "export class { constructor( }\nconst = => ;\n"),
        ("broken.c", "#ifdef X\nint f( {\n#endif\nstruct { int"),
    ],
)
def test_syntax_errors_do_not_crash_and_stay_in_range(path, text):
    chunks = chunk_file(path, text)
    n_lines = len(text.split("\n"))
    for c in chunks:
        assert 1 <= c.start_line <= c.end_line <= n_lines


@pytest.mark.parametrize("text", ["", "\n\n", "   \n\t\n", "# just a comment\n"])
def test_empty_or_trivial_files_do_not_crash(text):
    chunks = chunk_file("empty.py", text)
    assert all(c.text.strip() for c in chunks)


def test_language_without_grammar_falls_back_to_windows():
    text = "\n".join(f"let x{i} = {i} in print (x{i} * 2)" for i in range(100))
    pieces = code_pieces("app/main.ml", "ocaml", text, ChunkOptions())
    assert len(pieces) >= 3
    assert all(p.key.startswith("window:") for p in pieces)
    chunks = chunk_file("scripts/run.pl", "#!/usr/bin/perl\nprint 'hello from the script';\n")
    assert [c.text_type for c in chunks] == ["window"]


def test_crlf_input_gives_the_same_lines_as_lf():
    text = read("cart.py")
    lf = chunk_file("src/shop/cart.py", text)
    crlf = chunk_file("src/shop/cart.py", text.replace("\n", "\r\n"))
    assert [(c.title, c.start_line, c.end_line) for c in crlf] == [
        (c.title, c.start_line, c.end_line) for c in lf
    ]
    assert [c.id for c in crlf] == [c.id for c in lf]
    assert not any("\r" in c.text for c in crlf)


def test_tabs_and_non_ascii_identifiers_are_handled():
    text = (
        "def grüße(名前):\n\t# 挨拶を返す\n\treturn f'こんにちは、{名前}さん。ようこそ'\n\n\n"
        "class Käse:\n\tdef schmelzen(self, temperatur):\n"
        "\t\treturn temperatur > 40 and 'flüssig'\n"
    )
    chunks = chunk_file("gruss.py", text)
    assert only(chunks, "gruss.grüße").start_line == 1
    assert only(chunks, "gruss.Käse.schmelzen").start_line == 7


def test_a_huge_minified_line_is_sliced_into_bounded_chunks():
    text = "var a=" + "+".join(f"f{i}(x)" for i in range(40000)) + ";function g(){return 1}\n"
    options = ChunkOptions()
    chunks = chunk_file("dist/app.min.js", text, options)
    assert chunks
    assert all(len(c.text) <= options.max_tokens * 4 * 4 for c in chunks)
    assert len({c.id for c in chunks}) == len(chunks)


# ----------------------------------------------------------------- stability & speed


@pytest.mark.parametrize(
    ("name", "path", "old", "new", "edited"),
    [
        (
            "cart.py",
            "src/shop/cart.py",
            "quantity must be positive",
            "quantity must be above zero",
            "shop.cart.Cart.add",
        ),
        (
            "Inventory.java",
            "src/main/java/com/example/store/Inventory.java",
            "mapToInt(e -> e.count).sum()",
            "mapToInt(e -> e.count * 2).sum()",
            "com.example.store.Inventory.totalCount",
        ),
        ("cart.ts", "web/cart.ts", "Math.max(value, lo)", "Math.max(lo, value)", "cart.Util.clamp"),
    ],
)
def test_editing_one_body_changes_only_that_chunks_hash_and_no_ids(name, path, old, new, edited):
    text = read(name)
    assert old in text
    before = chunk_file(path, text)
    after = chunk_file(path, text.replace(old, new))
    assert [c.id for c in after] == [c.id for c in before]
    pairs = zip(after, before, strict=True)
    changed = [a.title for a, b in pairs if a.content_hash != b.content_hash]
    assert changed == [edited]


def test_adding_lines_to_one_function_keeps_other_ids():
    text = read("cart.py")
    before = {c.title: c.id for c in chunk_file("src/shop/cart.py", text)}
    grown = text.replace("        return self\n", "        _log('added')\n\n        return self\n")
    after = {c.title: c.id for c in chunk_file("src/shop/cart.py", grown)}
    assert after == before


def test_a_three_thousand_line_file_gets_every_class_and_method():
    block = read("cart.py").split("\n")[12:48]  # the Cart class
    parts = []
    for i in range(84):
        parts.append("\n".join(block).replace("class Cart", f"class Cart{i}"))
    text = "import json\n\n\n" + "\n\n\n".join(parts) + "\n"
    assert len(text.split("\n")) > 3000
    chunks = chunk_file("src/shop/many.py", text)  # its speed is measured by groundls bench
    assert len(chunks) > 84 * 5
    classes = {part for c in chunks for part in c.title.split(".") if part.startswith("Cart")}
    assert {f"Cart{i}" for i in range(84)} <= classes


def test_cpp_header_with_h_extension_is_parsed_as_cpp():
    text = (
        "#pragma once\n"
        "namespace geo {\n"
        "template <typename T>\n"
        "class Box {\n"
        "public:\n"
        "    T width() const { return right_ - left_ + static_cast<T>(0); }\n"
        "private:\n"
        "    T left_, right_;\n"
        "};\n"
        "}\n"
    )
    chunks = chunk_file("include/geo/box.h", text)
    assert chunks[0].language == "c"  # the language stays what classify() said
    assert ("box.geo.Box.width", "method") in titles(chunks)
    assert "fields: left_, right_" in only(chunks, "box.geo.Box.width").embed_text


def test_an_extension_of_a_type_is_told_apart_from_its_definition():
    swift = read("Cart.swift")
    kinds = {(c.text_type, c.start_line) for c in chunk_file("Sources/Shop/Cart.swift", swift)}
    assert ("class", line_of(swift, "/// A cart of line items")) in kinds
    assert ("extension", line_of(swift, "extension Cart: Priced")) in kinds
    # a C# partial class is defined in the file named after it, its other parts extend it
    partial = (
        "namespace Shop {\npublic static partial class Cart\n{\n    static int N() => 1;\n}\n}\n"
    )
    kind = {
        path: {c.text_type for c in chunk_file(path, partial) if c.symbol == "Cart"}
        for path in ("src/Cart.cs", "src/Cart.Totals.cs")
    }
    assert kind == {"src/Cart.cs": {"class"}, "src/Cart.Totals.cs": {"extension"}}


def test_a_parse_past_its_deadline_gives_line_windows_and_the_next_file_parses_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    source = "".join(
        f'def add_{n}(a, b):\n    """Add {n} to the sum of a and b."""\n    return a + b + {n}\n\n\n'
        for n in range(300)
    )
    monkeypatch.setattr(code_langs, "PARSE_SECONDS", -1.0)  # every deadline already passed
    slow = chunk_file("src/calc.py", source)
    assert slow and {c.text_type for c in slow} == {"window"}
    monkeypatch.setattr(code_langs, "PARSE_SECONDS", 1.0)
    whole = chunk_file("src/calc.py", source)  # the halted parser was reset
    assert "calc.add_7" in {c.title for c in whole}


def test_a_files_directives_alone_make_no_chunk_but_its_imports_do():
    body = "module Shop\n  class Cart\n    def add(item)\n      item\n    end\n  end\nend\n"
    magic = chunk_file("lib/shop/cart.rb", "# frozen_string_literal: true\n\n" + body)
    assert 1 not in {c.start_line for c in magic}
    required = chunk_file(
        "lib/shop/cart.rb", '# frozen_string_literal: true\n\nrequire "set"\n\n' + body
    )
    assert any(c.start_line == 1 and 'require "set"' in c.text for c in required)
    strict = "'use strict';\n\nfunction add(a, b) {\n  return a + b;\n}\n"
    assert [c.start_line for c in chunk_file("src/add.js", strict)] == [3]
    # a compiler's output ends with its source map's address: no chunk of its own
    built = "function add(a, b) {\n  return a + b;\n}\n//# sourceMappingURL=add.js.map\n"
    assert [(c.start_line, c.end_line) for c in chunk_file("lib/add.js", built)] == [(1, 3)]


def test_a_ruby_class_reopened_outside_the_file_named_after_it_extends_it():
    # Ruby reopens a namespace in every file that nests something in it
    nested = (
        "module Shop\n  class ShoppingCart\n    class Totals\n"
        "      def sum\n        1\n      end\n    end\n  end\nend\n"
    )
    kind = {
        path: {c.text_type for c in chunk_file(path, nested) if c.symbol == "ShoppingCart"}
        for path in ("lib/shop/shopping_cart.rb", "lib/shop/shopping_cart/totals.rb")
    }
    assert kind == {
        "lib/shop/shopping_cart.rb": {"class"},
        "lib/shop/shopping_cart/totals.rb": {"extension"},
    }


def test_definitions_inside_a_region_the_grammar_could_not_parse_are_still_found():
    # macros the C++ grammar does not know make it read the header's whole body as one error
    # node; the functions in it are still whole nodes there
    text = (
        "#ifndef FMT_COLOR_H_\n#define FMT_COLOR_H_\n\nFMT_BEGIN_NAMESPACE\nFMT_BEGIN_EXPORT\n\n"
        "enum class color : uint32_t { red = 1 };\n\n"
        "class FMT_API text_style {\n public:\n"
        "  FMT_CONSTEXPR text_style(emphasis em = emphasis()) noexcept : set_foreground_color() {}\n"
        "};\n\n"
        "FMT_CONSTEXPR inline auto fg(detail::color_type foreground) noexcept -> text_style {\n"
        "  return text_style(true, foreground);\n}\n\n"
        "FMT_END_EXPORT\nFMT_END_NAMESPACE\n#endif\n"
    )
    chunks = chunk_file("include/fmt/color.h", text)
    fg = [c for c in chunks if c.symbol == "fg"]
    assert len(fg) == 1 and fg[0].text_type == "function"
    assert "return text_style(true, foreground);" in fg[0].text


def test_file_without_definitions_becomes_module_pieces():
    text = "\n".join(f"SETTING_{i} = {i} * 1024  # size of buffer number {i}" for i in range(60))
    chunks = chunk_file("pkg/settings.py", text)
    assert len(chunks) >= 2
    assert {c.text_type for c in chunks} == {"module"}
    assert {c.title for c in chunks} == {"pkg.settings"}


def test_module_level_variables_are_names_of_the_chunk_that_binds_them():
    python = (
        'from x import LocalProxy\n\ng: "Globals" = LocalProxy("g")\nrequest = LocalProxy("r")\n'
    )
    assert chunk_file("src/app/globals.py", python)[0].names == ("g", "request")
    ts = 'export const ZodType = make("ZodType");\nconst MAX = 10, MIN = 1;\nlet [a, b] = pair;\n'
    assert chunk_file("src/schemas.ts", ts)[0].names == ("ZodType", "MAX", "MIN")
    go = 'package x\n\nvar ErrBad = errors.New("bad")\n\nvar (\n\tA = 1\n\tB, C = 2, 3\n)\n'
    assert chunk_file("x/errors.go", go)[0].names == ("ErrBad", "A", "B", "C")
    # a function's local variables are not module-level names
    inner = "def helper():\n    cache = {}\n    return cache\n"
    assert chunk_file("src/app/util.py", inner)[0].names == ()


LICENSE_C = """/* Copyright Example contributors. All rights reserved.
 *
 * Permission is hereby granted, free of charge, to any person obtaining a copy
 * of this software, to deal in the Software without restriction.
 */

#include <stdlib.h>
#include <string.h>

static int table_size = 64;  /* slots in the lookup table of open handles */
"""


def test_the_licence_comment_a_file_opens_with_is_in_no_piece():
    chunks = chunk_file("src/table.c", LICENSE_C)
    assert chunks and not any("Permission is hereby granted" in c.text for c in chunks)
    assert any("#include <stdlib.h>" in c.text for c in chunks)
    # a first comment that is not a licence stays
    described = LICENSE_C.replace("Copyright Example contributors. All rights reserved.", "Tables.")
    described = described.replace("Permission is hereby granted, free of charge,", "Handles")
    assert any("Tables." in c.text for c in chunk_file("src/table.c", described))
    # PHP's opening tag comes first
    php = (
        "<?php declare(strict_types=1);\n\n/*\n * This file is part of the Shop package.\n *\n"
        " * For the full copyright and license information, please view the LICENSE file.\n */\n\n"
        "namespace Shop;\n\nfunction total(array $lines): int\n{\n    return array_sum($lines);\n}\n"
    )
    php_chunks = chunk_file("src/total.php", php)
    assert not any("license information" in c.text for c in php_chunks)
    assert any("array_sum" in c.text for c in php_chunks)


def test_lone_surrogates_and_nul_bytes_do_not_crash():
    text = "def odd(value):\n    return 'bad \udcff byte' + '\x00' + str(value) * 3 + 'tail'\n"
    chunks = chunk_file("odd.py", text)
    assert only(chunks, "odd.odd").end_line == 2


def test_definition_at_end_of_file_without_newline_stays_in_range():
    text = "class Last:\n    def only_method(self):\n        return 'no newline at the end'"
    chunks = chunk_file("last.py", text)
    assert only(chunks, "last.Last.only_method").end_line == 3
    assert all(c.end_line <= 3 for c in chunks)


def test_parallel_chunking_in_threads_gives_identical_results():
    from concurrent.futures import ThreadPoolExecutor

    jobs = [(path, read(name)) for name, path, _ in LANGUAGE_CASES.values()] * 4
    expected = [[c.id for c in chunk_file(path, text)] for path, text in jobs]
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(lambda job: [c.id for c in chunk_file(*job)], jobs))
    assert got == expected


GO_JA = """package queue

// 溜まった仕事を古い順に取り出します。空なら待たずに nil を返します。
func (q *jobQueue) popOldest() *job {
	if len(q.items) == 0 {
		return nil
	}
	oldest := q.items[0]
	q.items = q.items[1:]
	return oldest
}
"""


def test_a_code_chunk_says_in_words_what_its_japanese_comments_say():
    (chunk,) = [c for c in chunk_file("queue.go", GO_JA) if c.symbol == "popOldest"]
    first, *said = chunk.gloss.splitlines()
    assert first == "job queue: pop oldest"
    assert said == ["溜まった仕事を古い順に取り出します。空なら待たずに nil を返します。"]


def test_code_is_glossed_by_its_comments_in_any_language_and_an_undocumented_one_by_its_names():
    english = GO_JA.replace(
        "溜まった仕事を古い順に取り出します。空なら待たずに nil を返します。",
        "Pops the oldest job.",
    )
    (chunk,) = [c for c in chunk_file("queue.go", english) if c.symbol == "popOldest"]
    assert chunk.gloss == "job queue: pop oldest\nPops the oldest job."
    bare = "\n".join(line for line in english.splitlines() if not line.startswith("//"))
    (chunk,) = [c for c in chunk_file("queue.go", bare) if c.symbol == "popOldest"]
    assert chunk.gloss == "job queue: pop oldest"


def test_a_docstring_and_a_block_comment_are_comments_a_string_is_not():
    code = 'def f():\n    """Say hi.\n\n    Twice.\n    """\n    x = "# not"\n    /* a\n    b */\n'
    assert [line.strip() for line in comment_lines(code)] == [
        '"""Say hi.',
        "",
        "Twice.",
        '"""',
        "/* a",
        "b */",
    ]


def test_a_chunk_whose_reading_changes_is_stored_anew():
    (one,) = [c for c in chunk_file("queue.go", GO_JA) if c.symbol == "popOldest"]
    other = GO_JA.replace("溜まった", "積まれた")
    (two,) = [c for c in chunk_file("queue.go", other) if c.symbol == "popOldest"]
    assert one.gloss != two.gloss and one.content_hash != two.content_hash
    assert one.content_hash != content_hash(one.embed_text)  # the gloss is part of it
