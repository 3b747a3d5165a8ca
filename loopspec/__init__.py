"""loopspec: an executable reference model of an agent's tool-call loop, and its checks.

The distribution has this one import package. Its parts live at the top of the repository and
are linked in here, so the source layout stays `model/`, `impl/`, `properties/`:

- `loopspec.model` — the reference state machine and the wire types (imports nothing else here);
- `loopspec.impl` — a real implementation of the loop, checked against the model;
- `loopspec.properties` — what checks an implementation: the log checker, the conformance kit,
  the stateful tests, the validators and the `loopspec` command line.

`SPEC.md` ships inside the package; `spec_text()` reads it.
"""

from __future__ import annotations

import os  # loaded by the interpreter's start already

__all__ = ["__version__", "spec_text"]


def __getattr__(name: str) -> str:
    # `__version__` is looked up on first use: finding it costs more than the whole
    # `loopspec --help`, which imports this package.
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from loopspec.version_lookup import version  # noqa: PLC0415 (a check needs none of it)

    return version()


def spec_text() -> str:
    """SPEC.md as shipped with this copy of loopspec: the file beside this module, read
    directly; importing importlib.resources, which finds the same file, costs `loopspec spec
    RULE` more than all the rest it does. Through importlib.resources only where the package
    is no folder (imported from a zip file)."""
    try:
        with open(os.path.join(os.path.dirname(__file__), "SPEC.md"), encoding="utf-8") as spec:
            return spec.read()
    except (FileNotFoundError, NotADirectoryError):
        from importlib import resources  # noqa: PLC0415

        return resources.files(__name__).joinpath("SPEC.md").read_text(encoding="utf-8")
