"""`python -m loopspec.impl.demo`: a scripted session on the real loop, then a crash and a reopen.

The model reads two files in parallel (the second finishes first; results still commit in
model order) and runs a shell command that one hook rewrites and another wants approved; the
user approves the rewritten command, which is what runs. Then the process "dies" while a call
runs, and reopening the log closes the interrupted turn. Every ACP update is printed as it is
emitted, and the log file is printed at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path

from loopspec.impl.agent_loop import AgentLoop, LoopSettings
from loopspec.impl.log_writer import SYNCED
from loopspec.impl.opening import SessionInfo
from loopspec.impl.presentation import ApprovalPrompt, CallCard, ResultCard, Shown
from loopspec.impl.scripted import ScriptedWorld
from loopspec.model.commands import Allow, Ask, ModelReplies, ToolSucceeded
from loopspec.model.config import HookSpec
from loopspec.model.messages import TextBlock, ToolCallBlock

HOOKS = (
    HookSpec("policy", "PreToolUse", "bash"),
    HookSpec("safe-flags", "PreToolUse", "bash"),
)


def show(item: Shown) -> None:
    """Print one live ACP payload."""
    match item:
        case CallCard() | ResultCard():
            print(f"  acp session/update  {json.dumps(item.update['update'])}")
        case ApprovalPrompt():
            print(f"  acp request_permission  {json.dumps(item.request['toolCall'])}")


class Demo:
    """One loop on a scripted world, stepped until it waits for the next scripted input."""

    def __init__(self, path: Path, event_loop: asyncio.AbstractEventLoop) -> None:
        self.event_loop = event_loop
        self.world = ScriptedWorld(HOOKS)
        tools = [
            self.world.tool("read", concurrency_safe=True, required_keys=("file_path",)),
            self.world.tool("bash", required_keys=("command",)),
        ]
        self.loop = AgentLoop.open(
            path,
            settings=LoopSettings(hooks=HOOKS),
            tools=tools,
            provider=self.world,
            hook_runner=self.world,
            approver=self.world,
            durability=SYNCED,
            session=SessionInfo("demo", "/workspace"),
            on_shown=show,
            event_loop=event_loop,
        )

    def settle(self, what: str) -> None:
        """Run until the loop waits for the outside world."""
        print(what)
        while not self.loop.settled:
            self.event_loop.run_until_complete(asyncio.sleep(0))


def run(path: Path) -> None:
    """Play the scripted session on a log at `path`."""
    event_loop = asyncio.new_event_loop()
    demo = Demo(path, event_loop)
    world = demo.world
    demo.loop.submit("Read a.txt and b.txt, then clean the build.")
    demo.settle("user: read two files and clean the build")
    world.reply(
        ModelReplies(
            (
                TextBlock("Reading both files and cleaning up."),
                ToolCallBlock("call_a", "read", '{"file_path":"a.txt"}'),
                ToolCallBlock("call_b", "read", '{"file_path":"b.txt"}'),
                ToolCallBlock("call_c", "bash", '{"command":"rm -rf build"}'),
            )
        )
    )
    demo.settle("model: three calls")
    world.answer_hook(Ask("deleting files needs a human"))
    demo.settle("hook policy: ask")
    world.answer_hook(Allow({"command": "rm -rf ./build --one-file-system"}))
    demo.settle("hook safe-flags: rewrite")
    world.finish("call_b", ToolSucceeded("beta"), ())
    demo.settle("b.txt read (first)")
    world.finish("call_a", ToolSucceeded("alpha"), ())
    demo.settle("a.txt read: both results commit, in model order")
    world.answer_approval("allowed-once")
    demo.settle("user approves the rewritten command")
    print(f"  the bash body received exactly {world.executions[-1].raw_arguments}")
    world.finish("call_c", ToolSucceeded("removed ./build\n[exit code: 0]"), ())
    demo.settle("bash finished")
    world.reply(ModelReplies((ToolCallBlock("call_d", "read", '{"file_path":"c.txt"}'),)))
    demo.settle("model: one more read ... and the process dies while it runs")
    demo.loop.discard()
    # Let the cancelled turn unwind before the event loop goes (a dead process has no loop).
    stopping = asyncio.gather(*asyncio.all_tasks(event_loop), return_exceptions=True)
    event_loop.run_until_complete(stopping)
    event_loop.close()
    reopened = Demo(path, asyncio.new_event_loop())
    recovery = reopened.loop.recovery
    print(f"reopened: {recovery.damage.describe()}; {recovery.repair_events} repair events")
    reopened.loop.close()
    print(f"\n== {path} ==")
    print(path.read_text(encoding="utf-8"), end="")


def main(argv: list[str] | None = None) -> None:
    """Run the demo on a temporary log, or on `--log PATH`."""
    parser = argparse.ArgumentParser(description="Run impl's scripted demo session.")
    parser.add_argument("--log", type=Path, help="where to write the log (default: temporary)")
    args = parser.parse_args(argv)
    if args.log is not None:
        run(args.log)
        return
    with tempfile.TemporaryDirectory(prefix="impl-demo-") as directory:
        run(Path(directory) / "session.jsonl")


if __name__ == "__main__":
    main()
