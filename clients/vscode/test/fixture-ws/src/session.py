"""Login sessions for Lantern: create, check and end session tokens."""

import secrets
import time

IDLE_TIMEOUT_SECONDS = 30 * 60

_sessions: dict[str, tuple[str, float]] = {}


def create_session(user_id: str) -> str:
    """Create a session for a user who just signed in and return its token."""
    token = secrets.token_urlsafe(32)
    _sessions[token] = (user_id, time.time())
    return token


def check_session(token: str) -> str | None:
    """Return the user of a live session, or None when the token is unknown or idle too long."""
    entry = _sessions.get(token)
    if entry is None:
        return None
    user_id, last_seen = entry
    if time.time() - last_seen > IDLE_TIMEOUT_SECONDS:
        del _sessions[token]
        return None
    _sessions[token] = (user_id, time.time())
    return user_id


def current_user(token: str) -> str:
    """The user a request's token belongs to; PermissionError when they have to sign in again."""
    user_id = check_session(token)
    if user_id is None:
        raise PermissionError("the session expired: sign in again")
    return user_id


def end_session(token: str) -> None:
    """Sign out: forget the session so its token cannot be used again."""
    _sessions.pop(token, None)
