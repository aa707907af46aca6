"""What descriptions of code written by the packaged model would cost (issue 82), and what they say.

Usage: python scripts/lab/describe_cost.py CORPUS [--n 20] [--seed 1] [--out FILE.jsonl]
Chunks CORPUS's code as the index does, takes N function and method chunks at random, and has
the packaged model write one sentence on what each does, in English, from its code alone. Prints
each description beside its chunk's place (to read against the code) and the time per chunk:
prompt tokens, tokens written, seconds. Nothing here is part of the index.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

from groundls.chunkers import chunk_file
from groundls.chunkers.languages import classify

from groundls.answer.model.model_files import resolve_model
from groundls.answer.model.runtime import GenerationStats, LocalLLM

PROMPT = (
    "Say in one sentence what this code does: its behaviour, the cases it handles and what it "
    "returns. Use plain words, not its names. Say only what the code shows."
)


def code_chunks(root: Path) -> list:
    chunks = []
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.stat().st_size > 400_000:
            continue
        rel = path.relative_to(root).as_posix()
        if (classify(rel) or ("", ""))[1] != "code":
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        chunks += [c for c in chunk_file(rel, text) if c.text_type in ("function", "method")]
    return chunks


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out")
    args = ap.parse_args()
    spec, problem = resolve_model()
    if spec is None:
        print(f"no model: {problem}", file=sys.stderr)
        return 2
    chunks = code_chunks(Path(args.corpus))
    picked = random.Random(args.seed).sample(chunks, min(args.n, len(chunks)))
    model = LocalLLM(spec, n_ctx=2048)
    model.load()
    rows, seconds, written = [], [], []
    for chunk in picked:
        messages = [
            {"role": "system", "content": PROMPT},
            {"role": "user", "content": chunk.text[:2400]},
        ]
        stats = GenerationStats()
        t0 = time.perf_counter()
        text = "".join(model.stream(messages, max_tokens=60, stats=stats, temperature=0.0))
        took = time.perf_counter() - t0
        seconds.append(took)
        written.append(stats.generated_tokens)
        row = {
            "place": f"{chunk.path}:{chunk.start_line}-{chunk.end_line}",
            "symbol": chunk.title,
            "description": text.strip(),
            "prompt_tokens": stats.prompt_tokens,
            "generated_tokens": stats.generated_tokens,
            "seconds": round(took, 2),
        }
        rows.append(row)
        print(json.dumps(row, ensure_ascii=False), flush=True)
    model.close()
    if args.out:
        Path(args.out).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    print(
        f"{len(rows)} of {len(chunks)} chunks: {statistics.median(seconds):.1f} s a chunk (p50), "
        f"{statistics.median(written):.0f} tokens written; {len(chunks)} chunks would take "
        f"{statistics.mean(seconds) * len(chunks) / 60:.0f} min",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
