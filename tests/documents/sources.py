"""The words of the test documents, written for these tests (Japanese and English)."""

from __future__ import annotations

#: A paragraph long enough to wrap over several PDF lines, with a sentence that must come out
#: whole (no space, no break) however the page wraps it.
WRAPPED_SENTENCE = (
    "夜間のバックアップは午前二時に始まり、データベースの書き込みを一時的に止めてから"
    "スナップショットを取り、三十分以内に終わらなければ運用担当者の携帯電話に通知を送ります。"
)

JA_CHAPTERS: list[tuple[str, list[tuple[str, list[str]]]]] = [
    (
        "第1章 はじめに",
        [
            (
                "1.1 この手引きについて",
                [
                    "この手引きは、社内の在庫管理サービスを運用する人のために書かれています。"
                    "日々の作業、障害が起きたときの対応、そして定期的な保守の手順をまとめています。"
                    "初めてこのサービスに触れる人は、まず第2章の日々の作業から読んでください。",
                ],
            ),
            (
                "1.2 用語",
                [
                    "在庫台帳とは、倉庫ごとの品目と数量を記録した表のことです。"
                    "引当とは、注文に対して在庫を確保し、ほかの注文に使われないようにする操作を指します。",
                ],
            ),
        ],
    ),
    (
        "第2章 日々の作業",
        [
            (
                "2.1 バックアップ",
                [
                    WRAPPED_SENTENCE
                    + "通知を受けた担当者は、まず前回のスナップショットが残っているかを確かめます。"
                ],
            ),
            (
                "2.2 在庫の締め処理",
                [
                    "毎月末の締め処理では、倉庫ごとの在庫台帳を集計し、会計システムへ送ります。"
                    "締め処理の途中で注文を受け付けると数量がずれるため、処理の間は注文の受付を止めます。",
                ],
            ),
        ],
    ),
    (
        "第3章 障害対応",
        [
            (
                "3.1 注文が受け付けられないとき",
                [
                    "注文画面がエラーを返す場合は、まず引当サービスのログを確認します。"
                    "接続数が上限に達していれば、古い接続を切断してからサービスを再起動します。",
                ],
            ),
        ],
    ),
]

EN_CHAPTERS: list[tuple[str, list[tuple[str, list[str]]]]] = [
    (
        "Chapter 1 Getting started",
        [
            (
                "1.1 Installing the agent",
                [
                    "Copy the agent package to each warehouse server and run the installer as an "
                    "administrator. The installer asks for the address of the central inventory "
                    "service and a registration token, which you can create on the settings page.",
                ],
            ),
        ],
    ),
    (
        "Chapter 2 Daily work",
        [
            (
                "2.1 Rotating the logs",
                [
                    "Logs rotate every night at midnight. Rotated files are compressed and kept "
                    "for fourteen days, after which the cleanup job deletes them without asking.",
                ],
            ),
            (
                "2.2 Reconciling stock counts",
                [
                    "When a physical count disagrees with the ledger, record the difference in the "
                    "adjustment form and attach a photo of the shelf label before you close it.",
                ],
            ),
        ],
    ),
]


def chapters_html(chapters: list[tuple[str, list[tuple[str, list[str]]]]], lang: str) -> str:
    """A printed manual as HTML: each chapter on a new page, opening with a table of contents
    (titles, dot leaders, page numbers), then its sections."""
    style = (
        "body{font-family:'IPAGothic','IPAPGothic',sans-serif;font-size:12pt;width:15cm}"
        "h1{font-size:22pt;page-break-before:always}h2{font-size:16pt}"
        ".toc div{display:flex}.toc span.dots{flex:1;border-bottom:1px dotted #000}"
    )
    body = []
    for number, (title, sections) in enumerate(chapters, start=1):
        body.append(f"<h1>{title}</h1>")
        body.append('<div class="toc">')
        for i, (heading, _) in enumerate(sections):
            body.append(f"<div>{heading} {'.' * 40} {number * 2 + i}</div>")
        body.append("</div>")
        for heading, paragraphs in sections:
            body.append(f"<h2>{heading}</h2>")
            body.extend(f"<p>{p}</p>" for p in paragraphs)
    return (
        f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8"><title>manual</title>'
        f"<style>{style}</style></head><body>{''.join(body)}</body></html>"
    )


def chapters_markdown(chapters: list[tuple[str, list[tuple[str, list[str]]]]]) -> str:
    lines = []
    for title, sections in chapters:
        lines += [f"# {title}", ""]
        for heading, paragraphs in sections:
            lines += [f"## {heading}", ""]
            for p in paragraphs:
                lines += [p, ""]
    return "\n".join(lines)
