"""The built-in scripted session `loopspec demo` runs: parallel calls, a deny, an ask, a rewrite.

Turn 1: the model reads two files in parallel (the second finishes first; results still commit
in model order) and runs a shell command that a PreToolUse hook rewrites and another hook wants
approved; the user approves the rewritten command, which is what runs and what every reader
shows. Turn 2: a hook denies a destructive command. Turn 3 is cut by a crash and repaired.
"""

from __future__ import annotations

from loopspec.model.commands import (
    Allow,
    ApprovalAnswers,
    Ask,
    Command,
    Crash,
    Deny,
    HookAnswers,
    ModelReplies,
    Pass,
    Recover,
    SubmitUser,
    ToolFinishes,
    ToolSucceeded,
)
from loopspec.model.config import HookSpec, LoopConfig, ToolSpec
from loopspec.model.messages import TextBlock, ToolCallBlock

DEMO_CONFIG = LoopConfig(
    tools=(
        ToolSpec("read", concurrency_safe=True, required_keys=("file_path",)),
        ToolSpec("bash", concurrency_safe=False, required_keys=("command",)),
    ),
    hooks=(
        HookSpec("policy", "PreToolUse", "bash"),
        HookSpec("safe-flags", "PreToolUse", "bash"),
    ),
)

DEMO_COMMANDS: tuple[Command, ...] = (
    SubmitUser("Read a.txt and b.txt, then clean the build."),
    ModelReplies(
        (
            TextBlock("Reading both files and cleaning up."),
            ToolCallBlock("call_a", "read", '{"file_path":"a.txt"}'),
            ToolCallBlock("call_b", "read", '{"file_path":"b.txt"}'),
            ToolCallBlock("call_c", "bash", '{"command":"rm -rf build"}'),
        )
    ),
    HookAnswers(Ask("deleting files needs a human")),
    HookAnswers(Allow({"command": "rm -rf ./build --one-file-system"})),
    ToolFinishes("call_b", ToolSucceeded("beta")),
    ToolFinishes("call_a", ToolSucceeded("alpha")),
    ApprovalAnswers("allowed-once"),
    ToolFinishes("call_c", ToolSucceeded("removed ./build\n[exit code: 0]")),
    ModelReplies((TextBlock("a.txt says alpha, b.txt says beta; build/ is gone."),)),
    SubmitUser("Now wipe the disk."),
    ModelReplies((ToolCallBlock("call_d", "bash", '{"command":"dd if=/dev/zero of=/dev/sda"}'),)),
    HookAnswers(Deny("writing to block devices is never allowed")),
    HookAnswers(Pass()),
    ModelReplies((TextBlock("I can't do that: a policy hook refused it."),)),
    SubmitUser("Read c.txt."),
    ModelReplies((ToolCallBlock("call_e", "read", '{"file_path":"c.txt"}'),)),
    Crash(),
    Recover(),
)
