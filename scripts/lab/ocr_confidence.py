"""How well the OCR engine's own confidence tells a page read right from one read wrong: pages of
printed manuals scanned at falling qualities, each page's character-weighted mean confidence
beside its character error rate against the text layer, and where ``scans.PAGE_FLOOR`` falls.

Usage: python scripts/lab/ocr_confidence.py PRINTED.pdf [PRINTED.pdf ...] [--pages 6]

A quality is a scanner's resolution (the page is rendered that small, then enlarged to 200 dpi as
the reader renders it), its blur and its grain. Every page is read by the product's engine
(``scans.Ocr``) in this process. Prints one JSON line a page and a table by quality.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from eval_documents import _edits, _letters  # noqa: E402

from groundls.index.files.documents import scans  # noqa: E402

#: name -> (scanner dpi, blur radius, grain sigma)
QUALITIES = {
    "good": (200, 0.7, 10),
    "fax": (100, 0.8, 14),
    "poor": (75, 1.0, 20),
    "bad": (60, 1.3, 30),
    "ruined": (50, 1.6, 45),
}


def degrade(page: object, dpi: int, blur: float, grain: float, rng: random.Random) -> object:
    import numpy as np
    from PIL import Image, ImageFilter

    small = page.render(scale=dpi / 72).to_pil().convert("L")  # type: ignore[attr-defined]
    small = small.rotate(rng.uniform(-1.2, 1.2), resample=Image.BICUBIC, fillcolor=255)
    full = small.resize(
        (round(small.size[0] * 200 / dpi), round(small.size[1] * 200 / dpi)), Image.BICUBIC
    ).filter(ImageFilter.GaussianBlur(blur))
    noise = np.random.default_rng(rng.randrange(1 << 30)).normal(0, grain, full.size[::-1])
    grey = np.clip(np.asarray(full, dtype=np.float32) + noise, 0, 255).astype(np.uint8)
    jpeg = io.BytesIO()
    Image.fromarray(grey).save(jpeg, "JPEG", quality=60)
    return Image.open(io.BytesIO(jpeg.getvalue())).convert("RGB")


def main() -> int:
    import pypdfium2 as pdfium

    ap = argparse.ArgumentParser()
    ap.add_argument("pdf", nargs="+")
    ap.add_argument("--pages", type=int, default=6, help="pages a PDF, spread over it")
    args = ap.parse_args()
    ocr = scans.Ocr(time_s=1e9, max_pages=10**6)
    rng = random.Random(5)
    rows = []
    for path in args.pdf:
        pdf = pdfium.PdfDocument(path)
        chosen = sorted(
            {round(i * (len(pdf) - 1) / max(1, args.pages - 1)) for i in range(args.pages)}
        )
        for index in chosen:
            truth = _letters(pdf[index].get_textpage().get_text_range())
            if len(truth) < 200:
                continue
            for quality, (dpi, blur, grain) in QUALITIES.items():
                image = degrade(pdf[index], dpi, blur, grain, rng)
                lines = ocr.image_lines(image, index + 1)
                confidence = ocr.confidence.pop(index + 1, 0.0)
                cer = _edits(_letters("".join(ln.text for ln in lines)), truth) / len(truth)
                row = {
                    "pdf": Path(path).parent.name,
                    "page": index + 1,
                    "quality": quality,
                    "confidence": round(confidence, 3),
                    "cer": round(cer, 3),
                    "unsure": confidence < scans.PAGE_FLOOR,
                }
                rows.append(row)
                print(json.dumps(row), flush=True)
        pdf.close()
    print(f"\nPAGE_FLOOR {scans.PAGE_FLOOR}")
    print("| quality | pages | mean confidence | mean CER | CER > 10 % | below the floor |")
    print("|---|---|---|---|---|---|")
    for quality in QUALITIES:
        these = [r for r in rows if r["quality"] == quality]
        if not these:
            continue
        n = len(these)
        print(
            f"| {quality} | {n} | {sum(r['confidence'] for r in these) / n:.3f}"
            f" | {sum(r['cer'] for r in these) / n:.1%}"
            f" | {sum(r['cer'] > 0.1 for r in these)} | {sum(r['unsure'] for r in these)} |"
        )
    wrong = [r for r in rows if r["cer"] > 0.1]
    right = [r for r in rows if r["cer"] <= 0.03]
    print(
        f"\npages with CER > 10 %: {len(wrong)}, below the floor {sum(r['unsure'] for r in wrong)};"
        f" pages with CER <= 3 %: {len(right)}, below the floor {sum(r['unsure'] for r in right)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
