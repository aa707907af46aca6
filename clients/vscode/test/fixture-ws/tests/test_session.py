"""Tests of Lantern's login sessions."""

from src.session import check_session, create_session, end_session


def test_check_session_returns_the_user_of_a_live_session():
    token = create_session("ada")
    assert check_session(token) == "ada"


def test_an_ended_session_cannot_be_checked():
    token = create_session("ada")
    end_session(token)
    assert check_session(token) is None
