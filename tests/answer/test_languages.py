"""Questions in Chinese, Korean, German, French and Spanish: told apart (Chinese from
Japanese), answered in their own language, never refused for being in another language."""

from __future__ import annotations

import pytest
from groundls.chunkers.textrules import question_language

from groundls.answer.stages.prompt import build_messages, instructions, system_prompt
from groundls.answer.stages.rewrite import clean_reply
from groundls.answer.text import wording
from groundls.answer.text.grounding import says_nothing
from groundls.answer.text.language_checks import written_in
from tests.answer.test_service import UPLOAD, FakeModel, service


@pytest.mark.parametrize(
    ("question", "language"),
    [
        ("How do I add an optional option to a command?", "en"),
        ("コマンドに省略可能なオプションを追加するには？", "ja"),
        ("設定変更方法", "ja"),  # a heading in kanji alone is still Japanese
        ("如何给命令添加一个可选的选项？", "zh"),  # simplified letters Japanese does not use
        ("如何為命令新增一個可選的選項？", "zh"),  # traditional: by its function words
        ("명령에 선택적 옵션을 추가하려면 어떻게 해야 하나요?", "ko"),
        ("`click.option`으로 옵션을 추가하려면?", "ko"),
        ("Wie füge ich einem Befehl eine optionale Option hinzu?", "de"),
        ("Comment ajouter une option facultative à une commande ?", "fr"),
        ("¿Cómo agrego una opción opcional a un comando?", "es"),
        ("get_terminal_size", "en"),
        ("Die Konfiguration", "en"),  # one word is not enough to leave English
    ],
)
def test_a_questions_language_is_told_apart(question: str, language: str) -> None:
    assert question_language(question) == language


#: Questions of every kind a developer asks, written for the detector (no eval set's).
EVERYDAY = {
    "zh": [
        "这个函数返回什么？",
        "配置文件放在哪个目录下？",
        "为什么测试在本地能通过，在服务器上却失败？",
        "怎么把日志级别改成调试？",
        "数据库连接超时以后会重试几次？",
        "能不能关掉自动更新",
        "部署之前需要运行哪些命令",
        "缓存多久过期",
        "这个错误信息是什么意思",
        "如何升级到最新版本",
    ],
    "ko": [
        "이 함수는 무엇을 반환하나요?",
        "설정 파일은 어느 디렉터리에 있나요?",
        "로그 레벨을 디버그로 바꾸려면?",
        "데이터베이스 연결이 끊기면 몇 번 다시 시도하나요?",
        "자동 업데이트를 끌 수 있나요",
        "배포 전에 어떤 명령을 실행해야 하나요",
        "캐시는 얼마 동안 유지되나요",
        "이 오류 메시지는 무슨 뜻인가요",
        "최신 버전으로 업그레이드하는 방법",
        "테스트가 서버에서만 실패하는 이유는?",
    ],
    "de": [
        "Was gibt diese Funktion zurück?",
        "In welchem Verzeichnis liegt die Konfigurationsdatei?",
        "Warum schlagen die Tests nur auf dem Server fehl?",
        "Wie stelle ich das Log-Level auf Debug?",
        "Wie oft wird eine abgebrochene Datenbankverbindung erneut versucht?",
        "Kann man die automatische Aktualisierung abschalten?",
        "Welche Befehle muss ich vor dem Deployment ausführen?",
        "Wie lange bleibt der Cache gültig?",
        "Was bedeutet diese Fehlermeldung?",
        "Wie aktualisiere ich auf die neueste Version?",
    ],
    "fr": [
        "Que renvoie cette fonction ?",
        "Dans quel répertoire se trouve le fichier de configuration ?",
        "Pourquoi les tests échouent-ils seulement sur le serveur ?",
        "Comment passer le niveau de journalisation en debug ?",
        "Combien de fois une connexion perdue à la base est-elle retentée ?",
        "Peut-on désactiver la mise à jour automatique ?",
        "Quelles commandes faut-il lancer avant le déploiement ?",
        "Combien de temps le cache reste-t-il valide ?",
        "Que signifie ce message d'erreur ?",
        "Comment passer à la dernière version ?",
    ],
    "es": [
        "¿Qué devuelve esta función?",
        "¿En qué directorio está el archivo de configuración?",
        "¿Por qué las pruebas fallan solo en el servidor?",
        "¿Cómo cambio el nivel de registro a depuración?",
        "¿Cuántas veces se reintenta una conexión perdida a la base de datos?",
        "¿Se puede desactivar la actualización automática?",
        "¿Qué comandos hay que ejecutar antes del despliegue?",
        "¿Cuánto tiempo dura la caché?",
        "¿Qué significa este mensaje de error?",
        "¿Cómo actualizo a la última versión?",
    ],
    "ja": [
        "この関数は何を返しますか？",
        "設定ファイルはどのディレクトリにありますか",
        "設定変更方法",
        "ログレベル変更",
        "環境変数一覧",
        "自動更新を無効化",
        "デプロイ前に実行するコマンド",
        "キャッシュの有効期限",
        "エラーメッセージの意味",
        "最新版へ更新する手順",
    ],
    "en": [
        "What does this function return?",
        "Which directory holds the config file?",
        "Why do the tests fail only on the server?",
        "How do I set the log level to debug?",
        "How many times is a lost database connection retried?",
        "Can automatic updates be turned off?",
        "Which commands must run before deploying?",
        "How long does the cache stay valid?",
        "What does this error message mean?",
        "How do I upgrade to the latest version?",
        "en passant capture rules",
        "la la land soundtrack",
        "die hard",
        "make install",
    ],
}


@pytest.mark.parametrize("language", sorted(EVERYDAY))
def test_everyday_questions_are_read_in_their_language(language: str) -> None:
    assert [question_language(q) for q in EVERYDAY[language]] == [language] * len(
        EVERYDAY[language]
    )


def test_other_languages_get_the_english_rules_told_to_answer_in_theirs() -> None:
    assert "3. Answer in German, the language of the question." in system_prompt("de")
    assert "3. Answer in English, the language of the question." in system_prompt("en")
    user = build_messages("Wie?", [], "de")[1]["content"]
    assert "one to three German sentences" in user
    assert "in Spanish using only the excerpts" in instructions("es")
    assert "Answer the question using only the excerpts" in instructions("en")


def test_a_german_question_is_answered_in_german_and_not_found_is_said_in_german() -> None:
    model = FakeModel(["Fehlgeschlagene Uploads wiederholt `retry_upload` bis zu 3 Mal [1]."])
    svc, _ = service([UPLOAD], model)
    ans = svc.ask("Wo werden fehlgeschlagene Uploads wiederholt und wie oft?")
    assert ans.language == "de" and ans.mode == "llm" and ans.found
    assert "Answer in German" in model.messages[0]["content"]
    svc, _ = service([], FakeModel([]))
    ans = svc.ask("Wo werden fehlgeschlagene Uploads wiederholt und wie oft?")
    assert ans.answer.startswith(wording.NOT_FOUND["de"])


def test_a_question_in_another_language_is_not_refused_for_words_the_workspace_lacks() -> None:
    # the workspace holds none of the question's words (it is in French) but the search found
    # passages with some evidence: the model reads them
    model = FakeModel(["`retry_upload` renvoie le fichier jusqu'à 3 fois [1]."])
    svc, workspace = service([UPLOAD], model)
    workspace.confidence, workspace.coverage = "low", None
    ans = svc.ask("Où les envois échoués sont-ils relancés ?")
    assert model.calls == 1 and ans.found and ans.language == "fr"


def test_a_chinese_answer_keeps_its_chinese_sentences() -> None:
    said = "失败的上传由 `retry_upload` 重新发送，最多 3 次 [1]。"
    svc, _ = service([UPLOAD], FakeModel([said]))
    ans = svc.ask("失败的上传在哪里重试？重试几次？")
    assert ans.language == "zh" and ans.found and ans.answer.startswith("失败的上传")
    assert "chinese_sentences" not in ans.repairs


def test_a_short_answer_full_of_names_counts_as_german_and_plain_english_does_not() -> None:
    assert written_in("Setzen Sie `LANG=de_DE.UTF-8` in der crontab [1].", "de")
    assert written_in("`retry_upload` [1].", "fr")
    assert not written_in(
        "The upload is retried by the retry function up to three times in the loop [1].", "es"
    )


def test_a_translated_answer_must_add_to_the_question_not_restate_it() -> None:
    excerpt = "def retry_upload(path, attempts=3):\n    for attempt in range(attempts): send(path)"
    question = "Wo werden fehlgeschlagene Uploads wiederholt?"
    restated = "Fehlgeschlagene Uploads werden wiederholt [1]."
    says = "Sie werden in einer Schleife erneut gesendet, bis alle Versuche verbraucht sind [1]."
    assert says_nothing(restated, [question], [excerpt], translated=True)
    assert not says_nothing(says, [question], [excerpt], translated=True)


def test_a_translation_for_the_search_must_be_english() -> None:
    english = "How do I add an optional option to a command?"
    assert clean_reply(english, english=True) == english
    assert clean_reply("Comment ajouter une option à une commande ?", english=True) is None
    assert clean_reply("Comment ajouter une option à une commande ?") is not None
