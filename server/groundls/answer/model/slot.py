"""The answer model a workspace uses, resolved once on first use and shared by its answers and
its search's translations."""

from __future__ import annotations

import threading
from typing import Any

from groundls.answer.model import model_files, shared
from groundls.answer.model.served import ServedLLM
from groundls.config import AnswerConfig


class ModelSlot:
    """A model server, the configured or packaged GGUF, or none (then :attr:`note` says why).

    ``llm`` may be given (tests, benchmarks); otherwise the config decides on first use:
    configured GGUF > packaged default > none (extractive answers)."""

    def __init__(self, config: AnswerConfig, llm: Any = None) -> None:
        self.config = config
        self.note = ""
        #: the last load failure an answer met ("" once a model answered again)
        self.load_error = ""
        self.resolved = llm is not None
        self._llm = llm
        self._shared = False
        self._lock = threading.Lock()

    def get(self) -> Any:
        """The LLM backend, or None."""
        with self._lock:
            if not self.resolved and self.config.engine == "openai":
                # a model server: nothing to load here, content goes only where allowed
                try:
                    self._llm = ServedLLM(self.config)
                except model_files.ModelError as exc:
                    self.note = str(exc)
                self.resolved = True
            if not self.resolved:
                spec, self.note = model_files.resolve_model(
                    self.config.model_path, self.config.use_packaged_model
                )
                if spec is not None:
                    n_ctx = max(2048, self.config.context_tokens + self.config.max_tokens + 700)
                    self._llm = shared.acquire_shared(
                        spec,
                        n_ctx=n_ctx,
                        idle_unload_s=self.config.idle_unload_s,
                        adapt_threads=self.config.adapt_threads,
                    )
                    self._shared = True
                self.resolved = True
            return self._llm

    def close(self) -> None:
        """Let the model go (a shared one is unloaded once no workspace holds it)."""
        with self._lock:
            model, self._llm = self._llm, None
            self.resolved = True
        if model is None:
            return
        if self._shared:
            shared.release_shared(model)
        else:
            model.close()

    def status(self) -> dict[str, Any]:
        """What answers will use: model name and source, loaded or not, and any problem."""
        model = self.get()
        spec = getattr(model, "spec", None)
        return {
            "mode": "llm" if model is not None and not self.load_error else "extractive",
            "model": getattr(model, "name", "") if model is not None else "",
            "source": getattr(spec, "source", "") if spec is not None else "",
            "loaded": bool(getattr(model, "loaded", False)),
            "notice": self.load_error or self.note,
            "install_hint": model_files.INSTALL_HINT,
            "engine": self.config.engine,
            "sends_to": getattr(model, "remote_note", ""),
            "load_ms": getattr(model, "last_load_ms", None) or None,
        }
