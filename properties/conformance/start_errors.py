"""Why a `--cmd` target could not start, or cannot run here: the setup problems conform and
replay name without a rule (SPEC PROTO-1's setup cases), from the command's words, the files
they name and what the process wrote on stderr before its first answer.

A program that started and then speaks wrongly breaks PROTO-1; one that never could (a missing
file, a path split at its space, a missing interpreter, package or dynamic loader, a program
built for another machine) is told what to change, in one sentence, and no rule is named.
"""

from __future__ import annotations

import ast
import contextlib
import errno
import itertools
import json
import os
import platform
import re
import shlex
import shutil
import urllib.parse
from pathlib import Path
from typing import Final, Literal

from loopspec.model.near_miss import MISSPELT, nearest, offered
from loopspec.properties.conformance.case_portable import portable
from loopspec.properties.conformance.driver_protocol import CANNOT_RUN_HERE

SHEBANG_BYTES: Final = 256
"""How much of a script's `#!` line the system reads (Linux), and so do start errors' words."""


# Endings that mark a word without a `/` as a script's file name (`python3 loop.py`).
_SCRIPT_SUFFIXES: Final = frozenset(
    (".py", ".js", ".mjs", ".cjs", ".ts", ".mts", ".rb", ".pl", ".php", ".lua", ".sh", ".jar")
)


def _relative_file_words(argv: list[str]) -> list[str]:
    """The arguments after the program that read as relative file paths (holding a `/`, or a
    script's name, `loop.py`); the first is the script an interpreter runs (`python3 -u
    loop.py`). A URL, an option or code is none."""
    return [
        argument
        for at, argument in enumerate(argv)
        if at
        and ("/" in argument or os.path.splitext(argument)[1] in _SCRIPT_SUFFIXES)
        and not argument.startswith(("-", "@"))  # an option, a scoped npm package
        and not os.path.isabs(argument)
        and "://" not in argument
        and not _is_code(argv, at)
    ]


def _unopened_operand(argv: list[str], stderr: str) -> str | None:
    """The program's first operand (its first argument that is no option, after an `env`'s
    assignments) when it names no file, reads as no other thing (code, a URL) and stderr names
    it as a file: quoted, or by its path from the current directory (an absolute path too: a
    colleague's `/workspace/loop.py`).
    That is the script an interpreter could not open, whatever its name: `python3 my
    loops/loop.py` split `my loops/loop.py` at its space, and python3 said it cannot open
    `.../my`, a word with neither a `/` nor a script's ending."""
    words = argv
    if os.path.basename(words[0]) == "env":  # its options and assignments, then the program
        words = list(itertools.dropwhile(lambda word: word[:1] == "-" or "=" in word, words[1:]))
    at = next((index for index, word in enumerate(words) if index and word[:1] != "-"), None)
    if at is None:
        return None
    operand = words[at]
    if (
        words[at - 1] == "-m"  # a module's name (`python3 -m pkg.loop`), not a file's
        or os.path.lexists(operand)
        or "://" in operand
        or _is_code(words, at)
    ):
        return None
    if not _NO_FILE.search(stderr):  # `make run`: "No rule to make target 'run'"
        return None
    # Node names the script it could not find resolved (`../loop.mjs` as `/home/b/loop.mjs`).
    here = os.path.join(os.getcwd(), operand)
    named = (f"'{operand}'", f'"{operand}"', here, os.path.abspath(operand))
    return operand if any(name in stderr for name in named) else None


# How interpreters say a script is not there: python3's "can't open file", node's "Cannot find
# module", perl's "Can't open perl script", ruby's and the system's "No such file", bun's "Module
# not found".
_NO_FILE: Final = re.compile(r"(?i)no such file|can't open|cannot find|not found")


def script_missing(argv: list[str], stderr: str) -> bool:
    """Whether the script the interpreter was given names no file, as the interpreter's stderr
    says: the interpreter started, the loop never did (a setup problem, SPEC PROTO-1)."""
    argv = _run_words(argv)
    file_like = _relative_file_words(argv)
    return _unopened_operand(argv, stderr) is not None or (
        bool(file_like)
        and not os.path.lexists(file_like[0])
        and (os.path.normpath(file_like[0]) in stderr)
    )


def missing_relative_paths(argv: list[str], stderr: str) -> list[str]:
    """The relative file paths among the arguments (`_relative_file_words`) that name nothing,
    where one is the script or the process's stderr names it, after the script its
    interpreter could not open (`_unopened_operand`, which may be absolute). An option's value
    that names no file yet (`--out logs/run.jsonl`), a URL, code or a sed expression is no
    cause of a process that says nothing of it."""
    argv = _run_words(argv)
    operand = _unopened_operand(argv, stderr)
    file_like = _relative_file_words(argv)
    if operand is not None:
        file_like = [operand, *(word for word in file_like if word != operand)]
    return [
        argument
        for index, argument in enumerate(file_like)
        if not os.path.lexists(argument) and (index == 0 or os.path.normpath(argument) in stderr)
    ]


def path_split_at_spaces(argv: list[str], missing: list[str]) -> str | None:
    """The path a missing argument begins, ends or is inside of, with the words around it, when
    that names a file: `node my loops/main.mjs` split `my loops/main.mjs` at its space, as a
    shell would, and the process died on `my` or on `loops/main.mjs`, which the user never
    typed alone."""
    argv = _run_words(argv)
    for argument in missing:
        at = argv.index(argument)
        for start in range(at, 0, -1):
            for end in range(max(at, start + 1), len(argv)):
                joined = " ".join(argv[start : end + 1])
                if os.path.lexists(joined):
                    return joined
    return None


# Characters of code (`python3 -c 'open("x/y")'`, `sh -c 'cd x; ...'`), not of a file's name.
# A space is in both: a file's (`bash 'my loop.sh'`) unless a code option's value holds it.
_CODE_CHARACTERS: Final = frozenset("\t\n\"'();{}<>|&$`")
# The options whose value is code (python3 and sh -c, node -e/--eval/-p/--print, perl -e/-E,
# ruby -e, php -r).
_CODE_OPTIONS: Final = frozenset(("-c", "-e", "-E", "--eval", "-p", "--print", "-r"))


# The shells whose `-c` a command may give its loop's command in (`sh -c 'node main.mjs'`).
_SHELLS: Final = frozenset(("sh", "bash", "dash", "zsh", "ksh"))


def _run_words(argv: list[str]) -> list[str]:
    """`argv`, or where it is a shell given one simple command to run (`sh -c 'exec node
    main.mjs'`, no character of code in it but spaces), that command's words (node,
    main.mjs), read as `argv` is; a command whose program is a path (`sh -c './loop.sh'`)
    keeps the shell before it, as the interpreter of a script it could not open."""
    if (
        len(argv) < 3
        or os.path.basename(argv[0]) not in _SHELLS
        or argv[1] != "-c"
        or not _CODE_CHARACTERS.isdisjoint(argv[2])
    ):
        return argv
    try:
        words = shlex.split(argv[2])
    except ValueError:  # a lone trailing backslash
        return argv
    words = words[1:] if words[:1] == ["exec"] else words
    if not words:
        return argv
    return [argv[0], *words] if "/" in words[0] else words


# The lines in which a shell, node and python say a path a shell command gave is not there:
# dash's and bash's failed `cd`, node's script (resolved: a module an import names has
# " imported from" after it, and a require's names no absolute path) and python's script.
_SHELL_NO_FOLDER: Final = (
    re.compile(r"^(?:sh|dash): \d+: cd: can't cd to (?P<path>.+)$", re.MULTILINE),
    re.compile(r"^bash: line \d+: cd: (?P<path>.+): No such file or directory$", re.MULTILINE),
)
_INTERPRETER_NO_FILE: Final = (
    re.compile(r"^Error: Cannot find module '(?P<path>/[^']+)'$", re.MULTILINE),
    re.compile(
        r"^\S+: can't open file '(?P<path>/[^']+)': \[Errno 2\] No such file or directory$",
        re.MULTILINE,
    ),
)


def missing_in_shell_code(argv: list[str], stderr: str) -> list[str]:
    """Where `argv` is a shell given code to run (`sh -c 'cd loops && node main.mjs'`, which
    `_run_words` cannot read as one command): what the shell's, node's or python's own line
    on stderr says is not there and is not, each as it is to be said: a folder `cd` could not
    enter, from the current directory (a folder an earlier `cd` moved from is not judged), and
    a script the interpreter resolved to an absolute path, said as the plain command's is."""
    if (
        len(argv) < 3
        or os.path.basename(argv[0]) not in _SHELLS
        or argv[1] != "-c"
        or _CODE_CHARACTERS.isdisjoint(argv[2])
    ):
        return []
    folders = [m["path"] for pattern in _SHELL_NO_FOLDER for m in pattern.finditer(stderr)]
    files = [m["path"] for pattern in _INTERPRETER_NO_FILE for m in pattern.finditer(stderr)]
    said = [
        f"{portable(folder)}: no such folder relative to the current directory, {os.getcwd()}"
        for folder in dict.fromkeys(folders)
        if not os.path.isabs(folder) and not os.path.lexists(folder)
    ]
    said += [
        _missing_script(path, argv[2]) for path in dict.fromkeys(files) if not os.path.lexists(path)
    ]
    return said


def nearest_file(path: str) -> str:
    """The file beside where `path` was looked for that it likely misspells (`lop.py`:
    loop.py), offered, else ""."""
    folder, name = os.path.split(path)
    try:
        entries = os.listdir(folder or ".")
    except OSError:
        return ""
    files = [entry for entry in entries if os.path.isfile(os.path.join(folder or ".", entry))]
    found = nearest(name, files)
    return "" if found is None else offered(os.path.join(folder, found))


def _missing_script(path: str, code: str) -> str:
    """The words for a script node or python resolved to `path` and could not open, as the plain
    command's are (`node main.mjs`): relative to the current directory, where the code did not
    name the absolute path itself (`sh -c 'node main.mjs; true'` said "./main.mjs")."""
    here = os.getcwd()
    if path in code or os.path.commonpath((here, path)) != here:
        return f"{portable(path)}: no such file"
    return (
        f"{portable(os.path.relpath(path, here))}: no such file relative to the current "
        f"directory, {here}"
    )


def _is_code(words: list[str], at: int) -> bool:
    """Whether the word at `at` reads as code, not as a file's name: it holds a character of
    code, or it holds a space and is a code option's value (`sh -c 'node main.mjs'`)."""
    word = words[at]
    return not _CODE_CHARACTERS.isdisjoint(word) or (
        " " in word and at > 0 and words[at - 1] in _CODE_OPTIONS
    )


def setup_problem(code: int | None) -> str | None:
    """What an exit status before a target's first answer says of the machine, when it says
    the target cannot run here (SPEC PROTO-1): the driver protocol's 69, and the 127 and 126 a
    shell or `env` gives a program it cannot find or run (a wrapper's `exec node ...` without
    Node, a `#!/usr/bin/env python` where only python3 is installed)."""
    if code == CANNOT_RUN_HERE:
        return (
            f"it cannot run on this machine (exit status {CANNOT_RUN_HERE} before its first "
            "answer: a setup problem, not a protocol break); install what its stderr names, "
            "then run this again"
        )
    if code == 127:
        return (
            "a program it starts was not found (exit status 127 before its first answer, as "
            "a shell or env gives a program it cannot find: a setup problem, not a protocol "
            "break); install what its stderr names, or correct the name, then run this again"
        )
    if code == 126:
        return (
            "a program it starts could not be run (exit status 126 before its first answer, "
            "as a shell or env gives a file it cannot execute: a setup problem, not a "
            "protocol break); its stderr names the file"
        )
    return None


# The last line of a Python that could not import a module: an uncaught ModuleNotFoundError
# (an ImportError with the same words, from older code), or `python3 -m pkg` naming a module
# that is not there (`/usr/bin/python3: No module named pkg`, `... (ModuleNotFoundError: ...)`).
_PYTHON_NO_MODULE: Final = re.compile(
    r"(?:^(?:ModuleNotFoundError|ImportError): |: |\(ModuleNotFoundError: )"
    r"No module named '?(?P<module>[A-Za-z_][\w.]*)'?"
)
# The last line of a Python importing a name a module does not have, and the module's file. In
# an installed package (under site-packages, `_INSTALLED`), another version of it than the loop
# was written for; in the loop's own package, a file of it missing (`_own_package_problem`). A
# name missing from the loop's own module, or a circular import ("from partially initialized
# module"), is the loop's.
_PYTHON_NO_NAME: Final = re.compile(
    r"^ImportError: cannot import name '(?P<name>[^']+)' from '(?P<module>[\w.]+)' "
    r"\((?P<file>.*)\)$"
)
# Node's line for an import or require it could not resolve, ESM's and CommonJS's.
_NODE_NO_MODULE: Final = re.compile(
    r"^Error(?: \[ERR_MODULE_NOT_FOUND\])?: Cannot find (?:module|package) '(?P<module>[^']+)'",
    re.MULTILINE,
)


def module_missing(argv: list[str], stderr: str) -> str | None:
    """What a target's stderr says of a package it needs, when it died before its first answer
    on an import that found none: a Python's last line naming the module, Node's error naming
    a package (a path, the loop's own file, is the loop's to resolve: no setup problem)."""
    last = next(iter(stderr.strip().splitlines()[-1:]), "")
    # The target's own sys.executable is unknown: the python is the one its command names.
    elsewhere = (
        "for that python, or give the command the python of a virtual environment that has it "
        "(.venv/bin/python, say), then run this again"
    )
    python = _PYTHON_NO_MODULE.search(last)
    if python is not None:
        module = python["module"]
        own = _own_module(module, stderr)
        if own is not None:
            found, folder = map(portable, own)
            return (
                f"the Python module {module} was not found from where the loop ran, though the "
                f"loop's own {found} is there (No module named {module!r} before its first "
                "answer: a setup problem, not a protocol break): python looks in the script's "
                "folder (the current directory for python3 -m), then PYTHONPATH and the "
                f"installed packages, not in {folder}; begin the command with env "
                f"PYTHONPATH={shlex.quote(folder)}, or run a module of a package as python3 -m "
                f"PACKAGE.MODULE from {folder}, then run this again"
            )
        return (
            f"the Python module {module} is not installed for {_python_given(argv)} (No module "
            f"named {module!r} before its first answer: a setup problem, not a protocol break); "
            f"install it {elsewhere}"
        )
    own_package = _own_package_problem(argv, last, stderr)
    if own_package is not None:
        return own_package
    too_old = _PYTHON_NO_NAME.match(last)
    if too_old is not None and _INSTALLED.search(too_old["file"]):
        name, module = too_old["name"], too_old["module"]
        return (
            f"the Python package {module} has no {name} in the version installed for "
            f"{_python_given(argv)} (cannot import name {name!r} from {module!r} before its "
            "first answer: another version than the loop needs, a setup problem, not a protocol "
            f"break); install the version it needs {elsewhere}"
        )
    npx = _NPX_CANCELED.search(stderr)
    if npx is not None:
        return _npx_would_install(npx["packages"])
    unknown = _NPM_NO_PACKAGE.search(stderr)
    if unknown is not None:
        name = _without_version(unknown["spec"])
        return (
            f"npx found no npm package {name} in the registry (404 before its first answer: a "
            "setup problem, not a protocol break); correct the package's name (a private one "
            "needs npm login), or install the loop's dependencies (npm install in its folder), "
            "then run this again"
        )
    offline = _NPM_NO_NETWORK.search(stderr)
    if offline is not None:
        return _npm_registry_unreachable(offline)
    node = _NODE_NO_MODULE.search(stderr)
    if node is not None and not re.match(r"[./\\]|file:|[A-Za-z]:[\\/]", node["module"]):
        package = node["module"]
        return (
            f"the Node package {package} is not installed where the loop looks for it (Cannot "
            f"find {package!r} before its first answer: a setup problem, not a protocol break); "
            "install the loop's dependencies (npm install in its folder), then run this again"
        )
    return None


# npm's line for an `npx PACKAGE` whose package is not installed, with no terminal to ask
# whether to install it (conform's targets have none): the packages, as a JSON list of specs.
_NPX_CANCELED: Final = re.compile(
    r"npx canceled due to missing packages and no YES option: (?P<packages>\[.*\])"
)


# npm's line for a package the registry does not have (`npx tsxx main.ts`): an unscoped name
# "is not in this registry", a scoped one "could not be found or you do not have permission".
_NPM_NO_PACKAGE: Final = re.compile(
    r"^npm (?:error|ERR!) 404 +(?:The requested resource )?'(?P<spec>[^']+)' "
    r"(?:is not in this registry|could not be found)",
    re.MULTILINE,
)


# npm's line for a registry it could not look up (npm 11.19.1, `npx tsx` with no network,
# `unshare -n`: EAI_AGAIN; a registry host no name server knows: ENOTFOUND), after its retries.
_NPM_NO_NETWORK: Final = re.compile(
    r"^npm (?:error|ERR!) (?:network )?request to (?P<url>\S+) failed, reason: getaddrinfo "
    r"(?P<code>EAI_AGAIN|ENOTFOUND) (?P<host>\S+)$",
    re.MULTILINE,
)


def _npm_registry_unreachable(line: re.Match[str]) -> str:
    """The setup error of npm's `_NPM_NO_NETWORK` line: the package is the request's last path
    part (`@acme%2frun`, a scoped one, is `@acme/run`)."""
    path = urllib.parse.unquote(urllib.parse.urlsplit(line["url"]).path)
    found = re.search(r"(@[^/]+/[^/]+|[^/]+)$", path)
    package = found[0] if found else line["url"]
    return (
        f"npx could not reach the npm registry, {line['host']}, to fetch the npm package "
        f"{package} (getaddrinfo {line['code']} before its first answer: no network, or no name "
        "server knows the host; a setup problem, not a protocol break); install it in the "
        f"loop's folder where the registry can be reached (npm install {package}), or mend the "
        "network or npm's registry setting, then run this again"
    )


def npx_silent_hint(argv: list[str], stderr: str) -> str:
    """Words for a `--cmd` run by npx that gave no answer to reset in time and wrote nothing:
    npx says nothing while it fetches a package, and with no network npm 11.19.1 retried for
    about 70 s before its `_NPM_NO_NETWORK` line, past the answer timeout."""
    if stderr.strip() or os.path.basename(_run_words(argv)[0]) != "npx":
        return ""
    return (
        "; npx writes nothing while it fetches a package it does not have, and with no network "
        "npm retries for about 70 s before it says so: give --answer-timeout 90 to see its "
        "words, or install the package in the loop's folder (npm install)"
    )


def _without_version(spec: str) -> str:
    """An npm spec's package name, without the version npx resolved or was given
    (`@scope/name@1.2.3` and `@scope/name@*` are `@scope/name`)."""
    return re.sub(r"(?<=.)@[^@/]*$", "", spec)


def _npx_would_install(packages: str) -> str:
    """The words for an `npx` that would install `packages` (a JSON list of npm specs,
    `["tsx@4.23.15"]`) to run the command: it asks first, and a target has no terminal."""
    try:
        specs = [str(spec) for spec in json.loads(packages)]
    except ValueError:
        specs = [packages]
    names = " ".join(map(_without_version, specs))
    return (
        f"npx would install the npm package {', '.join(specs)} to run the command, and asks "
        "first, which it cannot with no terminal (npx canceled due to missing packages before "
        "its first answer: a setup problem, not a protocol break); install it in the loop's "
        f"folder (npm install {names}), or begin the command with npx --yes, then run this again"
    )


# The last line of a Python whose relative import (`from . import tools`) ran in a module that
# was run as a script (`python3 myloop/main.py`), so that no package holds it.
_PYTHON_NO_PARENT: Final = "ImportError: attempted relative import with no known parent package"


def _own_package_problem(argv: list[str], last: str, stderr: str) -> str | None:
    """What a Python loop that is a package of its own died of, importing from it before its
    first answer, when its files and not its code say why: one of its modules run as a script
    (its relative import finds no package: run with -m, it would), or a module of the package
    importing from it a name neither its `__init__.py` nor a file of the folder has (`from .
    import tools` where no tools.py is: a file not copied, or the import misspelt)."""
    frames = _PYTHON_FRAME.findall(stderr)
    if not frames or _INSTALLED.search(frames[-1]):
        return None
    importer = Path(frames[-1])
    if last == _PYTHON_NO_PARENT:
        return _run_as_a_module(argv, importer)
    lacking = _PYTHON_NO_NAME.match(last)
    if lacking is None:
        return None
    name, package, held = lacking["name"], lacking["module"], Path(lacking["file"])
    folder = held.parent
    if (
        held.name != "__init__.py"
        or _INSTALLED.search(str(held))
        or not importer.is_relative_to(folder)
        or (folder / f"{name}.py").exists()
        or (folder / name).is_dir()
    ):
        return None
    return (
        f"the loop's package {package} has no {name}, which its {portable(str(importer))} "
        f"imports: no {name}.py nor {name}/ in {portable(str(folder))}, and no {name} in its "
        f"__init__.py (cannot import name {name!r} from {package!r} before its first answer: "
        "a file of the loop missing where it ran, a setup problem, not a protocol break); put "
        f"the loop's {name}.py there (a file not copied or not committed), or correct the "
        "import, then run this again"
    )


def _run_as_a_module(argv: list[str], script: Path) -> str | None:
    """The words for a module of a package (`script`, in a folder with an `__init__.py`) run
    as a script, with the command that runs it as a module of its package (`python3 -m
    myloop.main`, PYTHONPATH given the folder above the package unless it is the current
    directory); None when `script` is in no package (a relative import is then the loop's)."""
    if not (script.parent / "__init__.py").is_file():
        return None
    top = script.parent
    dotted = [] if script.name == "__init__.py" else [script.stem]
    while (top / "__init__.py").is_file():
        dotted.insert(0, top.name)
        top = top.parent
    module = ".".join(dotted)
    # The script's word made `-m` and the module, the rest kept; a script run by its `#!` line
    # or by a wrapper gets a python3 of its own
    file = os.path.realpath(script)
    at = next((i for i, word in enumerate(argv) if os.path.realpath(word) == file), None)
    if at:
        command = [*argv[:at], "-m", module, *argv[at + 1 :]]
    else:
        command = ["python3", "-m", module, *(argv[1:] if at == 0 else ())]
    if top.resolve() != Path.cwd().resolve():
        env = os.path.basename(command[0]) == "env"
        command[int(env) : int(env)] = [*(() if env else ("env",)), f"PYTHONPATH={top}"]
    return (
        f"the loop's {portable(str(script))} is a module of the package {dotted[0]}, run as a "
        "script, so its relative import found no package (attempted relative import with no "
        "known parent package before its first answer: a setup problem, not a protocol "
        f"break); run it as a module of its package, {portable(shlex.join(command))}, then "
        "run this again"
    )


# How much of a script is read to see whether it is a target for --impl (a loop's module).
_SOURCE_BYTES: Final = 1 << 20


def impl_module_given_as_command(argv: list[str]) -> str | None:
    """The words for a Python file that defines a target for `--impl` (a class with `reset`
    and `apply`, as the tutorial's loop is) given as a `--cmd`: run, it defines the class and
    exits 0 without reading a line, which read as a protocol break. None when the script the
    command runs is no such file."""
    script = next((word for word in argv if word.endswith(".py") and os.path.isfile(word)), None)
    if script is None:
        return None
    try:
        with open(script, "rb") as file:
            tree = ast.parse(file.read(_SOURCE_BYTES))
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        # (Nested past what the AST's builder takes, where the compiler took it: no hint.)
        return None
    target = next(
        (
            node.name
            for node in tree.body
            if isinstance(node, ast.ClassDef)
            and {"reset", "apply"}
            <= {item.name for item in node.body if isinstance(item, ast.FunctionDef)}
        ),
        None,
    )
    if target is None:
        return None
    module = Path(script).stem
    folder = os.path.dirname(script)
    where = f", run from {portable(folder)}" if folder not in ("", ".") else ""
    return (
        f" (exit status 0: {portable(script)} defines {target}, a target for "
        "--impl, not a program that answers the driver protocol on its stdin; give it as "
        f"--impl {module}:{target}{where} (--loopspec-impl under pytest): a wrong option, not "
        "a protocol break)"
    )


# A traceback's frame line naming its file (`  File "/srv/loop/main.py", line 3, in <module>`).
_PYTHON_FRAME: Final = re.compile(r'^  File "(?P<file>[^"<][^"]*)", line \d+', re.MULTILINE)
_INSTALLED: Final = re.compile(r"[/\\](?:site|dist)-packages[/\\]")


def _own_module(module: str, stderr: str) -> tuple[str, str] | None:
    """Where the module `module` a Python loop could not import is, as the loop's own file or
    package, and the folder that holds it, which the import path lacks; None when it is found
    nowhere near. Near is the folder of the file that imported it (the last frame of the
    traceback, one not among the installed packages) and the folders above it, the current
    directory and the folders in it (`src/`): `python3 -m loop` run where `loop.py` imports
    `helpers` beside it, or `python3 pkg/mypkg/main.py` importing its own package `mypkg`.
    Only a missing top-level name: Python names `pkg.sub` when `pkg` itself was found."""
    if "." in module:
        return None
    frames = _PYTHON_FRAME.findall(stderr)
    importer = Path(frames[-1]) if frames and not _INSTALLED.search(frames[-1]) else None
    here = Path.cwd()
    near = [*(importer.parents if importer is not None else ()), here]
    with contextlib.suppress(OSError):
        near += sorted(entry for entry in here.iterdir() if entry.is_dir())
    for folder in dict.fromkeys(near):
        for candidate in (folder / f"{module}.py", folder / module / "__init__.py"):
            if candidate.is_file():
                found = candidate if candidate.name != "__init__.py" else candidate.parent
                return str(found), str(folder)
    return None


def _python_given(argv: list[str]) -> str:
    """The python a command runs, as the command names it: its program (`python3`,
    `.venv/bin/python`), the one `env` is given, or the one the script's `#!` line names (the
    target's own `sys.executable` is unknown)."""
    words = argv
    named = "the command's python"
    if os.path.basename(words[0]) == "env":
        words = [word for word in words[1:] if not word.startswith("-") and "=" not in word]
    elif not _is_python(words[0]):
        try:
            with open(words[0], "rb") as file:
                first = file.read(SHEBANG_BYTES).partition(b"\n")[0]
        except OSError:
            first = b""
        words = [
            word
            for word in first[2:].decode("utf-8", "replace").split()
            if first.startswith(b"#!") and not word.startswith("-")
        ]
        words = words[1:] if words and os.path.basename(words[0]) == "env" else words
        named = f"the python the #! line of {portable(shlex.quote(argv[0]))} names"
    python = next(iter(words), "")
    if not _is_python(python):
        return "the python the command runs"
    return f"{portable(shlex.quote(python))}, {named}"


def _is_python(program: str) -> bool:
    """Whether `program` names a Python interpreter (`python3`, `/usr/bin/python3.12`)."""
    return os.path.basename(program).startswith("python")


# The programs that run a script of each ending, as a command begins with them.
_RUNNERS: Final = {
    ".py": ("python3",),
    ".js": ("node",),
    ".mjs": ("node",),
    ".cjs": ("node",),
    ".ts": ("deno run", "bun"),
    ".mts": ("deno run", "bun"),
    ".rb": ("ruby",),
    ".pl": ("perl",),
    ".php": ("php",),
    ".lua": ("lua",),
    ".sh": ("sh",),
    ".jar": ("java -jar",),
}
# What an ELF file's e_machine names, for the machines a loop is most often built for.
_ELF_MACHINES: Final = {
    0x03: "x86 (32-bit)",
    0x28: "32-bit ARM",
    0x3E: "x86_64",
    0xB7: "aarch64",
    0xF3: "RISC-V",
}


def _compiled_for(program: str) -> str | None:
    """What compiled program `program` is, when it is one (ELF, Mach-O, a Windows .exe): "a
    Windows program", "an ELF program for aarch64"; None for any other file."""
    try:
        with open(program, "rb") as file:
            head = file.read(20)
    except OSError:
        return None
    if head.startswith(b"\x7fELF") and len(head) == 20:
        order: Literal["little", "big"] = "big" if head[5] == 2 else "little"
        machine = int.from_bytes(head[18:20], order)
        return f"an ELF program for {_ELF_MACHINES.get(machine, f'machine {machine:#x}')}"
    if head[:4] in (b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe", b"\xfe\xed\xfa\xcf"):
        return "a macOS program (Mach-O)"
    if head.startswith(b"MZ"):
        return "a Windows program"
    return None


ELF_HEAD_BYTES: Final = 64 * 1024
"""How much of an ELF file is read for its program headers and dynamic loader's path."""


def _elf_loader(program: str) -> str | None:
    """The dynamic loader (PT_INTERP) the ELF program `program` names, None for any other file
    or an ELF without one (a static build)."""
    try:
        with open(program, "rb") as file:
            head = file.read(ELF_HEAD_BYTES)
    except OSError:
        return None
    if not head.startswith(b"\x7fELF") or len(head) < 64:
        return None
    wide = head[4] == 2  # ELFCLASS64
    order: Literal["little", "big"] = "big" if head[5] == 2 else "little"

    def number(at: int, size: int) -> int:
        return int.from_bytes(head[at : at + size], order)

    table, entry, count = (
        (number(32, 8), number(54, 2), number(56, 2))
        if wide
        else (
            number(28, 4),
            number(42, 2),
            number(44, 2),
        )
    )
    for index in range(count):
        at = table + index * entry
        if at + entry > len(head) or number(at, 4) != 3:  # PT_INTERP
            continue
        offset, size = (
            (number(at + 8, 8), number(at + 32, 8))
            if wide
            else (
                number(at + 4, 4),
                number(at + 16, 4),
            )
        )
        return head[offset : offset + size].rstrip(b"\0").decode("utf-8", "replace") or None
    return None


def _run_by(program: str) -> str:
    """`program` begun with what runs it, as its ending says ("python3 ./loop.py", "deno run
    ./loop.ts or bun ./loop.ts"); "" for an ending `_RUNNERS` does not know."""
    runners = _RUNNERS.get(os.path.splitext(program)[1], ())
    shown_program = shlex.quote(portable(program))
    return " or ".join(f"{runner} {shown_program}" for runner in runners)


def _versioned(program: str) -> str:
    """Where `program` is not on PATH and the same name ending in 3 is (`python` where only
    `python3` is installed, as on Debian and Ubuntu), words saying so; else ""."""
    if shutil.which(f"{program}3") is None:
        return ""
    return f"; {program}3 is: begin the command with {program}3"


def _nearest_on_path(program: str) -> str:
    """The program on PATH `program` likely misspells (`nodee`: node), offered, else "". Only a
    near one (near_miss.MISSPELT): PATH holds thousands of names, and a loose match would offer
    a stranger's program."""
    names: set[str] = set()
    for folder in os.get_exec_path():
        with contextlib.suppress(OSError):
            names.update(os.listdir(folder or "."))
    found = nearest(program, sorted(names), cutoff=MISSPELT)
    return "" if found is None or shutil.which(found) is None else offered(found)


# env's words for the program it was given and could not find (GNU's curly quotes around it).
_ENV_NOT_FOUND: Final = re.compile(
    r"\benv: [\u2018'\"]?(?P<program>[^\u2019'\":\s/]+)[\u2019'\"]?: No such file"
)


def env_missed(stderr: str) -> str:
    """What to name instead of the program `env` did not find (a script's `#!/usr/bin/env
    python`), when its name ending in 3 is on PATH; else ""."""
    missed = _ENV_NOT_FOUND.search(stderr)
    if missed is None or shutil.which(f"{missed['program']}3") is None:
        return ""
    program = missed["program"]
    return (
        f"; env found no {program}, and {program}3 is there: name {program}3 (in a #! line, "
        f"#!/usr/bin/env {program}3)"
    )


def start_hint(program: str, error: OSError) -> str:
    """What the system's reason for not starting `program` means for it, in parentheses ("" where
    the reason says enough)."""
    if error.errno == errno.ENOEXEC:
        compiled = _compiled_for(program)
        if compiled is not None and compiled.endswith(f" for {platform.machine()}"):
            return f" (it is {compiled}, as this machine is, which cannot load it: rebuild it)"
        if compiled is not None:  # #! lines are for scripts: this one was built elsewhere
            return (
                f" (it is {compiled}, which this machine, {platform.machine()}, does not run: "
                "build the loop on this machine, or for it)"
            )
        runners = _RUNNERS.get(os.path.splitext(program)[1])
        if runners is not None:
            runner = runners[0]
            env = "env -S" if " " in runner else "env"
            return (
                " (it has no #! first line naming the program that runs it: begin the command "
                f"with that program, {_run_by(program)}, or make its first line "
                f"#!/usr/bin/{env} {runner})"
            )
        return (
            " (it is no program this machine runs, and has no #! first line naming the one that "
            "runs it: add such a line, #!/bin/sh say, or begin the command with that program)"
        )
    if "/" not in program:
        # Looked up on PATH only, as a shell does: not in the current directory.
        if not isinstance(error, FileNotFoundError):
            return ""
        here = (
            f"; the file {program} in the current directory is started as ./{program}"
            if os.path.isfile(program)
            else ""
        )
        versioned = _versioned(program)
        offer = "" if versioned else _nearest_on_path(program)
        return f" (no program of that name in the folders of PATH{here}{versioned}){offer}"
    if not os.path.isfile(program):
        if isinstance(error, FileNotFoundError) and not os.path.isabs(program):
            # A shared case replayed from another folder: the usual cause.
            return f" (looked for relative to the current directory, {os.getcwd()})"
        return ""
    if isinstance(error, PermissionError) and not os.access(program, os.X_OK):
        chmod = f" (the file is not executable: chmod +x {shlex.quote(portable(program))}"
        if _compiled_for(program) is not None:  # no program to begin the command with
            return f"{chmod})"
        runner = _run_by(program) or "the program that runs it, sh or python3 say"
        return f"{chmod}, or begin the command with {runner})"
    loader = _elf_loader(program)
    if isinstance(error, FileNotFoundError) and loader is not None and not os.path.exists(loader):
        # The file is there: what is missing is the dynamic loader it was linked for.
        return (
            f" (it is a compiled program whose dynamic loader, {loader}, is not on this machine: "
            "it was built for another C library (musl, glibc) or another system; build it "
            "here, or link it statically)"
        )
    interpreter = _interpreter_named(program)
    if isinstance(error, FileNotFoundError) and interpreter is not None:
        # The file is there: what is missing is the program its #! line names.
        if interpreter.endswith("\r"):
            return (
                " (its #! line ends with a carriage return, the file having Windows line ends, "
                "so the interpreter looked for is a name ending in one: give the file Unix line "
                "ends)"
            )
        return (
            f" (its #! line names the interpreter {portable(interpreter)}, which does not exist:"
            " install it, or make the line name one that does)"
        )
    return ""


def _interpreter_named(script: str) -> str | None:
    """The interpreter `script`'s `#!` first line names, None without such a line."""
    try:
        with open(script, "rb") as file:
            first = file.read(SHEBANG_BYTES).partition(b"\n")[0]
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = re.split(rb"[ \t]+", first[2:].lstrip(b" \t"), maxsplit=1)
    return words[0].decode("utf-8", "replace") or None
