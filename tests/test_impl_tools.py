"""`loopspec.impl.tools`: sealed tool executions and their frozen arguments (rules EXE-2, EXE-3)."""

from __future__ import annotations

import json
from types import MappingProxyType

import pytest
from hypothesis import given
from hypothesis import strategies as st
from view_strategies import invalid_json_text, plain_json

from loopspec.impl.errors import NotJsonData, StageOrderError
from loopspec.impl.snapshot import plain, snapshot
from loopspec.impl.tools import RegisteredTool, Stage, ToolRegistry, read_arguments, seal
from loopspec.model.commands import ToolSucceeded
from loopspec.model.jsonvalue import FrozenMap, parse_arguments, thaw


def nested_arguments() -> dict[str, object]:
    return {"command": "ls", "env": {"PATH": ["/bin", "/usr/bin"]}, "flags": [{"a": 1}]}


def test_EXE_3_arguments_cannot_be_mutated() -> None:
    """EXE-3: no item of the sealed arguments can be changed, at any depth."""
    execution = seal(1, 1, "c1", "bash", nested_arguments())
    arguments = execution.arguments
    assert isinstance(arguments, MappingProxyType)
    env = arguments["env"]
    assert isinstance(env, MappingProxyType)
    paths = env["PATH"]
    flags = arguments["flags"]
    assert isinstance(paths, tuple)
    assert isinstance(flags, tuple)
    with pytest.raises(TypeError):
        arguments["command"] = "rm -rf /"  # type: ignore[index]
    with pytest.raises(TypeError):
        del arguments["command"]  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        env["PATH"] = ()  # type: ignore[index]
    with pytest.raises(AttributeError):
        paths.append("/sbin")  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        flags[0]["a"] = 2  # type: ignore[index]


def test_EXE_3_object_setattr_cannot_change_an_execution_or_its_arguments() -> None:
    """EXE-3: even `object.__setattr__` fails on the execution and on every argument node."""
    execution = seal(1, 1, "c1", "bash", nested_arguments())
    for field in ("call_id", "tool_name", "raw_arguments", "arguments", "stages"):
        with pytest.raises(AttributeError):
            object.__setattr__(execution, field, "changed")
    with pytest.raises(AttributeError):
        object.__setattr__(execution, "extra", 1)
    arguments = execution.arguments
    assert isinstance(arguments, MappingProxyType)
    for node in (arguments, arguments["env"], arguments["flags"]):
        with pytest.raises((AttributeError, TypeError)):
            object.__setattr__(node, "_mapping", {})
    assert plain(execution.arguments) == nested_arguments()


def test_EXE_3_arguments_are_a_snapshot_never_the_callers_object() -> None:
    """EXE-3: changing the caller's object after sealing changes nothing sealed."""
    given_arguments = nested_arguments()
    execution = seal(1, 1, "c1", "bash", given_arguments)
    given_arguments["command"] = "rm -rf /"
    env = given_arguments["env"]
    assert isinstance(env, dict)
    env["PATH"].append("/tmp")
    assert plain(execution.arguments) == nested_arguments()
    assert execution.raw_arguments == (
        '{"command":"ls","env":{"PATH":["/bin","/usr/bin"]},"flags":[{"a":1}]}'
    )


def test_EXE_3_every_stage_runs_once_and_in_order() -> None:
    """EXE-3: a stage can be reached once, never after a later one."""
    execution = seal(1, 1, "c1", "read", '{"file_path":"a"}')
    assert execution.stages.current is Stage.SEALED
    execution.enter(Stage.DECIDED)
    execution.enter(Stage.STARTED)
    with pytest.raises(StageOrderError):
        execution.enter(Stage.STARTED)
    with pytest.raises(StageOrderError):
        execution.enter(Stage.DECIDED)
    execution.enter(Stage.COMMITTED)
    with pytest.raises(StageOrderError):
        execution.enter(Stage.JUDGED)
    assert execution.stages.reached == (
        Stage.SEALED,
        Stage.DECIDED,
        Stage.STARTED,
        Stage.COMMITTED,
    )


@pytest.mark.parametrize(
    ("value", "path"),
    [
        ({"x": 10**4300}, "$.x"),
        ({"x": float("nan")}, "$.x"),
        ({"x": [1, float("inf")]}, "$.x[1]"),
        ({"x": -0.0}, "$.x"),
        ({1: "a"}, "$"),
        ({"x": {1, 2}}, "$.x"),
        ({"x": b"bytes"}, "$.x"),
    ],
)
def test_LOG_3_non_json_arguments_are_refused_naming_the_path(value: object, path: str) -> None:
    """LOG-3: sealing refuses what JSON cannot carry losslessly, and says where it is."""
    with pytest.raises(NotJsonData) as refused:
        seal(1, 1, "c1", "bash", value)  # type: ignore[arg-type]
    assert refused.value.path == path
    assert path in str(refused.value)


def test_LOG_3_a_cycle_is_refused() -> None:
    """LOG-3: a value that contains itself has no JSON form."""
    looped: dict[str, object] = {}
    looped["self"] = looped
    with pytest.raises(NotJsonData, match="cycle"):
        snapshot(looped)


DEEP = "[" * 100_000 + "]" * 100_000
HUGE = "9" * 5000


@given(plain_json | invalid_json_text | st.sampled_from(["", "  ", "{}", DEEP, HUGE]))
def test_EXE_2_arguments_parse_as_every_reader_parses_them(value: object) -> None:
    """EXE-2: blank text is {}, text that is not JSON stays the raw string (as the model reads)."""
    raw = value if isinstance(value, str) else json.dumps(value)
    ours = read_arguments(raw)
    theirs = parse_arguments(raw)
    assert plain(ours) == thaw(theirs)


def test_EXE_2_a_registered_tool_states_its_input_contract() -> None:
    """EXE-2: the contract is a JSON object with the required keys, named when missing."""

    async def body(_execution: object) -> ToolSucceeded:
        return ToolSucceeded("ok")

    tool = RegisteredTool("write", body, required_keys=("file_path", "content"))
    assert tool.input_problem(FrozenMap({"file_path": "a", "content": ""})) is None
    assert tool.input_problem(FrozenMap({})) == "missing required 'file_path', 'content'"
    assert tool.input_problem("text") == "the input must be a JSON object"
    with pytest.raises(ValueError, match="twice"):
        ToolRegistry([tool, tool])
