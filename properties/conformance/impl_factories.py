"""What to offer when `--impl MODULE:FACTORY` names no factory, or a misspelt one or module.

`--impl tutorial_loop` (the tutorial's module without `:TutorialLoop`) was refused as "must be
MODULE:FACTORY" alone, leaving the person to open the file for the class's name. The module's
factories are the public callables it defines itself (a class or function it imports is
another module's); the nearest of them, or of the modules in the current folder or a folder of
the import path that is the user's own, is offered through `model.near_miss`, as every misspelt
name is.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import Final

from loopspec.model.near_miss import did_you_mean, offered

# Shown in full up to this many: a module defining more says the first few and how many.
_LISTED = 4


def factories(module: ModuleType) -> list[str]:
    """The public callables `module` defines, in the order it defines them."""
    return [
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and callable(value)
        and getattr(value, "__module__", None) == module.__name__
    ]


def missing_factory(module_name: str, option: str) -> str:
    """What follows "must be MODULE:FACTORY, got 'x'" for a module named without a factory:
    the one factory it defines offered, or its factories listed, each as the option names it;
    how to name one when the module cannot be imported (its own error is said once the
    factory is given)."""
    try:
        module = importlib.import_module(module_name)
    except Exception:
        return (
            ": the module, then after a colon the class or function that makes the target "
            f"({option} tutorial_loop:TutorialLoop)"
        )
    names = factories(module)
    if not names:
        return f": {module_name} defines no class or function to name after the colon"
    if len(names) == 1:
        return offered(f"{option} {module_name}:{names[0]}")
    return f"{_defines(module_name, names)} ({option} {module_name}:{names[0]}, say)"


def missing_attribute(module: ModuleType, attribute: str) -> str:
    """The factory `module` defines nearest `attribute`, offered, else its factories listed."""
    names = factories(module)
    offer = did_you_mean(attribute, names)
    return offer if offer or not names else _defines(module.__name__, names)


def _defines(module_name: str, names: list[str]) -> str:
    more = f", and {len(names) - _LISTED} more" if len(names) > _LISTED else ""
    return f"; {module_name} defines: {', '.join(names[:_LISTED])}{more}"


def missing_module(top: str, folder: str) -> str:
    """The nearest module to `top` in `folder`, else in a folder of the import path that is the
    user's own (pytest's `pythonpath` setting, `PYTHONPATH`: a `src` layout), offered. Python's
    own folders are not searched: a misspelt loop's name is no misspelling of a library's."""
    for place in (folder, *_own_import_folders()):
        offer = _nearest_module(top, place)
        if offer:
            return offer
    return ""


def missing_submodule(package: str, leaf: str) -> str:
    """` (PACKAGE, in FOLDER, holds no module LEAF; did you mean ...?)`: a package found and a
    module of it named wrongly, told apart from a module found that imports what is missing."""
    import importlib  # noqa: PLC0415 (only for a module not found)

    folders = list(getattr(importlib.import_module(package), "__path__", []))
    offer = next((found for found in (_nearest_module(leaf, f) for f in folders) if found), "")
    where = f", in {folders[0]}," if folders else ""
    return f" ({package}{where} holds no module {leaf}{offer})"


# Subfolders of the current one looked into for a module not found, at most: a home folder's
# many are not all read.
_SUBFOLDERS_LOOKED_INTO: Final = 200


def module_below(top: str, folder: str) -> str | None:
    """The subfolder of `folder`, one level down, that holds the module `top` (`top.py` or a
    package): a loop saved beside the case in a folder of its own (`myloop/`, `src/`), which
    the error told to be run "in the folder that holds it" without naming the one here. None
    when none does (hidden folders are not looked into)."""
    try:
        entries = sorted(os.listdir(folder))
    except OSError:
        return None
    looked = 0
    for entry in entries:
        place = os.path.join(folder, entry)
        if entry.startswith((".", "__")) or not os.path.isdir(place):
            continue
        if _holds_module(place, top):
            return entry
        looked += 1
        if looked >= _SUBFOLDERS_LOOKED_INTO:
            return None
    return None


def _own_import_folders() -> list[str]:
    """The folders of `sys.path` outside this Python's installation (its standard library and
    site-packages, a virtual environment's included), in import order."""
    import sys  # noqa: PLC0415 (only for a module not found)

    installed = {os.path.realpath(prefix) for prefix in (sys.prefix, sys.base_prefix)}
    own = []
    for entry in sys.path:
        real = os.path.realpath(entry) if entry else ""
        if (
            real
            and os.path.isdir(real)
            and not any(os.path.commonpath((real, prefix)) == prefix for prefix in installed)
        ):
            own.append(real)
    return list(dict.fromkeys(own))


def _nearest_module(top: str, folder: str) -> str:
    """The nearest module in `folder` (a `.py` file or a package) to `top`, offered."""
    try:
        entries = os.listdir(folder)
    except OSError:
        return ""
    names = dict.fromkeys(entry.removesuffix(".py") for entry in entries if entry != "__init__.py")
    return did_you_mean(top, [name for name in names if _holds_module(folder, name)])


def _holds_module(folder: str, name: str) -> bool:
    """Whether `import name` run in `folder` finds a module there: `name.py` or a package."""
    return os.path.isfile(os.path.join(folder, f"{name}.py")) or os.path.isfile(
        os.path.join(folder, name, "__init__.py")
    )
