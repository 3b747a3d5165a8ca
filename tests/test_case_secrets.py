"""Which secrets a saved case hides in the command it records (SAFE-1), beyond those
tests/test_case_travel.py shows: a password in a URL, and an authorization header's value."""

from __future__ import annotations

import pytest

from loopspec.properties.conformance.case_portable import portable


@pytest.mark.parametrize(
    ("typed", "recorded"),
    [
        (
            "env DATABASE_URL=postgres://omar:hunter2@db.example/app node main.mjs",
            "env DATABASE_URL=postgres://omar:<hidden>@db.example/app node main.mjs",
        ),
        (
            "node main.mjs --remote https://omar:ghp_abc123@github.com/x.git",
            "node main.mjs --remote https://omar:<hidden>@github.com/x.git",
        ),
        (
            "env AUTHORIZATION=Bearer_abc HTTP_AUTHORIZATION=xyz node main.mjs",
            "env AUTHORIZATION=<hidden> HTTP_AUTHORIZATION=<hidden> node main.mjs",
        ),
    ],
    ids=["database-url", "git-remote", "authorization"],
)
def test_SAFE_1_a_case_hides_a_urls_password_and_an_authorization(
    typed: str, recorded: str
) -> None:
    """SAFE-1: a URL's password (`scheme://user:PASSWORD@host`, as in DATABASE_URL) and an
    AUTHORIZATION=... value were written verbatim in a case made to be posted."""
    assert portable(typed) == recorded


@pytest.mark.parametrize(
    "typed",
    [
        "env AUTHOR=omar KEYBOARD=us node main.mjs",
        "node main.mjs --remote https://github.com/x.git --user omar@example.com",
        "node main.mjs --url http://localhost:8080/a@b",
    ],
    ids=["names-that-say-no-secret", "url-without-password", "port-then-at-in-path"],
)
def test_SAFE_1_a_case_keeps_what_holds_no_secret(typed: str) -> None:
    """SAFE-1: a name that only contains a secret word's letters, a URL without a password and
    a port are written as they were (a reader needs them to tell what ran)."""
    assert portable(typed) == typed
