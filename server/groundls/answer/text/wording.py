"""What the answer stage says in its own words, in each language a question is answered in
(``QUESTION_LANGUAGES``): "not found", where to look, the hedge of an unsure answer, why the
excerpts stand in for an answer, the note on a cut answer. Any other language gets English."""

from __future__ import annotations

from groundls.chunkers.textrules import QUESTION_LANGUAGES

#: The languages' names, as the model is told which one to answer in.
LANGUAGE_NAMES = {
    "en": "English",
    "ja": "Japanese",
    "zh": "Chinese",
    "ko": "Korean",
    "de": "German",
    "fr": "French",
    "es": "Spanish",
}

#: "Not found" before the model: nothing indexed holds the question's words ...
NOT_FOUND = {
    "en": "The workspace does not say: no indexed content matches this question.",
    "ja": "ワークスペースには記載がありません（この質問に一致する内容は索引にありません）。",
    "zh": "工作区中没有相关内容：索引中没有与此问题匹配的内容。",
    "ko": "작업 공간에 관련 내용이 없습니다: 이 질문과 일치하는 색인 내용이 없습니다.",
    "de": "Der Arbeitsbereich enthält dazu nichts: kein indizierter Inhalt passt zu dieser Frage.",
    "fr": "L'espace de travail n'en dit rien : aucun contenu indexé ne correspond à cette question.",
    "es": "El espacio de trabajo no lo dice: ningún contenido indexado coincide con esta pregunta.",
}
#: ... and after it: the search found places, but what the model wrote from them rested on
#: specifics or claims they do not hold.
NOT_SAID = {
    "en": "The workspace does not say: the places found do not answer this question.",
    "ja": "ワークスペースには記載がありません（見つかった箇所には、この質問の答えがありません）。",
    "zh": "工作区中没有相关内容：找到的位置无法回答此问题。",
    "ko": "작업 공간에 관련 내용이 없습니다: 찾은 위치에는 이 질문의 답이 없습니다.",
    "de": "Der Arbeitsbereich enthält dazu nichts: die gefundenen Stellen beantworten die Frage nicht.",
    "fr": "L'espace de travail n'en dit rien : les passages trouvés ne répondent pas à cette question.",
    "es": "El espacio de trabajo no lo dice: los lugares encontrados no responden a esta pregunta.",
}
#: ... or before it, for the reason the verdict gave: the question names what the workspace
#: never mentions ({names}) ...
NEVER_MENTIONS = {
    "en": "The workspace does not say: it never mentions {names}.",
    "ja": "ワークスペースには記載がありません（{names} はワークスペースのどこにも出てきません）。",
    "zh": "工作区中没有相关内容：工作区中从未提到 {names}。",
    "ko": "작업 공간에 관련 내용이 없습니다: 작업 공간 어디에도 {names}이(가) 나오지 않습니다.",
    "de": "Der Arbeitsbereich enthält dazu nichts: {names} kommt darin nirgends vor.",
    "fr": "L'espace de travail n'en dit rien : {names} n'y apparaît nulle part.",
    "es": "El espacio de trabajo no lo dice: {names} no aparece en ninguna parte.",
}
#: ... or most of its words occur nowhere in the workspace.
FEW_WORDS = {
    "en": "The workspace does not say: most of the question's words occur nowhere in it.",
    "ja": "ワークスペースには記載がありません（質問の言葉のほとんどがワークスペースのどこにも出てきません）。",
    "zh": "工作区中没有相关内容：问题中的大多数词在工作区中都没有出现。",
    "ko": "작업 공간에 관련 내용이 없습니다: 질문의 단어 대부분이 작업 공간 어디에도 없습니다.",
    "de": "Der Arbeitsbereich enthält dazu nichts: die meisten Wörter der Frage kommen darin nicht vor.",
    "fr": "L'espace de travail n'en dit rien : la plupart des mots de la question n'y figurent pas.",
    "es": "El espacio de trabajo no lo dice: la mayoría de las palabras de la pregunta no aparecen en él.",
}
LOOK = {
    "en": " Places to look: {places}.",
    "ja": "参考になりそうな場所: {places}",
    "zh": " 可以查看的位置：{places}。",
    "ko": " 참고할 위치: {places}.",
    "de": " Hier nachsehen: {places}.",
    "fr": " Où regarder : {places}.",
    "es": " Dónde mirar: {places}.",
}
#: How an answer begins when the search found only the nearest excerpts, with no keyword or
#: agreement evidence (confidence "low"): the model may have had to infer (seed 002).
HEDGE = {
    "en": "Likely: ",
    "ja": "推測ですが、",
    "zh": "推测：",
    "ko": "추정: ",
    "de": "Vermutlich: ",
    "fr": "Probablement : ",
    "es": "Probablemente: ",
}
#: Why the excerpts stand in for an answer when the model wrote none.
NO_ANSWER = {
    "en": "it wrote no answer",
    "ja": "回答が書かれませんでした",
    "zh": "模型没有写出回答",
    "ko": "모델이 답을 쓰지 않았습니다",
    "de": "es schrieb keine Antwort",
    "fr": "il n'a écrit aucune réponse",
    "es": "no escribió ninguna respuesta",
}
CUT_NOTE = {
    "en": " … [answer cut: {why}]",
    "ja": " …［回答は途中で打ち切られました: {why}］",
    "zh": " …［回答被截断：{why}］",
    "ko": " … [답변이 중단됨: {why}]",
    "de": " … [Antwort abgebrochen: {why}]",
    "fr": " … [réponse interrompue : {why}]",
    "es": " … [respuesta cortada: {why}]",
}
#: The first line of an extractive answer, by why it is one.
EXTRACTIVE_HEAD = {
    "content_free": {
        "en": (
            "Extractive mode: the model's answer only restated the question or described the "
            "excerpts, so these are the excerpts' key lines."
        ),
        "ja": "抽出モード: モデルの回答は質問の言い換えか抜粋の説明だけだったため、抜粋の要点を示します。",
        "zh": "摘录模式：模型的回答只是复述了问题或描述了摘录，因此这里列出摘录的要点。",
        "ko": "발췌 모드: 모델의 답이 질문을 되풀이하거나 발췌를 설명할 뿐이어서 발췌의 핵심 줄을 보여 줍니다.",
        "de": (
            "Auszugsmodus: Die Antwort des Modells wiederholte nur die Frage oder beschrieb die "
            "Auszüge; hier sind deren wichtigste Zeilen."
        ),
        "fr": (
            "Mode extrait : la réponse du modèle ne faisait que reformuler la question ou décrire "
            "les extraits ; voici leurs lignes essentielles."
        ),
        "es": (
            "Modo extractivo: la respuesta del modelo solo repetía la pregunta o describía los "
            "extractos; estas son sus líneas clave."
        ),
    },
    "other_language": {
        "en": (
            "Extractive mode: the model's answer was not written in English, so these are the "
            "excerpts' key lines."
        ),
        "ja": "抽出モード: モデルの回答が日本語で書かれていなかったため、抜粋の要点を示します。",
        "zh": "摘录模式：模型的回答不是用中文写的，因此这里列出摘录的要点。",
        "ko": "발췌 모드: 모델의 답이 한국어로 쓰이지 않아 발췌의 핵심 줄을 보여 줍니다.",
        "de": (
            "Auszugsmodus: Die Antwort des Modells war nicht auf Deutsch; hier sind die "
            "wichtigsten Zeilen der Auszüge."
        ),
        "fr": (
            "Mode extrait : la réponse du modèle n'était pas en français ; voici les lignes "
            "essentielles des extraits."
        ),
        "es": (
            "Modo extractivo: la respuesta del modelo no estaba en español; estas son las "
            "líneas clave de los extractos."
        ),
    },
    "missing": {
        "en": (
            "Extractive mode: no language model is installed, so these are the most relevant "
            "excerpts, not a written answer. Install one with `{hint}`."
        ),
        "ja": (
            "抽出モード: 言語モデルがインストールされていないため、回答文ではなく関連する抜粋を"
            "示します。`{hint}` でインストールできます。"
        ),
        "zh": "摘录模式：未安装语言模型，因此这里列出最相关的摘录，而不是写出的回答。可用 `{hint}` 安装。",
        "ko": "발췌 모드: 언어 모델이 설치되어 있지 않아 작성된 답 대신 가장 관련 있는 발췌를 보여 줍니다. `{hint}`로 설치하세요.",
        "de": (
            "Auszugsmodus: Kein Sprachmodell installiert; hier sind die passendsten Auszüge statt "
            "einer Antwort. Installieren mit `{hint}`."
        ),
        "fr": (
            "Mode extrait : aucun modèle de langue n'est installé ; voici les extraits les plus "
            "pertinents plutôt qu'une réponse. Installez-en un avec `{hint}`."
        ),
        "es": (
            "Modo extractivo: no hay ningún modelo de lenguaje instalado; estos son los "
            "extractos más relevantes, no una respuesta. Instale uno con `{hint}`."
        ),
    },
    "failed": {
        "en": (
            "Extractive mode: the language model could not be used ({why}), so these are the "
            "most relevant excerpts, not a written answer."
        ),
        "ja": "抽出モード: 言語モデルを使えなかったため（{why}）、回答文ではなく関連する抜粋を示します。",
        "zh": "摘录模式：无法使用语言模型（{why}），因此这里列出最相关的摘录，而不是写出的回答。",
        "ko": "발췌 모드: 언어 모델을 사용할 수 없어({why}) 작성된 답 대신 가장 관련 있는 발췌를 보여 줍니다.",
        "de": (
            "Auszugsmodus: Das Sprachmodell war nicht nutzbar ({why}); hier sind die passendsten "
            "Auszüge statt einer Antwort."
        ),
        "fr": (
            "Mode extrait : le modèle de langue n'a pas pu être utilisé ({why}) ; voici les "
            "extraits les plus pertinents plutôt qu'une réponse."
        ),
        "es": (
            "Modo extractivo: no se pudo usar el modelo de lenguaje ({why}); estos son los "
            "extractos más relevantes, no una respuesta."
        ),
    },
    "uncited": {
        "en": "The answer was cut before it cited anything; these are the most relevant excerpts.",
        "ja": "回答が引用の前に打ち切られたため、関連する抜粋を示します。",
        "zh": "回答在引用任何内容之前被截断；以下是最相关的摘录。",
        "ko": "답변이 인용 전에 중단되어 가장 관련 있는 발췌를 보여 줍니다.",
        "de": "Die Antwort brach ab, bevor sie etwas zitierte; hier sind die passendsten Auszüge.",
        "fr": "La réponse a été interrompue avant de citer quoi que ce soit ; voici les extraits les plus pertinents.",
        "es": "La respuesta se cortó antes de citar nada; estos son los extractos más relevantes.",
    },
}


def say(table: dict[str, str], language: str) -> str:
    """``table``'s text in ``language``, English when it has none."""
    return table.get(language) or table["en"]


assert all(language in LANGUAGE_NAMES for language in QUESTION_LANGUAGES)
