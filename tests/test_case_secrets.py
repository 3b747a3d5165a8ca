"""Which secrets a saved case hides in the command it records (SAFE-1), beyond those
tests/test_case_travel.py shows: a password in a URL, and an authorization header's value."""

from __future__ import annotations

import pytest

from loopspec.properties.conformance.case_portable import portable, shared


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
        (
            # The option and its value as two words, as most CLIs take a key.
            "python3 loop.py --api-key sk-x --token 'a b' -password hunter2 --model gpt-4",
            "python3 loop.py --api-key <hidden> --token <hidden> -password <hidden> --model gpt-4",
        ),
        (
            # A provider's key under a name that says nothing (PAT), or none at all.
            "env GITHUB_PAT=ghp_" + "a" * 36 + " node main.mjs sk-proj-" + "b" * 40,
            "env GITHUB_PAT=<hidden> node main.mjs <hidden>",
        ),
        (
            # Model hosts' keys, an agent loop's usual ones, under names that say nothing.
            f"env HF=hf_{'c' * 34} node main.mjs gsk_{'d' * 52} xai-{'e' * 80} r8_{'f' * 37} "
            f"--host pplx-{'g' * 48}",
            "env HF=<hidden> node main.mjs <hidden> <hidden> <hidden> --host <hidden>",
        ),
        (
            "node main.mjs --header 'Authorization: Bearer abc.def' --url http://x/?k=AKIA"
            + "A" * 16,
            "node main.mjs --header 'Authorization: Bearer <hidden>' --url http://x/?k=<hidden>",
        ),
        (
            # A query's secret parameter alone: the parameters after it were hidden with it.
            "node main.mjs --url 'https://x/v1?api_key=abc&model=m1#top'",
            "node main.mjs --url 'https://x/v1?api_key=<hidden>&model=m1#top'",
        ),
    ],
    ids=[
        "database-url",
        "git-remote",
        "authorization",
        "option-then-value",
        "key-shaped-values",
        "model-host-keys",
        "bearer-and-query",
        "query-parameter",
    ],
)
def test_SAFE_1_a_case_hides_a_urls_password_and_an_authorization(
    typed: str, recorded: str
) -> None:
    """SAFE-1: a URL's password (`scheme://user:PASSWORD@host`, as in DATABASE_URL) and an
    AUTHORIZATION=... value were written verbatim in a case made to be posted; so were a key
    given as `--api-key VALUE` (two words), one under a name that says nothing (GITHUB_PAT) or
    bare, and an HTTP header's bearer token."""
    assert portable(typed) == recorded


@pytest.mark.parametrize(
    "typed",
    [
        "env AUTHOR=omar KEYBOARD=us node main.mjs",
        "node main.mjs --remote https://github.com/x.git --user omar@example.com",
        "node main.mjs --url http://localhost:8080/a@b",
        # Options whose next word is no secret: a negated flag, where a secret is kept, a flag
        # followed by another option, and a short `sk-` word that is no key.
        "node main.mjs --no-auth loop.mjs --token-file ./t.txt --api-key-env KEY --auth -v",
        "node main.mjs --mode sk-fast",
        "python3 hf_inferenceloopwithtools.py --cache r8_cache",
        # A model's budget and a key's size name no secret: hidden, the rerun line was refused
        # until a "secret" was put back.
        "env MAX_TOKENS=4096 node main.mjs --max-tokens 100 --token-limit=5 --key-size 2048",
    ],
    ids=[
        "names-that-say-no-secret",
        "url-without-password",
        "port-then-at-in-path",
        "options-whose-next-word-is-no-secret",
        "short-sk-word",
        "files-named-like-model-host-keys",
        "token-and-key-measures",
    ],
)
def test_SAFE_1_a_case_keeps_what_holds_no_secret(typed: str) -> None:
    """SAFE-1: a name that only contains a secret word's letters, a URL without a password and
    a port are written as they were (a reader needs them to tell what ran)."""
    assert portable(typed) == typed


@pytest.mark.parametrize(
    ("typed", "recorded"),
    [
        ("node /srv/alice/loops/main.mjs", "node <path>/main.mjs"),
        (
            "env PYTHONPATH=/opt/acme/lib:/opt/acme/x python3 -m loop",
            "env PYTHONPATH=<path>/lib:<path>/x python3 -m loop",
        ),
        (
            "node C:/Users/alice-work/main.mjs --dir /srv/acme/",
            "node <path>/main.mjs --dir <path>/acme/",
        ),
        (
            "node main.mjs --url file:///srv/alice/x.json",
            "node main.mjs --url file://<path>/x.json",
        ),
        # A Windows path as Windows writes it, a share's, and what Node says of a missing file.
        (r"node 'C:\Users\bob\loop\main.mjs'", r"node '<path>\main.mjs'"),
        (r"node \\fs01\acme\bob\main.mjs", r"node <path>\main.mjs"),
        (r"Cannot find module 'D:\bob\x.mjs'", r"Cannot find module '<path>\x.mjs'"),
        # Kept: an interpreter in a system folder, a device, a top folder, another URL's path.
        ("/usr/local/bin/node /srv --log /dev/null", "/usr/local/bin/node /srv --log /dev/null"),
        ("node m.mjs --url https://host/srv/alice", "node m.mjs --url https://host/srv/alice"),
        (
            r"C:\Windows\System32\cmd.exe /c C:\run.bat",
            r"C:\Windows\System32\cmd.exe /c C:\run.bat",
        ),
        (r"printf 'a\nb' \\", r"printf 'a\nb' \\"),
    ],
    ids=[
        *("file", "path-list", "windows-and-folder", "file-url", "windows-backslashes"),
        *("windows-share", "windows-error", "system", "url", "windows-system", "escapes"),
    ],
)
def test_SAFE_1_a_case_writes_a_path_outside_both_folders_by_its_last_name(
    typed: str, recorded: str
) -> None:
    """SAFE-1: a path outside the working and home folders was kept as typed in a case, a
    user's or an organisation's folder names with it."""
    assert shared(typed) == recorded
    assert shared(recorded) == recorded
