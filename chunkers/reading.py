"""A document's text as a reader sees it: reStructuredText and Markdown without their markup.

A chunk keeps its source lines (a citation names them); what a person or a model reads is this
reading: the prompt's excerpts, key lines, hovers and the answer panel. It is made line for line:
line ``i`` of the reading is line ``i`` of the source, read (a heading's underline, a label or a
directive's options become blank lines), so the lines that support an answer are the source's
lines. Code stays code: literal blocks and code directives in reStructuredText, fences and
indented code in Markdown.

The search reads both (docs/RANKING.md, "Documents with markup"): a chunk's vector embeds the
source as written, its sentence vectors the reading, and its keyword terms are the source's
words with the words only the reading spells (``read_words``).

The rules are the ones a reader applies to the rendered page: a heading without its underline,
a role as its visible text (`` :func:`evolve` `` -> ```evolve```, `` :java:extdoc:`X <a.b.X>` ``
-> ```X```), an admonition as its label ("Important:"), a link as its words, no comments, labels,
substitution definitions or escapes. docutils renders the same, but it parses a whole document at
a time and reads a chunk's lines out of context badly (BENCHMARKS.md, "Rejected ideas").
"""

from __future__ import annotations

import re

from .languages import DOCUMENT_SYNTAX

#: The syntaxes read here; any other text is read as it is written.
SYNTAXES = ("rst", "markdown")

# -- reStructuredText ---------------------------------------------------------------------------

_ADORNMENT = re.compile(r"^\s*([!-/:-@\[-`{-~])\1{2,}\s*$")
_EXPLICIT = re.compile(r"^(\s*)\.\.(?:\s+(.*))?$")
_DIRECTIVE = re.compile(r"^([\w:.+-]+)::\s*(.*)$")
_OPTION = re.compile(r"^\s+:[\w -]+:(\s.*)?$")
_CODE_DIRECTIVES = {
    "code",
    "code-block",
    "sourcecode",
    "literalinclude",
    "highlight",
    "doctest",
    "testcode",
    "testoutput",
    "parsed-literal",
    "math",
    "graphviz",
    "uml",
    "mermaid",
    "raw",
}
#: Directives whose body is not read (a table of contents, an index entry, a picture).
_HIDDEN_DIRECTIVES = {"toctree", "index", "image", "include", "contents", "meta", "sectnum"}
#: Directives that set a context and show nothing (the module or program the page is about):
#: their argument is a name kept searchable, not text.
_CONTEXT_DIRECTIVES = {"currentmodule", "module", "program", "default-role", "default-domain"}
_LABELLED = {
    "seealso": "See also",
    "versionadded": "New in version",
    "versionchanged": "Changed in version",
    "deprecated": "Deprecated since version",
}
#: Roles that name code, read as inline code; a role of a domain (``:el:defun:``,
#: ``:py:func:``) names code too unless it is one of ``_PROSE_ROLES``; any other role is read
#: as its words.
_CODE_ROLES = {
    "func", "meth", "class", "attr", "exc", "data", "obj", "mod", "const", "var", "member",
    "type", "macro", "struct", "enum", "envvar", "option", "program", "file", "command",
    "samp", "kbd", "code", "literal", "extdoc", "javadoc", "interface", "method", "field",
}  # fmt: skip
_ROLE = re.compile(r":((?:[A-Za-z][\w+.-]*:)+)`((?:[^`\\]|\\.)+)`(?!`)")
_TARGETED = re.compile(r"^(.*?)\s*<([^<>]+)>$", re.S)
_LITERAL = re.compile(r"``(.+?)``")
_LINK = re.compile(r"`([^`<>]+?)\s*<[^<>`]+>`__?")
_NAMED_REFERENCE = re.compile(r"`([^`]+)`__?(?=\W|$)")
_FOOTNOTE_REFERENCE = re.compile(r"\s?\[(?:#[\w-]*|\*|\d+)\]_")
_SUBSTITUTION = re.compile(r"\|([^|\s](?:[^|]*[^|\s])?)\|(?:__?)?")
_SUBSTITUTION_DEF = re.compile(r"^\s*\.\.\s+\|([^|]+)\|\s+replace::\s*(.*)$")
_ESCAPE = re.compile(r"\\(.)")
_WORD = re.compile(r"\w+")


#: Roles whose text is shown as written (a ``~`` in ``:file:`~/.skk``` is the home folder, not
#: "the last part of the name").
_LITERAL_ROLES = {
    "file", "samp", "kbd", "command", "program", "code", "literal", "envvar", "option",
    "makevar", "mailheader", "regexp", "guilabel", "menuselection",
}  # fmt: skip
#: Roles that read as words, in a domain or not.
_PROSE_ROLES = {
    "doc", "ref", "term", "abbr", "sup", "sub", "subscript", "superscript", "emphasis", "strong",
    "title-reference", "numref", "pep", "rfc", "download", "dfn", "guilabel", "menuselection",
}  # fmt: skip


def _own_name(qualified: str) -> tuple[str, bool]:
    """A role's or directive's own name and whether a domain qualifies it (``:el:defun:`` ->
    ``defun``, True; ``py:currentmodule`` -> ``currentmodule``, True)."""
    parts = [p for p in qualified.split(":") if p]
    return parts[-1].lower(), len(parts) > 1


def _role_text(roles: str, body: str) -> str:
    """A role as the rendered page shows it (`` :class:`~a.b.C` `` -> ```C```)."""
    body = _ESCAPE.sub(r"\1", body)
    name, domain = _own_name(roles)
    targeted = _TARGETED.match(body)
    if targeted and targeted.group(1):
        shown = targeted.group(1)
    elif body.startswith("~") and name not in _LITERAL_ROLES:
        shown = body[1:].rsplit(".", 1)[-1]
    else:
        shown = body if name in _LITERAL_ROLES else body.lstrip("!")
    code = name in _CODE_ROLES or (domain and name not in _PROSE_ROLES)
    return f"`{shown}`" if code else shown


def role_target(body: str) -> str:
    """What a role's text points at: its explicit target when it has a title
    (```run <cli.run_command>``` -> ``cli.run_command``), else the text itself."""
    targeted = _TARGETED.match(_ESCAPE.sub(r"\1", body))
    return targeted.group(2) if targeted and targeted.group(1) else body


def _rst_inline(line: str, substitutions: dict[str, str]) -> str:
    """One prose line of reStructuredText read: roles, literals, links, references, escapes."""
    parts = re.split(r"(``.+?``)", line)  # a literal's content is read as written
    out = []
    for i, part in enumerate(parts):
        if i % 2:
            out.append(f"`{part[2:-2]}`")
            continue
        part = _ROLE.sub(lambda m: _role_text(m.group(1), m.group(2)), part)
        part = _LINK.sub(r"\1", part)
        part = _NAMED_REFERENCE.sub(r"\1", part)
        part = _FOOTNOTE_REFERENCE.sub("", part)
        part = _SUBSTITUTION.sub(lambda m: substitutions.get(m.group(1), m.group(1)), part)
        part = _ESCAPE.sub(lambda m: "" if m.group(1).isspace() else m.group(1), part)
        out.append(part)
    return "".join(out)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


_WRAPPED_ROLE = re.compile(r":((?:[A-Za-z][\w+.-]*:)+)`([^`]*\n[^`]*)`(?!`)")


def _unwrapped(match: re.Match[str]) -> str:
    """A role wrapped over lines, read on its first line; the lines it took stay (blank up to
    where it ended), so line ``i`` is still line ``i``."""
    shown = _role_text(match.group(1), " ".join(match.group(2).split()))
    return shown + "\n" * match.group(2).count("\n")


def read_rst(text: str) -> str:
    """reStructuredText as a reader sees it, line for line (see the module's docstring)."""
    lines = _WRAPPED_ROLE.sub(_unwrapped, text).split("\n")
    substitutions = {
        m.group(1): _rst_inline(m.group(2), {})
        for m in map(_SUBSTITUTION_DEF.match, lines)
        if m is not None
    }
    out: list[str] = []
    # the indented body of a code directive or literal block (kept as written) or of a hidden
    # one (left out); a prose body is read line by line like the rest, nested markup included
    body_mode, body_indent = "", -1
    options_indent = -1  # a directive's option lines (:linenos:, :caption: ...) are not read
    literal_next, literal_indent = False, -1
    for line in lines:
        stripped = line.strip()
        indent = _indent(line)
        if options_indent >= 0 and stripped and indent > options_indent and _OPTION.match(line):
            out.append("")
            continue
        if stripped:
            options_indent = -1
        if body_mode and (not stripped or indent > body_indent):
            out.append(line if body_mode == "code" else "")
            continue
        body_mode, body_indent = "", -1
        if literal_next and stripped and indent > literal_indent:
            body_mode, body_indent = "code", literal_indent
            out.append(line)
            literal_next = False
            continue
        if stripped:
            literal_next = False
        explicit = _EXPLICIT.match(line)
        if explicit:
            read, mode = _explicit_markup(explicit.group(2) or "", substitutions)
            if mode != "prose":
                body_mode, body_indent = mode, indent
            options_indent = indent
            out.append(explicit.group(1) + read if read else "")
            continue
        if indent == 0 and _ADORNMENT.match(line) and _adorns(lines, len(out)):
            out.append("")
            continue
        if stripped.endswith("::"):
            literal_next, literal_indent = True, indent
            shown = stripped[:-2].rstrip()
            line = line[: len(line) - len(line.lstrip())] + (shown + ":" if shown else "")
        out.append(_rst_inline(line, substitutions))
    return "\n".join(out)


def _adorns(lines: list[str], i: int) -> bool:
    """Whether the run of punctuation on line ``i`` (at the margin, where titles and transitions
    stand) is a title's underline or overline or a transition: after a blank line, or at least
    as long as the title above it (up to four characters)."""
    above = lines[i - 1].strip() if i > 0 else ""
    return not above or len(lines[i].strip()) >= min(len(above), 4)


def _explicit_markup(rest: str, substitutions: dict[str, str]) -> tuple[str, str]:
    """What a ``..`` line reads as, and how its indented body is read ("code", "hidden" or
    "prose")."""
    if rest.startswith("_") or rest.startswith("|") or not rest:
        return "", "hidden"  # a label, a substitution definition, an empty comment
    if rest.startswith("["):  # a footnote or citation: its text
        return _rst_inline(rest, substitutions), "prose"
    directive = _DIRECTIVE.match(rest)
    if directive is None:
        return "", "hidden"  # a comment
    name = _own_name(directive.group(1))[0]
    argument = _rst_inline(directive.group(2), substitutions).strip()
    if name in _CODE_DIRECTIVES:
        return "", "code"
    if name in _HIDDEN_DIRECTIVES or name in _CONTEXT_DIRECTIVES:
        return "", "hidden"
    if name in _LABELLED:
        label = _LABELLED[name]
        return (f"{label} {argument}." if argument else f"{label}:"), "prose"
    if name in ("note", "warning", "important", "tip", "caution", "attention", "danger",
                "hint", "error", "admonition", "topic", "sidebar", "rubric"):  # fmt: skip
        label = "" if name in ("admonition", "topic", "sidebar", "rubric") else name.capitalize()
        if label and not argument:
            return f"{label}:", "prose"
        return ": ".join(p for p in (label, argument) if p), "prose"
    return argument, "prose"  # a signature (.. function:: f(x)), a figure, a container


# -- Markdown -------------------------------------------------------------------------------------

_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_SETEXT = re.compile(r"^\s{0,3}(=+|-+)\s*$")
_BREAK = re.compile(r"^\s{0,3}([-*_])(\s*\1){2,}\s*$")
_PICTURE = re.compile(r"\[?!\[[^\]]*\]\([^)]*\)(?:\]\([^)]*\))?")
_MD_LINK = re.compile(r"(?<!!)\[([^\]]+)\]\((?:[^()\s]|\([^()]*\))*(?:\s+\"[^\"]*\")?\)")
_MD_REF_LINK = re.compile(r"(?<!!)\[([^\]]+)\]\[[^\]]*\]")
_REF_DEFINITION = re.compile(r"^\s{0,3}\[[^\]]+\]:\s+\S+")
_TAG = re.compile(r"</?[A-Za-z][\w-]*(?:\s[^<>]*)?/?>")
_FRONT = re.compile(r"^(---|\+\+\+)\s*$")


def read_markdown(text: str) -> str:
    """Markdown as a reader sees it, line for line (see the module's docstring)."""
    lines = text.split("\n")
    out: list[str] = []
    fence = ""
    comment = False
    front = bool(lines) and bool(_FRONT.match(lines[0]))
    front_mark = lines[0].strip() if front else ""
    for i, line in enumerate(lines):
        if front:
            out.append("")
            if i > 0 and line.strip() == front_mark:
                front = False
            continue
        if fence:
            out.append(line)
            if line.strip().startswith(fence) and not line.strip().strip(fence[0]):
                fence = ""
            continue
        opened = _FENCE.match(line)
        if opened and not comment:
            fence = opened.group(1)
            out.append(line)
            continue
        if comment or "<!--" in line:
            line, comment = _without_comments(line, comment)
        if _SETEXT.match(line) or _BREAK.match(line):
            out.append("")  # a heading's underline, a rule between sections
            continue
        if _REF_DEFINITION.match(line):
            out.append("")
            continue
        if line.startswith("    ") or line.startswith("\t"):
            out.append(line)  # indented code (or a list item's continuation, read as written)
            continue
        out.append(_md_inline(line))
    return "\n".join(out)


def _without_comments(line: str, open_: bool) -> tuple[str, bool]:
    """``line`` without HTML comments; whether a comment is still open after it."""
    kept = []
    rest = line
    while rest:
        if open_:
            end = rest.find("-->")
            if end < 0:
                return "".join(kept), True
            rest, open_ = rest[end + 3 :], False
            continue
        start = rest.find("<!--")
        if start < 0:
            kept.append(rest)
            break
        kept.append(rest[:start])
        rest, open_ = rest[start + 4 :], True
    return "".join(kept), open_


def _md_inline(line: str) -> str:
    """One Markdown line read: pictures out, links as their words, tags out (code spans kept)."""
    parts = re.split(r"(`+[^`]*?`+)", line)
    out = []
    for i, part in enumerate(parts):
        if i % 2:
            out.append(part)
            continue
        part = _PICTURE.sub("", part)
        part = _MD_LINK.sub(r"\1", part)
        part = _MD_REF_LINK.sub(r"\1", part)
        part = _TAG.sub("", part)
        out.append(part)
    return "".join(out)


# -- both -----------------------------------------------------------------------------------------


def readable(text: str, language: str) -> str:
    """``text`` as a reader sees it, line for line, when its language (``rst``, ``markdown``, or
    a document's, whose reader made Markdown) is one this module reads; else as written."""
    syntax = DOCUMENT_SYNTAX.get(language, language)
    if syntax == "rst":
        return read_rst(text)
    if syntax == "markdown":
        return read_markdown(text)
    return text


def read_words(text: str, language: str) -> list[str]:
    """The words a reader sees that ``text`` does not spell as written, in order: an escape
    joins two words (``ローテーション\\には`` -> ``ローテーションには``), a substitution shows its
    text. The keyword index holds them beside the source's own words, so a question worded as
    the page reads finds the passage (the source keeps the names markup points at: a role's
    target, the module a page is about)."""
    have = {word.casefold() for word in _WORD.findall(text)}
    seen: dict[str, None] = {}
    for word in _WORD.findall(readable(text, language)):
        if word.casefold() not in have:
            seen.setdefault(word)
    return list(seen)
