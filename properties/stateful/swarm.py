"""Swarm testing for conformance programs: each program leans on a few features, hard.

Drawing every command from one fixed mixture makes each feature rare in the same way in every
program: a rewrite needs a hooked configuration, a call its hook matches and a verdict with an
input, so programs with several rewrites, or a rewrite that an approval then shows, are few.
Swarm testing (Groce et al., 2012) draws per program which features are *on*; the features that
are on get most of the program's choices. Over many programs every combination turns up, and
each feature is frequent in the programs that have it on.

The situations a rule governs and the generator reaches on purpose:

- rewrites (RW-1, RW-2, RW-4): PreToolUse verdicts with an updated input, mostly one that fits the
  tool; *identity* rewrites, whose input equals the call's own arguments (a loop must still record
  them as rewrites); rewrites under `Ask`, so the approval shows the effective input;
- several hooks on one call (HOOK-3, HOOK-4): the hooked configurations, drawn more often, and
  the tools their PreToolUse hooks match (or their matchers name in part), drawn twice as often
  as the others;
- tool names an unanchored matcher would match in part (`bash_session` for the matcher `bash`,
  `preread` for `read`): `PARTIAL_NAMES_CONFIG` (HOOK-2);
- parallel calls (ORD-3, SCHED-1, ADJ-1): replies with two to four calls, three the simplest;
- approvals and denials (DEC-1, DEC-2), aborts (ABORT-1, ABORT-2), crashes (REC-1, REC-2),
  input typed mid-turn (queued input, ADJ-1): each a disruption or verdict with its own weight;
- denials without a reason (DEC-1's `denied`): with `silent_denials` on, no deny of the program
  gives one, so a call two hooks deny says `denied` too;
- results in and out of model order: with `out_of_order` on, a later call of the batch mostly
  settles first and waits for an earlier one (ORD-3); off, the earliest mostly settles first,
  so its result commits while later ones are still due;
- contexts a body or a PostToolUse hook defers while later results of the batch are due (ADJ-1);
  each call's body defers its own text (`deferred`), so when two calls' contexts settle out of
  model order, the order they are delivered in shows (ADJ-4: model order);
- outcomes for calls that already settled (EXE-4): a `ToolFinishes` for a call of the batch that
  is no longer running, which every loop must refuse; a success there always defers a context
  of its own (`refused_context`), which a loop queueing an outcome's contexts before judging it
  delivers all the same (MODEL-3); with settled outcomes on, aimed at a running batch
  (`batch_aims`), and first, once per batch, where one call finished and another runs
  (`first_aim`): so the simplest program sends one;
- crashes while a batch's calls await results (REC-1: crash repair writes them), with crashes
  on: in a running batch whose calls wait for none before them, two steps of four disrupt,
  such a crash and an outcome for a settled call drawn first (`batch_aims`); with
  `crashed_batches` on too (off in the simplest program, whose batch runs to its end), first,
  once per batch (`first_aim`);
- aborts over a partly finished batch: with aborts on, a disruption comes mostly after some call
  settled while an earlier one still runs; and first, once per batch, while a call has yet to
  pass the gate (ABORT-1: it is answered unstarted; `first_aim`), or while it waits for its
  approval and an earlier call runs (ABORT-3: the abort answers it cancelled at once); with
  `early_aborts` on too (three programs of four, the simplest among them), also while a call
  waits for its approval and once a result committed while a later call runs, and the
  simplest continuation types one more prompt after a turn that ended aborted (the conformance
  machine's `ending_choice`);
- replies that repeat a call id (EXE-1), which every loop must refuse whole: in a quarter of the
  programs, now and then, a reply's last call takes its first call's id;
- arguments blank to one of Python's `strip` and JavaScript's `trim` alone (EXE-2): with
  `blank_arguments` on, every batch ends with one more call whose arguments are such
  (drawn among the other malformed arguments alone, they came in one program of ten); and a
  tool without required keys (`KEYLESS_TOOL`), called with blank arguments in place of a grep
  call, so blank arguments also start a body (`{}`), which a loop reading only the empty
  string as `{}` refuses as invalid input;
- unacceptable rewrites (HOOK-6): among the inputs the swarm leans on, one in three to seven fits
  no tool (not an object, or without the keys the tool requires), and as many give the keys
  the tool requires null, which it takes (`null_keys`, off under a profile); the simplest input
  of a call's first hook of several fits no tool, a later hook's gives the keys null;
- a PreToolUse pass whose audit records `error` (a hook killed at its timeout, failing open,
  HOOK-7) on a call no other hook judges (`timed_out_hooks`, off under a profile), where
  passes are among the answers the swarm leans on;
- a message typed mid-turn twice (ADJ-4 delivers both): with one of the user's queued, half
  the messages typed mid-turn repeat it (the conformance machine's `typed_mid_turn`);
- arguments `null` (EXE-2: no object) among the malformed arguments;
- a bash result blocked by two PostToolUse hooks (its terminal card joins the two reasons): the
  hooked configurations' second copies add two PostToolUse hooks on bash, and of a result's
  several hooks the first mostly blocks and the next mostly blocks after it;
- an abort while a denied call has passed the gate past busy slots (DEC-1), the one state that
  tells it from a call waiting for a slot: there a step disrupts in three of five, mostly with
  an abort, whatever the swarm;
- an abort while a call waits for approval (ABORT-1: it is answered cancelled), with aborts on:
  there a step disrupts in three of five, mostly with an abort;
- input typed while the model request is awaited, with interjections on (half the disruptions
  there), and what comes after it: the request fails in one of four (ADJ-4: the input stays
  queued), and a reply has no calls in one of three (STEP-4: the turn goes on with it);
- allows with a reason, which only the hook's audit records (TEXT-2), never a deny's or an
  approval's reason (DEC-1, DEC-2): every other hook of a reply's calls gives one;
- a body's empty context, which is no context (ADJ-4): a body that defers its own context twice
  has an empty one between;
- a failed request's empty message, carried as given (TEXT-2): every other failure, by the
  log's length (`strategies.failure_on`);
- a body's failure named otherwise than `ToolError`, whose `{name, code}` is the result's error:
  each failure message has its own name;
- a PostToolUse block without a reason (DEC-3: `blocked by PostToolUse hook`, or the other
  blocks' reasons alone): with silent denials on, a result's first block, for every other call;
- arguments and hooks' inputs some readers get wrong (EXE-2, RW-2): a lone surrogate escape in a
  grep's arguments, integers past 2^64 in a bash call's and a bash hook's input, 1e300 in a
  read's and a write hook's input, -0.0 among the malformed arguments (`EXACTING_ARGUMENTS`),
  and in a result's meta an integer past 2^64 and a double of 17 significant digits;
- a call's PreToolUse hooks configured out of id order (HOOK-3, HOOK-4): the hooked
  configurations' second copies list them in reverse;
- three PreToolUse hooks on one call (HOOK-3: the last input in configured order wins, not the
  second): the reversed copy of the two-hook configuration adds `LAST_WORD`, whose answer
  (`last_word`) is sent with the one before it, drawing nothing;
- a call id an earlier reply used (EXE-1 refuses repeats within one reply alone; HIST-1 and
  VIEW-2 follow each call on its own): in the programs with repeated ids, as often as a repeat,
  a reply's last call takes the id of the call before the batch (not under a profile);
- reasons of only whitespace (TEXT-1, DEC-2, DEC-3 give them as is): denies, asks and
  PostToolUse blocks, tied to call numbers and hook positions (`BLANK_REASONS`);
- NaN, Infinity and 1e400 among the malformed arguments, absolute paths a title relativizes
  only inside the session cwd (VIEW-4) in reads and writes (`_IN_PLACE_BY_CALL`), and failed
  requests coded otherwise than OVERLOADED, the empty code too (`strategies.failure_on`);
- a lone surrogate escape in an argument's key, a bash command and a read's and a write's path,
  which titles show (`_IN_PLACE_BY_CALL`), and required keys Python's `repr` quotes otherwise
  than a simple escaper does (EXE-5: `'näme'`, `'a\\x00b'`, `'\\t'`, `"it's"`), which
  `preread`'s calls without arguments miss (`UNQUOTED_KEYS`);
- text as people write it (TEXT-1, TEXT-2, EXE-4, ADJ-4 keep it as given): precomposed and
  decomposed accents, CJK, right-to-left script and characters past U+FFFF in prompts, replies,
  results, failures and hooks' reasons (`EXACTING_TEXTS`).

Programs are then driven to a quiet end (the conformance machine's `settle`), so what is still
queued is delivered and compared too.

The simplest choice (index 0) is a rich one wherever that keeps programs finite. Among its first
examples (a tenth of the budget, at most 50), Hypothesis runs the simplest continuation of each
new random prefix (every later choice 0) and counts it as an example: when the simplest program
was one reply without calls, a kill spent a third of its examples on such programs. Now the
swarm's features are mostly on in it, a turn's first reply has calls (three with parallel calls
on), the first call's hooks ask with a rewrite, the second call's deny (a call's lone hook
passes, timing out, then asks, then denies), each hook of a call supplies another input (the
first of several one that fits no tool, a later one the input giving required keys null), the
earliest call settles first with a deferred context, and the reply after the batch ends the
turn: one turn that shows most of what its prefix turned on, as short as before once shrunk;
once its first call settled, an outcome for that call, which the model refuses (`first_aim`).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Sequence
from typing import TypeVar

import attrs

from loopspec.model.commands import (
    FINISH_CANCELLED,
    FINISH_COMPLETED,
    FINISH_MAX_TOKENS,
    Allow,
    Ask,
    Deny,
    HookAudit,
    ModelReplies,
    Pass,
    PostBlock,
    PostContext,
    PostPass,
    PostVerdict,
    PreVerdict,
    ReplyBlock,
    ToolFailed,
    ToolOutcome,
    ToolSucceeded,
)
from loopspec.model.config import POST_TOOL_USE, PRE_TOOL_USE, HookSpec, LoopConfig, ToolSpec
from loopspec.model.jsonvalue import FrozenMap, JsonValue, parse_arguments
from loopspec.model.messages import ReasoningBlock, TextBlock, ToolCallBlock
from loopspec.model.pure.decisions import may_start
from loopspec.model.rewrite import resolve_call, supplied_input
from loopspec.model.state import (
    ASKING,
    COMMITTED,
    DENY,
    READY,
    RUNNING,
    AwaitingModel,
    Dispatching,
    HookVote,
    Idle,
    Rewriting,
)
from loopspec.properties.stateful import strategies as gen

_Picked = TypeVar("_Picked")


@attrs.frozen
class Swarm:
    """Which features one program leans on."""

    crashed_batches: bool
    rewrites: bool
    identity_rewrites: bool
    approvals: bool
    parallel: bool
    aborts: bool
    crashes: bool
    interjections: bool
    settled_outcomes: bool
    denials: bool
    contexts: bool
    repeated_ids: bool
    silent_denials: bool
    out_of_order: bool
    blank_arguments: bool
    early_aborts: bool
    timed_out_hooks: bool
    null_keys: bool


def _usually(choose: Choose) -> bool:
    # Drawn as "off?", so the simplest draw (0), which Hypothesis tries first and shrinks
    # towards, turns the feature on: early and shrunk programs use every feature.
    return choose(2) == 0


def _rarely(choose: Choose) -> bool:
    return choose(4) == 3


def _mostly(choose: Choose) -> bool:
    return choose(4) < 3


def _half_the_time(choose: Choose) -> bool:
    return choose(2) == 1


def _always(_choose: Choose) -> bool:
    # Drawn as nothing: on in every program but those of a target that cannot take it
    # (`swarms`' `without`), whose programs draw what they drew before.
    return True


# Identity rewrites are on in half the programs (and off in the simplest): a loop that drops the
# sidecar shows it there and nowhere else, but the same drop on a real rewrite also shows what
# the loop runs. Repeated ids are on in a quarter: a refused reply ends nothing else's story.
# Results out of order are on in half, and off in the simplest, whose first call then settles
# first while the others are due (where a context must wait). Silent denials are on in three
# programs of four and in the simplest: a call two hooks deny says `denied` only when neither
# gave a reason; in the other quarter each deny draws its reason (none in one deny of three).
# Blank arguments are on in half the programs and off in the simplest: they add a call to every
# batch, which a shrunk program (its choices lowered towards the simplest) would then all carry.
# Early aborts are on in three programs of four and in the simplest (see `first_aim`), whose
# first turn's approval the abort answers cancelled, the call behind it unstarted, and whose
# second turn answers its approval, so the denied call after it shows what a deny does. Off in
# the simplest, loops that forgot the second unstarted call, or wrote the cancelled answer
# after the step, needed a median of 25 and 34.5 programs (batches 0-19). Hooks timing out
# (a pass audited `error`) and rewrites giving a required key null are on in every program but
# a real CLI's (conform's machine turns them off under a profile): an adapter answers each hook
# with its verdict, and a CLI's own tool schema refuses a null key the model's tool takes.
FEATURE_ODDS: dict[str, Callable[[Choose], bool]] = {
    "crashed_batches": _half_the_time,
    "identity_rewrites": _half_the_time,
    "repeated_ids": _rarely,
    "out_of_order": _half_the_time,
    "silent_denials": _mostly,
    "blank_arguments": _half_the_time,
    "early_aborts": _mostly,
    "timed_out_hooks": _always,
    "null_keys": _always,
}


def swarms(choose: Choose, without: frozenset[str] = frozenset()) -> Swarm:
    """Which features a program leans on, each drawn with its odds (one choice each); those
    named in `without` are off, and draw nothing."""
    return Swarm(
        *(
            field.name not in without and FEATURE_ODDS.get(field.name, _usually)(choose)
            for field in attrs.fields(Swarm)
        )
    )


# Required keys a simplified quoting writes otherwise than Python's `repr` (EXE-5, HOOK-6 quote
# each missing key so): a printable non-ASCII letter (kept, where `ascii` escapes it), NUL and
# a tab (`\x00`, `\t`, where a writer that escapes only quotes puts them raw), and a single
# quote (the key then in double quotes). Every required key was ASCII letters and `_`, and a
# loop quoting keys any such way passed every program. `preread`'s calls that named its path
# name them all (`PARTIAL_ARGUMENTS`), so every call fits or misses as before.
UNQUOTED_KEYS = ("n\u00e4me", "a\x00b", "\t", "it's")


# Tools whose names contain another tool's name, and hooks whose matchers name the shorter one:
# a loop that searches the matcher in the name (instead of matching the whole name) runs them.
PARTIAL_TOOLS = (
    ToolSpec("bash_session", concurrency_safe=False, required_keys=("command",)),
    ToolSpec("preread", concurrency_safe=True, required_keys=("file_path", *UNQUOTED_KEYS)),
)
PARTIAL_NAMES_CONFIG = LoopConfig(
    tools=(*gen.TOOLS, *PARTIAL_TOOLS),
    hooks=(
        HookSpec("bash-guard", "PreToolUse", "bash"),
        HookSpec("read-audit", "PreToolUse", "read"),
        HookSpec("read-after", "PostToolUse", "read"),
        # A second PostToolUse hook on reads: their audits, block reasons and contexts come in
        # configured order (HOOK-5, DEC-3, ADJ-4), which one hook per call never shows.
        HookSpec("after-all", "PostToolUse", "*"),
    ),
    max_parallel=2,
)


def _naming_unquoted_keys(arguments: str) -> str:
    """`arguments`, an object naming `file_path`, with `UNQUOTED_KEYS` too; an empty object
    written `{ }`, which a read's `{}` gives way to no number's arguments in (`_in_place`)."""
    parsed = parse_arguments(arguments)
    if parsed == FrozenMap({}):
        return "{ }"
    if not isinstance(parsed, FrozenMap) or "file_path" not in parsed:
        return arguments
    keys = "".join(f",{json.dumps(key)}:{index}" for index, key in enumerate(UNQUOTED_KEYS))
    return arguments[:-1] + keys + "}"


PARTIAL_ARGUMENTS = {
    "bash_session": gen.ARGUMENTS["bash"],
    "preread": [_naming_unquoted_keys(arguments) for arguments in gen.ARGUMENTS["read"]],
}
# Two PostToolUse hooks on bash: when both block, a bash result has several text blocks, which
# its terminal card joins with newlines (ACP-2, DEC-3). Only the partial-names configuration had
# two PostToolUse hooks on one call, and a bash result judged by two came in no program.
_BASH_POST_HOOKS = (
    HookSpec("bash-log", "PostToolUse", "bash"),
    HookSpec("bash-review", "PostToolUse", "bash|write"),
)


def _with_bash_post_hooks(config: LoopConfig) -> LoopConfig:
    """`config` with two PostToolUse hooks on bash, and its PreToolUse hooks in reverse order."""
    pre = tuple(hook for hook in config.hooks if hook.point == PRE_TOOL_USE)
    others = tuple(hook for hook in config.hooks if hook.point != PRE_TOOL_USE)
    return attrs.evolve(config, hooks=(*reversed(pre), *others, *_BASH_POST_HOOKS))


# A third PreToolUse hook on every call, configured last: with two hooks the last and the second
# are one, and a loop applying the second hook's input (or the first's, of three sorted by id:
# `everything`, `final`, `late`) passed every program. Its answer is not drawn (`last_word`): it
# is sent with the answer before it, so programs draw what they drew before.
LAST_WORD = HookSpec("final", "PreToolUse", "*")


def _with_last_word(config: LoopConfig) -> LoopConfig:
    """`config` with `LAST_WORD` after its other PreToolUse hooks."""
    return attrs.evolve(config, hooks=(*config.hooks, LAST_WORD))


def _with_preread(config: LoopConfig) -> LoopConfig:
    """`config` with `preread` too."""
    return attrs.evolve(config, tools=(*config.tools, PARTIAL_TOOLS[1]))


# A tool without required keys, which blank arguments (`{}`, EXE-2) fit: a loop that reads only
# the empty string as `{}` (real dsh) ends such a call as invalid input where its body runs.
# Every tool above requires a key, so blank arguments always ended their call unrun. It is left
# out of the names calls are drawn from (`_names`); a call to it takes the place of a grep call
# with the usual arguments below, where the two are alike to every draw (`keyless_in_place`), so
# every program draws what it drew before.
KEYLESS_TOOL = ToolSpec("list_dir", concurrency_safe=True)
KEYLESS_IN_PLACE_OF = ("grep", '{"pattern":"TODO"}')
# Blank to every reader (a space, as shell-quoted by the real-CLI driver too), so `{}`.
KEYLESS_ARGUMENTS = " "


def _with_keyless_tool(config: LoopConfig) -> LoopConfig:
    return attrs.evolve(config, tools=(*config.tools, KEYLESS_TOOL))


def without_keyless_tool(config: LoopConfig) -> LoopConfig:
    """`config` without `KEYLESS_TOOL`: its programs draw and send what they did before it came."""
    return attrs.evolve(config, tools=tuple(t for t in config.tools if t != KEYLESS_TOOL))


def keyless_in_place(config: LoopConfig, name: str, arguments: str, number: int) -> tuple[str, str]:
    """The call (tool name, arguments) drawn as `name` with `arguments` for call `c<number>`:
    the tool without required keys with blank arguments in place of `KEYLESS_IN_PLACE_OF`, for
    every other call number (grep keeps its usual call too), where `config` has that tool, no
    PreToolUse hook matches either tool, and as many PostToolUse hooks match each (a hook's
    verdicts are drawn for the tool's name and its hooks' number): both calls then run their
    body, alike to every later draw."""
    if (name, arguments) != KEYLESS_IN_PLACE_OF or number % 2:
        return name, arguments
    if config.tool(KEYLESS_TOOL.name) is None:
        return name, arguments
    keyless = KEYLESS_TOOL.name
    if config.hooks_for(PRE_TOOL_USE, name) or config.hooks_for(PRE_TOOL_USE, keyless):
        return name, arguments
    if len(config.hooks_for(POST_TOOL_USE, name)) != len(config.hooks_for(POST_TOOL_USE, keyless)):
        return name, arguments
    return keyless, KEYLESS_ARGUMENTS


# The bundled configurations, hooked ones twice (rewrites, several hooks and approvals need a
# hook; the second time with two PostToolUse hooks on bash, and the PreToolUse hooks in reverse
# order, the two hooks on every call then followed by a third, `LAST_WORD`), and the
# partial-names one. The bundled ones list the hooks of a call in id order, so a loop that ran
# and merged them by id, not in configured order (HOOK-3, HOOK-4), passed every random program;
# reversed, they are out of id order (`rewriter` before `guard`, `late` before `everything`).
# The copy hooking bash and write has `preread` too, which no PreToolUse hook there matches
# (its calls missing keys Python's `repr` quotes otherwise than plain quotes are then refused
# as invalid input, TEXT-1, not in a hook's name, HOOK-6: a loop quoting missing keys plainly
# needed a median of 49.5 programs, batches 0-19, while only the partial-names configuration
# had the tool), and the copy hooking every call runs two calls at once (a safe call then asks
# while an earlier one runs, ABORT-3: only the partial-names configuration had that shape).
# Each has the tool without required keys too (`KEYLESS_TOOL`).
CONFIGS = tuple(
    map(
        _with_keyless_tool,
        (
            *gen.CONFIGS,
            _with_preread(_with_bash_post_hooks(gen.CONFIGS[1])),
            attrs.evolve(_with_last_word(_with_bash_post_hooks(gen.CONFIGS[2])), max_parallel=2),
            PARTIAL_NAMES_CONFIG,
        ),
    )
)


# Arguments some readers get wrong, in place of one of these tools' usual arguments (the same
# draws as before, so every seeded batch draws what it drew): a `\\u` escape of a lone surrogate,
# which EXE-2 reads as a string holding it (a strict parser such as Perl's JSON::PP refuses it);
# an integer past 2^64, kept exact (JavaScript's JSON.parse rounds it to a double); a double
# written with an exponent, which must stay that double (not the 301 digits of its exact value).
# No generated program had any. The integer's call carries a description too (VIEW-2: its card's
# content, never its title), where only some `ls` calls had one, and a loop titling a bash card
# with it needed a median of 45.5 programs (batches 0-19).
EXACTING_ARGUMENTS = {
    '{"pattern":"x","path":"src"}': '{"pattern":"x\\ud800","path":"src"}',
    '{"command":"echo hi"}': (
        '{"command":"echo hi","timeout":98765432109876543210,"description":"Say hi"}'
    ),
    '{"file_path":"b.txt","offset":3}': '{"file_path":"b.txt","offset":3,"limit":1e300}',
}


# An unregistered tool's call whose arguments are no object (EXE-5 (1): its input is judged, no
# hook sees it, as a registered tool's): in four of its calls of nine, where only a malformed
# draw gave one (one of its calls in fourteen), and a loop judging only a registered tool's input
# needed a median of 167.5 programs (batches 0-19), missing on 8. `[]`, which PHP's
# `json_decode(..., true)` reads as `{}` does.
UNREGISTERED_ARGUMENTS = {"missing_tool": ['{"x":1}', "[]"]}


def _arguments_for(name: str) -> list[str]:
    pool = (
        UNREGISTERED_ARGUMENTS.get(name)
        or gen.ARGUMENTS.get(name)
        or PARTIAL_ARGUMENTS.get(name)
        or ['{"x":1}']
    )
    return [EXACTING_ARGUMENTS.get(arguments, arguments) for arguments in pool]


# Text as people write it, in place of some of the usual texts (the same draws as before, so
# every seeded batch draws what it drew), each kept as given, code point for code point: accents
# both precomposed (`é`, U+00E9, in Latin-1) and decomposed (`e` and U+0301, which NFC turns into
# `é`), CJK (three UTF-8 bytes each), right-to-left script, and characters past U+FFFF (four UTF-8
# bytes, a surrogate pair in UTF-16: a loop counting UTF-16 units cuts between the two, one
# writing UCS-2 or MySQL's utf8mb3 drops them). Every text was ASCII, and a loop that
# normalised, re-encoded or dropped such characters passed every random program.
EXACTING_TEXTS = {
    "reading the files": "reading 📂 cafe\u0301 and 日本語 files",
    "done": "done 🙂: déjà vu, שלום",
    "file contents": "file contents 🎉: nai\u0308ve 漢字 עברית",
    "boom": "boom 💥 échec",
    "blocked by policy": "blocked by policy 🚫 refuse\u0301",
    "needs a look": "needs a look 👀 a\u0300 ve\u0301rifier",
    "output withheld": "output withheld 🔒 données",
    "looks safe": "looks safe ✓ 安全, ve\u0301rifie\u0301",
}


def exacting_text(text: str) -> str:
    """`text`, or the text that takes its place (`EXACTING_TEXTS`). A prompt is drawn as one of
    `strategies.texts` and then put through this: that strategy drawn as before, Hypothesis's
    generation (which copies parts of programs between spans of one label, a label a strategy
    over other texts would change) draws the programs it drew."""
    return EXACTING_TEXTS.get(text, text)


TEXTS = tuple(map(exacting_text, gen.TEXTS))
"""A reply's text and reasoning (`strategies.TEXTS`, some in place)."""


# A program's commands are drawn as flat choices: each is one index below a small bound
# (`Choose`), which Hypothesis records as one integer and shrinks towards 0, instead of nested
# strategies (composites, `one_of` over `builds`), each of whose draws costs a span, a
# validation and a label besides its choices; and nothing is drawn only to be thrown away (a
# reply's calls were drawn twice, a hook's verdict before the leaning that replaced it). Index
# 0 is the simplest choice, which shrinking moves towards: a reply without calls ends its turn,
# so a shrunk program's turns are short (were a reply with calls the simplest, the simplest
# program would be one endless turn, which no deletion of a few choices shortens).
Choose = Callable[[int], int]
"""Draws an index in [0, bound): one choice; a bound of 1 draws nothing and gives 0."""


def pick(choose: Choose, options: Sequence[_Picked]) -> _Picked:
    """One of `options`, each alike likely."""
    return options[choose(len(options))]


@functools.cache
def _names(config: LoopConfig, parallel: bool) -> tuple[str, ...]:
    """The tool names a call of `config` is drawn from (safe ones weighted up when parallel)."""
    tools = [tool for tool in config.tools if tool != KEYLESS_TOOL]  # (see KEYLESS_TOOL)
    names = [tool.name for tool in tools] + ["missing_tool"]
    if parallel:
        # Calls run together only when they are concurrency-safe; drawn uniformly, two safe
        # calls in a row are rare, and so are a later call finishing first and an abort over a
        # partly finished batch.
        names += [tool.name for tool in tools if tool.concurrency_safe] * 2
    # Rewrites, approvals and denials need a PreToolUse hook that matches the call, and a
    # matcher that must match a whole name a tool it names only in part: where hooks care
    # about only some tools (`bash|write`, `bash` beside `bash_session`), those are drawn twice
    # as often.
    names += [tool.name for tool in tools if _hooks_care(config, tool.name)]
    # A result several PostToolUse hooks judge, which may block it twice (DEC-3, ACP-2): its
    # tool drawn once more (a bash result blocked by two came in 2 programs of 200).
    names += [tool.name for tool in tools if len(config.hooks_for(POST_TOOL_USE, tool.name)) > 1]
    return tuple(names)


def _hooks_care(config: LoopConfig, name: str) -> bool:
    """Whether a PreToolUse hook matches the tool `name`, or a hook's matcher occurs in it."""
    return bool(config.hooks_for(PRE_TOOL_USE, name)) or any(
        hook.matcher not in ("", "*") and re.search(hook.matcher, name) is not None
        for hook in config.hooks
    )


@functools.cache
def _arguments(name: str) -> tuple[str, ...]:
    return tuple(_arguments_for(name))


# One call in ten has arguments that are not a JSON object (or not JSON), among them JSON without
# a lossless value, which EXE-2 keeps as the raw string where `json.loads` and JSON.parse read
# an object (no random program had one), and `null`, which a loop writing `JSON.parse(raw) ??
# {}` reads as no arguments (EXE-2: no object, invalid input; it came only in place of other
# arguments, and such a loop needed a median of 67.5 programs, batches 0-19).
_MALFORMED_ONE_IN = 10
MALFORMED_ARGUMENTS = (*gen.MALFORMED_ARGUMENTS, '{"command":"ls","timeout":-0.0}', "null")


# Arguments in place of some of the usual ones for every other call or more (tied to the call's
# number, so every seeded batch draws what it drew), each read as the one it replaces is:
# - among the malformed ones, JSON's missing numbers, which EXE-2 keeps as the raw string (not
#   an object: INVALID_TOOL_INPUT), where Python's `json.loads` reads `NaN` and `Infinity` and
#   every double reader reads `1e400` as an infinity (a loop refusing the literals alone, as
#   `json.loads`'s `parse_constant` does, still runs the call); none was drawn; `Infinity`
#   and `-Infinity` both, since a reader taking `Infinity` as a word and `-` as a number's
#   start reads one and refuses the other (only `-Infinity` was drawn). Each stands in for
#   arguments that are no object either, so the programs drawn keep their course;
# - absolute paths in a read's and a write's `file_path`, which a title relativizes only when
#   the path, its empty, `.` and `..` segments resolved, lies strictly inside the session cwd
#   (VIEW-4): `/workspace/src/../a.txt` is `a.txt`, `/workspace//./docs/a.txt` is
#   `docs/a.txt`; `/workspace-old/a.txt` (a sibling a prefix test takes for inside) and
#   `/workspace/../etc/a.txt` (outside once resolved, shown unresolved) keep the title as
#   given. Every path was relative, and a loop relativizing any way passed every program.
# - a bash call's `description` (its card's content, not its title, VIEW-2; an empty one shows
#   nothing), which no call had: a loop titling the card with it passed every program;
# - a `\\u` escape of a lone surrogate (EXE-2 reads it as a string holding it) in an object's
#   key, in a bash command and in a read's and a write's path, which its card's title shows
#   (VIEW-4); only a grep's pattern held one, and a loop writing any other as U+FFFD passed
#   every program;
# - a read's limit past 32 bits, an integer all the same (VIEW-2: its card's title shows it),
#   and `null`, JSON whose value is no object (EXE-2, not `{}`): none was drawn, and loops
#   holding the limit in 32 bits, or reading `null` as no arguments, passed every program.
_IN_PLACE_BY_CALL: dict[str, tuple[str, ...]] = {
    # Odd calls: NaN, or (one in four) Infinity.
    "not json": (
        "not json",
        '{"command":"ls","timeout":Infinity}',
        *("not json", '{"command":"ls","timeout":NaN}') * 3,
    ),
    '{"pattern":"TODO"}': ('{"pattern":"TODO"}', '{"pattern":"TODO","\\udfff":true}'),
    '{"command":"rm -rf build"}': (
        '{"command":"rm -rf \\ud800build"}',
        '{"command":"rm -rf build"}',
    ),
    '{"command":"ls"}': (
        '{"command":"ls"}',
        '{"command":"ls","description":"List the files"}',
        '{"command":"ls","description":""}',
    ),
    "[1,2]": ('{"file_path":"a.txt","limit":-Infinity}', "[1,2]"),
    '"text"': ('"text"', '{"command":"ls","timeout":1e400}', "null"),
    # A read's arguments missing its key, but for two of its calls in ten (preread's are
    # written `{ }`, `PARTIAL_ARGUMENTS`): arguments that are no object either, JSON's missing
    # numbers, infinities past 1e400's too, and `null`, where a malformed draw gave one in
    # hundreds of calls (the first fixed batch had no Infinity). The rarest the lowest numbers.
    "{}": (
        "{}",
        '{"file_path":1e309}',
        '{"file_path":-Infinity}',
        '{"file_path":1e400}',
        "null",
        "{}",
        '{"file_path":Infinity}',
        '{"file_path":-1e400}',
        '{"file_path":NaN}',
        '{"file_path":1e309}',
    ),
    '{"file_path":"a.txt"}': (
        '{"file_path":"a.txt"}',
        '{"file_path":"/workspace/src/../a.txt"}',
        '{"file_path":"a\\udc00.txt"}',
        '{"file_path":"/workspace-old/a.txt"}',
        '{"file_path":"a.txt","limit":4294967297}',
        '{"file_path":"/workspace//./docs/a.txt"}',
        '{"file_path":"a.txt"}',
        '{"file_path":"/workspace/../etc/a.txt"}',
    ),
    '{"file_path":"a.txt","content":"new"}': (
        '{"file_path":"a.txt","content":"new"}',
        '{"file_path":"/workspace/src/../a.txt","content":"new"}',
        '{"file_path":"\\ud800.txt","content":"new"}',
        '{"file_path":"/workspace-old/a.txt","content":"new"}',
    ),
}


def _in_place(arguments: str, number: int) -> str:
    """`arguments`, or what takes its place in call `c<number>` (`_IN_PLACE_BY_CALL`)."""
    replacements = _IN_PLACE_BY_CALL.get(arguments)
    return arguments if replacements is None else replacements[number % len(replacements)]


# Calls in a reply of a program with parallel calls on: two to four, three the simplest, so that
# a simplest batch of safe calls fills a cap of two and one waits (SCHED-1; with two the
# simplest, a loop letting one call more run than its cap needed a median of 37.5 programs,
# batches 0-19).
_PARALLEL_COUNTS = (3, 2, 4)


def tool_calls(
    choose: Choose, swarm: Swarm, config: LoopConfig, first_id: int
) -> tuple[ToolCallBlock, ...]:
    """Calls with ids `c<first_id>...`: several when `parallel` is on; with `repeated_ids`, the
    last sometimes repeats the first's id, and as often takes the id of the call before the
    batch (an earlier step's, or an earlier turn's: ids are unique within a reply alone, EXE-1,
    and local models number each reply's calls from `call_0`); with `blank_arguments`, the batch
    ends with one more call whose arguments are blank to one of Python's `strip` and
    JavaScript's `trim` alone (one more, so the calls the batch had still run and keep their
    places). Some grep calls are calls to the tool without required keys instead
    (`keyless_in_place`)."""
    names = _names(config, swarm.parallel)
    count = _PARALLEL_COUNTS[choose(3)] if swarm.parallel else 1 + choose(2)
    calls = []
    for offset in range(count):
        name = pick(choose, names)
        variant = choose(_MALFORMED_ONE_IN)
        if variant == _MALFORMED_ONE_IN - 1:
            arguments = pick(choose, MALFORMED_ARGUMENTS)
        else:
            pool = _arguments(name)
            arguments = pool[variant % len(pool)]
        number = first_id + offset
        name, arguments = keyless_in_place(config, name, arguments, number)
        calls.append(ToolCallBlock(f"c{number}", name, _in_place(arguments, number)))
    if swarm.blank_arguments:
        blank = pick(choose, gen.BLANK_TO_ONE_READER)
        calls.append(ToolCallBlock(f"c{first_id + count}", pick(choose, names), blank))
    if swarm.repeated_ids and len(calls) > 1:
        # One draw, as before: a repeat within the reply (refused whole), or the id of the
        # call before the batch (accepted), or neither.
        match choose(3):
            case 2:
                calls[-1] = attrs.evolve(calls[-1], id=calls[0].id)
            case 1 if first_id > 1:
                calls[-1] = attrs.evolve(calls[-1], id=f"c{first_id - 1}")
            case _:
                pass  # every id the batch's own
    return tuple(calls)


# Finish reasons: mostly completed.
_FINISHES = (FINISH_COMPLETED,) * 6 + (FINISH_MAX_TOKENS, FINISH_CANCELLED)


# A reply has calls in eight replies of nine; with input queued, in two of three: a reply without
# calls must then continue the turn with the queued messages (STEP-4, ADJ-4), and one in nine
# such replies came in 20 programs of 900.
_WITHOUT_CALLS_ONE_IN = 9
_WITHOUT_CALLS_QUEUED_ONE_IN = 3


def model_replies(
    choose: Choose,
    swarm: Swarm,
    config: LoopConfig,
    first_id: int,
    *,
    first_step: bool,
    queued: bool = False,
) -> ModelReplies:
    """A reply: optional reasoning and text, calls (in eight replies of nine, two of three
    while input is `queued`) drawn for the swarm, and a finish reason.

    In a turn's `first_step` the simplest choice is a reply with calls, in a later step one
    without: the simplest turn is one batch and the reply after it (see the module's last
    paragraph), and a turn of replies that all have calls is never the simplest."""
    blocks: list[ReplyBlock] = []
    shape = choose(4)  # reasoning and text, each in half the replies
    if shape & 1:
        blocks.append(ReasoningBlock(pick(choose, TEXTS)))
    if shape & 2:
        blocks.append(TextBlock(pick(choose, TEXTS)))
    one_in = _WITHOUT_CALLS_QUEUED_ONE_IN if queued else _WITHOUT_CALLS_ONE_IN
    if choose(one_in) != (one_in - 1 if first_step else 0):
        blocks.extend(tool_calls(choose, swarm, config, first_id))
    return ModelReplies(tuple(blocks), pick(choose, _FINISHES))


def _identity(arguments: str) -> JsonValue | None:
    """The call's own arguments as an input object, when they are one."""
    parsed = parse_arguments(arguments)
    return parsed if isinstance(parsed, FrozenMap) else None


_LONE_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


@functools.cache
def _leanings(
    approvals: bool, denials: bool, rewrites: bool, identity_rewrites: bool, passes: bool = False
) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """What a swarm with these kinds on leans on (each kind as often as its weight), and where
    each kind starts. Keyed on the kinds, not the whole swarm: a cache keyed on every swarm
    drawn kept them all, run after run, in a process that runs conform many times."""
    leaning: list[str] = []
    starts: list[int] = []
    for kind, on, weight in (
        ("pass", passes, 2),
        ("ask", approvals, 2),
        ("deny", denials, 2),
        ("rewrite", rewrites, 3),
        ("identity", identity_rewrites, 2),
    ):
        if on:
            starts.append(len(leaning))
            leaning += [kind] * weight
    return tuple(leaning), tuple(starts)


# "" is a hook denying without a reason: the result then says `denied` (TEXT-1).
_DENY_REASONS = (exacting_text("blocked by policy"), "no", "")
_ASK_REASONS = (None, exacting_text("needs a look"))


# Inputs with numbers some readers get wrong (see EXACTING_ARGUMENTS), in place of one of these
# tools' usual inputs: an integer past 2^64, which stays exact in the call's arguments, its audit
# and its card (a loop reading the hook's answer with JavaScript's JSON.parse writes
# 98765432109876540000), and a double written with an exponent.
EXACTING_REWRITES: dict[JsonValue, JsonValue] = {
    # A read's limit past 32 bits (see `_IN_PLACE_BY_CALL`), which its card's title shows.
    FrozenMap({"file_path": "a.txt", "limit": 5}): FrozenMap(
        {"file_path": "a.txt", "limit": 4294967297}
    ),
    FrozenMap({"command": "ls -la"}): FrozenMap(
        {"command": "ls -la", "timeout": 98765432109876543210}
    ),
    FrozenMap({"file_path": "safe.txt", "content": "new"}): FrozenMap(
        {"file_path": "safe.txt", "content": "new", "mode": 1e300}
    ),
}


@functools.cache
def _fitting(name: str, null_keys: bool = False) -> tuple[JsonValue, ...]:
    """The inputs that fit tool `name`; with `null_keys`, its first one with every key the tool
    requires given null too, last (the tool takes it: a key given null is there, HOOK-6). No
    rewrite gave one, and a loop refusing it as missing the key passed every program."""
    pool = gen.REWRITES.get(name) or [FrozenMap({"x": 1})]
    fitting = tuple(EXACTING_REWRITES.get(value, value) for value in pool)
    first = fitting[0]
    required = _REQUIRED_KEYS.get(name, ())
    if not null_keys or not required or not isinstance(first, FrozenMap):
        return fitting
    return (*fitting, FrozenMap({**first, **dict.fromkeys(required)}))


_REQUIRED_KEYS = {tool.name: tool.required_keys for tool in (*gen.TOOLS, *PARTIAL_TOOLS)}


# Inputs no tool accepts (HOOK-6): not a JSON object, or an object without the keys a tool
# requires. A loop must deny the call naming the hook and keep the original arguments; drawn
# only among other verdicts' rewrites, such a rewrite won in 8 programs of 600.
_UNFIT: tuple[JsonValue, ...] = ("not an object", FrozenMap({"unrelated": True}))


def _fit(
    choose: Choose, name: str, hook_index: int, *, null_keys: bool, unfit_first: bool = False
) -> JsonValue:
    """An input that fits the tool (`_fitting`), the simplest one another for each hook of the
    call, a later hook's the last of them (with `null_keys`, the one giving required keys
    null); or, as one of the draw's options (one in 3 to 7), one that fits no tool (another
    per hook): the last option, or with `unfit_first` the simplest (the first hook of a call
    that has several, whose later hooks' inputs then replace it: HOOK-6 judges only the input
    in effect; as the last option, a loop judging the first input supplied needed a median of
    58 programs, and one refusing a required key given null 27, batches 0-19)."""
    fitting = _fitting(name, null_keys)
    drawn = choose(2 * len(fitting) + 1)
    if drawn == (0 if unfit_first else 2 * len(fitting)):
        return _UNFIT[hook_index % len(_UNFIT)]
    return fitting[(drawn - unfit_first - hook_index) % len(fitting)]


# A hook's own audit (a real hook's decision word, exit code, stderr and time), which takes the
# place of the verdict's in `hook/result`, a field it lacks staying absent (TEXT-2). Tied to
# answers already drawn, not drawn itself, so every program draws what it drew before: the deny
# "no" is an exit-2 deny that left no stderr, and every PostToolUse pass reports its exit code,
# stderr and time.
_EXIT_2_DENY = HookAudit(decision="block", exit_code=2, duration_ms=12.5)
_PASS_AUDIT = HookAudit(exit_code=0, stderr_summary="ok\n", duration_ms=3.5)
_TIMED_OUT = HookAudit(decision="error", duration_ms=60000.0)


def pre_audit(verdict: PreVerdict, *, timed_out: bool = False) -> HookAudit | None:
    """The audit a PreToolUse answer comes with: an exit-2 deny's for the deny "no" and a deny
    without a reason (an exit-2 hook that wrote nothing to stderr). Only "no" had one, which
    one deny in twelve gave, and a loop recording the answer's word (`deny`) where the audit's
    is `block`, or the reason as the audit's stderr, needed a median of 48 programs. A pass
    `timed_out` records `error` (a hook killed at its timeout, failing open by its dialect's
    default, HOOK-7: it still passes): no audit did, and a loop reading that word as a deny
    passed every program."""
    if isinstance(verdict, Deny) and verdict.reason in ("no", ""):
        return _EXIT_2_DENY
    if timed_out and isinstance(verdict, Pass):
        return _TIMED_OUT
    return None


# An allow's reason is only logged (a real hook's permissionDecisionReason on allow): the audit's
# stderrSummary records it (TEXT-2), never a deny's or an approval's reason (DEC-1, DEC-2), nor
# does it make the call ask. Given by every other hook of a reply's calls (the second hook of the
# first call, the first of the second, ...), tied to positions already drawn, so programs draw
# what they drew before; no allow gave a reason before, and a loop that joined it into the
# reasons of the winning rank passed every program.
_ALLOW_REASON = exacting_text("looks safe")


# Reasons of only whitespace, each given as is (TEXT-1: `Error: ` and the reason; an approval's
# reason, DEC-2; a block's text block, DEC-3): a loop that trims a reason and then reads it as
# none (`Error: denied`, no reason on the approval, `blocked by PostToolUse hook`) passed every
# program while none was blank. Spaces, a tab, a no-break space and an ideographic space (blank
# to Python's `strip` and JavaScript's `trim` alike; Java's `isBlank` keeps U+00A0).
BLANK_REASONS = ("  ", "\t", "\u00a0", "\u3000")


def _blank_reason(position: int) -> str:
    return BLANK_REASONS[position % len(BLANK_REASONS)]


def _deny(choose: Choose, swarm: Swarm, call: ToolCallBlock, *, hook_index: int) -> Deny:
    """A deny: without a reason in every deny of a program with `silent_denials` on, but those
    of every third call (c3, c6, ...), which give a reason of only whitespace (not c2, whose
    deny a simplest continuation sends: a mutant wording a deny without a reason its own way
    needed 14 programs); in the other programs a deny drawn without a reason gives one of only
    whitespace for every other hook of a call. Tied to draws already made; a call's hooks that
    all deny without a reason still come in every program with silent denials on. A call id
    with no number after its first character (the programs' ids are c1, c2, ...; a case edited
    by hand may hold another) counts as call 0: a multiple of three, its denies whitespace."""
    number = int(call.id[1:]) if call.id[1:].isdigit() else 0
    if swarm.silent_denials:
        return Deny(reason=_blank_reason(number // 3) if number % 3 == 0 else "")
    reason = pick(choose, _DENY_REASONS)
    if not reason and (number + hook_index) % 2:
        reason = _blank_reason(number)
    return Deny(reason=reason)


def _ask_reason(choose: Choose, *, call_index: int, hook_index: int) -> str | None:
    """An ask's reason: for every other hook of a reply's calls, one of only whitespace where
    the draw gives none (tied to positions already drawn)."""
    reason = pick(choose, _ASK_REASONS)
    if reason is None and (call_index + hook_index) % 2:
        return _blank_reason(call_index + 1)
    return reason


def _any_input(choose: Choose, name: str) -> JsonValue:
    """An input for a verdict without a leaning: mostly one that fits the tool, else any
    rewrite or none (as `strategies.pre_verdicts_for` draws it)."""
    if choose(3) < 2:
        return pick(choose, _fitting(name))
    which = choose(2 * len(gen.ANY_REWRITES))
    return gen.ANY_REWRITES[which] if which < len(gen.ANY_REWRITES) else None


def pre_verdicts(
    choose: Choose,
    swarm: Swarm,
    call: ToolCallBlock,
    *,
    call_index: int,
    hook_index: int,
    lone_hook: bool = False,
) -> PreVerdict:
    """A PreToolUse answer for `call` (the reply's `call_index`-th, from the `hook_index`-th
    hook that matches it): in three answers of four, one the swarm leans on (asks, denials,
    rewrites, identity rewrites in half the programs, and, from a call's `lone_hook` with
    `timed_out_hooks` on, passes, which then time out: `pre_audit`); otherwise any verdict,
    its rewrites mostly fitting the tool.

    Passes lean only where the call has no other hook, and first (the first call's simplest
    answer, the second call's an ask, which then waits for approval while the first runs,
    where an abort is aimed: ABORT-3): a pass came in one answer of sixteen in programs
    leaning on any kind, and a loop reading a timed-out pass as a deny (HOOK-2) needed a
    median of 90 programs (batches 0-19), one writing an abort's cancelled answer with the
    call's result was found on 6 batches of 20; where a call has several hooks a pass is
    audited as any other, and those calls draw what they drew before.

    The simplest answer (see `model_replies`) leans on the program's first feature for its
    first call's first hook, its second for the second call's, and so on (an ask with a
    rewrite, then a deny, then a rewrite), a call's next hook on the feature before its
    previous hook's (the first call's second hook on the last feature, a rewrite; the second
    call's on an ask), and its input differs from hook to hook of a call: a simplest
    continuation then shows an approval of a rewritten call and a call one hook denies and
    another asks about (denied: HOOK-2; a loop letting the ask outrank the deny needed a
    median of 26 programs, batches 0-19, when both hooks of a call leaned alike). The
    rotations leave every answer as likely as before."""
    identity = _identity(call.arguments)
    leaning, starts = _leanings(
        swarm.approvals,
        swarm.denials,
        swarm.rewrites,
        swarm.identity_rewrites and identity is not None,
        swarm.timed_out_hooks and lone_hook,
    )
    allow_reason = _ALLOW_REASON if (call_index + hook_index) % 2 else None
    if not leaning or choose(4) == 3:
        match choose(4):
            case 0:
                return Allow(updated_input=_any_input(choose, call.name), reason=allow_reason)
            case 1:
                reason = _ask_reason(choose, call_index=call_index, hook_index=hook_index)
                return Ask(reason=reason, updated_input=_any_input(choose, call.name))
            case 2:
                return Pass()
            case _:
                return _deny(choose, swarm, call, hook_index=hook_index)
    start = starts[(call_index - hook_index) % len(starts)]  # (see the docstring)
    lean = leaning[(choose(len(leaning)) + start) % len(leaning)]
    if lean == "deny":
        return _deny(choose, swarm, call, hook_index=hook_index)
    if lean == "pass":
        return Pass()
    if lean == "identity" and _LONE_SURROGATE.search(call.arguments):
        # No hook's answer holds a lone surrogate (its output would be no text: a fault,
        # HOOK-7, SAFE-4): an input that fits the tool instead, drawing what the identity drew.
        fitting = _fitting(call.name)
        identity = fitting[hook_index % len(fitting)]
    new_input = (
        identity
        if lean == "identity"
        else _fit(
            choose,
            call.name,
            hook_index,
            null_keys=swarm.null_keys,
            unfit_first=hook_index == 0 and not lone_hook,
        )
    )
    if lean == "ask" or (swarm.approvals and choose(2) == 1):
        reason = _ask_reason(choose, call_index=call_index, hook_index=hook_index)
        keep = lean != "ask" or choose(3) < 2
        return Ask(reason=reason, updated_input=new_input if keep else None)
    return Allow(updated_input=new_input, reason=allow_reason)


def last_word(phase: Rewriting, config: LoopConfig) -> PreVerdict:
    """What `LAST_WORD` answers for the call its turn is: for calls of odd number, an input that
    fits the tool and that no earlier hook of the call supplied (the last input in configured
    order wins, HOOK-3); for the others a pass, which erases no rewrite. The input fits also
    where an earlier hook's did not (only the input in effect is judged, HOOK-6: a loop judging
    the first input supplied needed a median of 83 programs, batches 0-19, while a pass took
    its place there). A pass where the tool takes none of `_fitting`'s inputs and giving one
    would change what becomes of the call."""
    index = phase.queue[0].call_index
    call = phase.reply.tool_calls[index]
    earlier = tuple(vote for vote in phase.votes if vote.call_index == index)
    if not call.id[1:].isdigit() or int(call.id[1:]) % 2 == 0:
        return Pass()
    given = {supplied_input(vote.verdict) for vote in earlier}
    fitting = _fitting(call.name)
    new_input = next((value for value in fitting if value not in given), fitting[0])
    answer = Allow(updated_input=new_input)
    with_it = (*earlier, HookVote(index, LAST_WORD.handler_id, answer))
    same_fate = (
        resolve_call(call, with_it, config).decision == resolve_call(call, earlier, config).decision
    )
    tool = config.tool(call.name)
    fits = tool is not None and tool.input_problem(new_input) is None
    return answer if fits or same_fate else Pass()


_SUCCESS_TEXTS = ("A", "B", exacting_text("file contents"))
_DEFERRED = "deferred context"
# A context of only whitespace is not empty: it is delivered as given, untrimmed (ADJ-4). A
# loop that trims contexts before dropping empty ones passed every program while none was blank.
_BLANK_CONTEXT = " \n"
# A result's meta holds numbers some readers get wrong (see EXACTING_ARGUMENTS): an integer past
# 2^64 and a double of 17 significant digits, which 15 digits (Perl's default) print as 0.3. Tied
# to the meta already drawn, so programs draw what they drew before.
_META: tuple[JsonValue, ...] = (
    None,
    FrozenMap({"lines": 3, "bytes": 98765432109876543210, "load": 0.30000000000000004}),
)
_FAILURE_MESSAGES = (exacting_text("boom"), "permission denied")
# The codes a failure of each message may report, drawn as one of two: none, or a code, the
# empty string for one of them (EXE-4: a body that reported a code has it as error.code, ""
# included), where a loop that reads an empty code as none (Go's `if code != ""`, a missing
# field's zero value) passed every program. Tied to the message, so programs draw as before.
_FAILURE_CODES = {exacting_text("boom"): (None, ""), "permission denied": (None, "EACCES")}
# The error name each failure message comes with, the result's `error.name` beside its code
# (EXE-4's outcome, TEXT-1): every failure was a ToolError, and a loop that named every one so
# passed every program.
_FAILURE_NAMES = {exacting_text("boom"): "ToolError", "permission denied": "PermissionError"}


def deferred(call_id: str) -> str:
    """The context a body of call `call_id` defers: each call's its own, so that the order two
    calls' contexts are delivered in shows (ADJ-4: model order, not the order they settled in).
    With one text for every call, a loop that queued contexts as their calls settled passed
    200 programs on four seeds of six; with each call's own, on two."""
    return f"{_DEFERRED} of {call_id}"


def any_tool_outcome(choose: Choose, call_id: str) -> ToolOutcome:
    """A body's outcome: success (deferring no context, its own, or its own twice with an empty
    one between) or failure, as `strategies.tool_outcomes` draws them."""
    if choose(2) == 0:
        text = pick(choose, _SUCCESS_TEXTS)
        own = deferred(call_id)
        # Twice, with an empty context between (the same draws, a situation more): an empty
        # context is no context (ADJ-4), the ones around it are delivered. Only hooks gave empty
        # contexts before, and a loop that sent a message for a body's "" passed every program.
        contexts = ((), (own,), (own, "", own))[choose(3)]
        return ToolSucceeded(text, contexts, pick(choose, _META))
    message = pick(choose, _FAILURE_MESSAGES)
    return ToolFailed(message, pick(choose, _FAILURE_CODES[message]), _FAILURE_NAMES[message])


def refused_context(call_id: str) -> str:
    """The context an outcome for call `call_id` defers once the call settled: a text no outcome
    the model takes carries. The call's own (`deferred`), which its accepted outcome mostly
    queued too, made a loop queueing the refused one's deliver a second copy, which reads as a
    context delivered twice (ADJ-4) where the refusal is what changed something (MODEL-3)."""
    return f"{deferred(call_id)}, settled already"


def settled_call_outcome(choose: Choose, call_id: str) -> ToolOutcome:
    """An outcome for call `call_id`, no longer running, which the model refuses (EXE-4): drawn
    as `any_tool_outcome` draws it (the same choices), a success always deferring its own
    context (`refused_context`), which a loop queueing an outcome's contexts before judging it
    delivers all the same (MODEL-3)."""
    outcome = any_tool_outcome(choose, call_id)
    if isinstance(outcome, ToolSucceeded):
        return attrs.evolve(outcome, contexts=(refused_context(call_id),))
    return outcome


def tool_outcomes(choose: Choose, swarm: Swarm, call_id: str) -> ToolOutcome:
    """Outcomes of call `call_id`'s body; with `contexts` on, successes mostly defer a context."""
    if swarm.contexts and choose(3) < 2:
        text = pick(choose, _SUCCESS_TEXTS[:2])
        # The second of two contexts is blank: the same draws, a situation more (ADJ-4).
        context = deferred(call_id)
        contexts = (context,) if choose(2) == 0 else (context, _BLANK_CONTEXT)
        return ToolSucceeded(text, contexts, pick(choose, _META))
    return any_tool_outcome(choose, call_id)


_POST_VERDICTS: tuple[PostVerdict, ...] = (
    PostPass(audit=_PASS_AUDIT),
    PostContext("note from hook"),
    PostBlock(exacting_text("output withheld")),
)


# A later hook's block after an earlier hook's: the result then has one text block per
# reason, which a terminal card joins with newlines in configured order (ACP-2, DEC-3). For
# calls of odd number, a reason of only whitespace (`BLANK_REASONS`), given as is.
_LATER_BLOCK = PostBlock("withheld again")


def _later_block(call_id: str) -> PostBlock:
    number = call_id[1:]
    if not number.isdigit() or int(number) % 2 == 0:
        return _LATER_BLOCK
    return PostBlock(_blank_reason(int(number) // 2))


# An empty context, which adds no message (ADJ-4): dsh's bridge and Claude Code drop it, Codex
# writes it, and the model once appended an empty user/message for it. A hook gives it in the
# programs that do not swarm contexts, in place of "note from hook", with no draw more or less.
_EMPTY_CONTEXT = PostContext("")


# A hook's context of only whitespace, delivered as given (ADJ-4).
_BLANK_HOOK_CONTEXT = PostContext(_BLANK_CONTEXT)


def post_verdicts(choose: Choose, swarm: Swarm) -> PostVerdict:
    """PostToolUse answers; with `contexts` on, mostly a context (one in two of them blank);
    without, any answer, a context being empty."""
    if swarm.contexts:
        lean = choose(3)
        if lean < 2:
            return _POST_VERDICTS[1] if lean == 0 else _BLANK_HOOK_CONTEXT
    verdict = pick(choose, _POST_VERDICTS)
    return _EMPTY_CONTEXT if not swarm.contexts and verdict == _POST_VERDICTS[1] else verdict


# A block without a reason: the result is then `blocked by PostToolUse hook`, or the other
# blocks' reasons alone (DEC-3). Every block gave a reason, and a loop that wrote an empty text
# block for one without passed every program.
_SILENT_BLOCK = PostBlock("")


def _first_block_reason(swarm: Swarm, call_id: str) -> str | None:
    """The reason that takes the place of the first block's of call `call_id`'s result, for
    every other call (c2, c4, ...): none with silent denials on (no deny gives a reason), one of
    only whitespace otherwise (`BLANK_REASONS`); None for the other calls. Tied to draws already
    made, so programs draw what they drew before, and a result's later blocks keep theirs."""
    number = call_id[1:]
    if not number.isdigit() or int(number) % 2:
        return None
    return "" if swarm.silent_denials else _blank_reason(int(number) // 2)


def post_answers(choose: Choose, swarm: Swarm, hooks: int, call_id: str) -> tuple[PostVerdict, ...]:
    """The answers of a result's `hooks` PostToolUse hooks: of several, the first blocks in two
    results of three, and after a block the next hook mostly blocks too (drawn alone, two blocks
    on one result came in one result of nine at best). A block is the least draw (the simplest,
    which Hypothesis draws more often than the others): as the highest, a bash result blocked
    twice came in 4 programs of 200."""
    answers: list[PostVerdict] = []
    for _ in range(hooks):
        if answers and isinstance(answers[-1], PostBlock) and choose(3) < 2:
            answers.append(_later_block(call_id))
        elif hooks > 1 and not answers and choose(3) < 2:
            answers.append(_POST_VERDICTS[2])
        else:
            answers.append(post_verdicts(choose, swarm))
    first = next((i for i, a in enumerate(answers) if isinstance(a, PostBlock)), None)
    reason = _first_block_reason(swarm, call_id)
    if first is not None and reason is not None:
        answers[first] = _SILENT_BLOCK if not reason else PostBlock(reason)
    return tuple(answers)


def later_call_waits(phase: object) -> bool:
    """Whether a call of the batch finished while an earlier one still runs (it waits for it)."""
    if not isinstance(phase, Dispatching):
        return False
    statuses = [slot.status for slot in phase.slots]
    return READY in statuses and RUNNING in statuses[: statuses.index(READY)]


def denied_call_passed_busy_slots(phase: object, cap: int) -> bool:
    """Whether a denied call of the batch passed the gate while the calls before it left no slot
    it could have started in (DEC-1: it does not wait for one), its result not yet committed.
    An abort there finds it denied where a loop that made it wait finds it unstarted. Not once
    an abort drains the batch: every abort after it is refused, and the steps aiming one there
    sent one refused abort after another to the end of the program (up to 30 in one), where
    the body settling after the abort, and the turn after it, showed what an abort leaves
    (`first_aim` aims one)."""
    if not isinstance(phase, Dispatching) or phase.aborting is not None:
        return False
    safe = tuple(slot.concurrency_safe for slot in phase.slots)
    running = tuple(slot.status == RUNNING for slot in phase.slots)
    return any(
        slot.decision == DENY and slot.status == READY and not may_start(safe, running, index, cap)
        for index, slot in enumerate(phase.slots[phase.cursor :], phase.cursor)
    )


def approval_pending(phase: object) -> bool:
    """Whether a call of the batch waits for the user's approval."""
    return isinstance(phase, Dispatching) and any(slot.status == ASKING for slot in phase.slots)


Aimed = set[tuple[str, ...]]
"""The disruptions a program aimed at its batches: each batch's call ids, and the kind."""

AGAIN = "abort again"
"""The disruption `first_aim` names for an abort sent while one drains the batch."""


def aimed_disruptions(
    swarm: Swarm, phase: object, drawn: str, aimed: Aimed | None = None
) -> tuple[str, ...]:
    """The disruptions to pick from in `phase`, one of which was `drawn`: where `phase` is one
    step from a situation rare otherwise, of those the swarm has on, its disruption is added
    (first, where it replaces most draws: Hypothesis draws the least index more often than the
    others). An abort while a call waits for approval, which must be answered cancelled
    (ABORT-1; 5 programs of 900 had one), mostly; input typed while the model request is
    awaited, which the reply after it, or the request's failure, must keep queued (ADJ-4,
    STEP-4; 121 of 900, the failure after it in 5), in half the disruptions there, so as many
    aborts of the request stay; a crash while idle, in half the disruptions there, which the
    session's reopen repairs with nothing (REC-2: the loop takes the next prompt; a loop left
    crashed by such a reopen needed a median of 22.5 programs, batches 0-19); in a running
    batch, `batch_aims` first (`aimed`: what the program aimed already)."""
    if swarm.aborts and approval_pending(phase):
        return ("abort", "abort", drawn)
    if swarm.interjections and isinstance(phase, AwaitingModel):
        return (drawn, "interject")
    if swarm.crashes and isinstance(phase, Idle):
        return ("crash", drawn)
    return (*batch_aims(swarm, phase, aimed), drawn)


def batch_aims(swarm: Swarm, phase: object, aimed: Aimed | None = None) -> tuple[str, ...]:
    """The disruptions aimed at a running batch, of those the swarm has on: an outcome for a
    call that settled (EXE-4; a loop taking it as the running call's, or queueing its context,
    MODEL-3) and a crash while the calls await results (REC-1: repair writes them). Drawn as
    any other disruption, an outcome for a settled call came in 1 program of 80 and a crash
    with results to repair in 1 of 20 (4 fixed batches): those loops needed a median of 40
    and 27 programs (20 batches); aimed, each comes in about 1 of 9. An outcome for a settled
    call once per batch (`aimed` holds the batch's once sent)."""
    if not isinstance(phase, Dispatching) or later_call_waits(phase):
        return ()
    aims: tuple[str, ...] = ()
    settled = any(slot.status != RUNNING for slot in phase.slots)
    if swarm.settled_outcomes and settled and (*batch_key(phase), "settled") not in (aimed or ()):
        aims += ("settled",)
    if swarm.crashes and not approval_pending(phase):
        aims += ("crash",)
    return aims


def batch_key(phase: Dispatching) -> tuple[str, ...]:
    """The batch `phase` dispatches, told by its calls' ids."""
    return tuple(slot.call_id for slot in phase.slots)


def first_aim(swarm: Swarm, phase: object, aimed: Aimed) -> str | None:
    """The disruption a step in `phase` puts first, each kind once per batch (`aimed` holds
    the batch's call ids and the kind, for those made), of those the swarm has on: an outcome
    for a settled call where one finished and one other still runs (EXE-4, MODEL-3; refused, it
    changes nothing), or for a call waiting for its approval (EXE-4: its body has not run; a
    loop looking the call up among those asking too needed a median of 119.5 programs), then an
    abort where a call has yet to pass the gate (ABORT-1: it is answered unstarted), where no
    approval is pending or one is while an earlier call runs (ABORT-3: the abort answers it
    cancelled at once; a loop writing that answer with the call's result, once the earlier
    call settled, was found on 3 batches of 20), then one more abort while an abort drains
    the batch (`AGAIN`, ABORT-1: refused), then, with `crashed_batches` on, a crash
    while the last call runs, the others' results written (REC-1: repair writes its result);
    with `early_aborts` on and `crashed_batches` off, the abort also where a call waits for its
    approval in the program's first turn, or else once a result committed while a later call
    runs (medians of 34.5 to 46
    programs for loops mishandling what such an abort leaves: its cancelled answer, the
    contexts queued). First, so the simplest continuation of each new random prefix among
    Hypothesis's first examples sends them (index 0): left to the random draws, a loop
    settling the running call with an outcome for another, queueing a refused outcome's
    context, skipping the call at the gate when it aborts or writing a note in crash repair
    needed a median of 22, 50.5, 38.5 and 13.5 programs (batches 0-19)."""
    if not isinstance(phase, Dispatching):
        return None
    key = batch_key(phase)
    statuses = [slot.status for slot in phase.slots]
    # One call running, so a loop taking the outcome as the one running call's shows it: where
    # a call finishing let a waiting one start, two ran (the simplest batch fills a cap of two
    # and one waits), and such a loop needed a median of 42.5 programs where it needed 1.
    settled = statuses.count(RUNNING) == 1 and any(s in (READY, COMMITTED) for s in statuses)
    if (
        swarm.settled_outcomes
        and (settled or ASKING in statuses)
        and not later_call_waits(phase)
        and (*key, "settled") not in aimed
    ):
        return "settled"
    # Not while an approval is pending: the conformance machine's step aims its own aborts
    # there, and the simplest continuation answers the approval (an abort first ended such a
    # batch before a later call's deny showed: denied calls' mutants needed 7 to 11 programs).
    # With `early_aborts` on, there too in the first turn (`early`; a later turn's approval is
    # answered, and a deny after it shows), and, after a crash's aim, once a result
    # committed while a later call runs: what an abort does to a pending approval (ABORT-1,
    # ABORT-3), to contexts already queued (the turn still ends aborted) and to a body
    # succeeding after it (its result ABORTED, its contexts none) then shows in a simplest
    # continuation.
    at_the_gate = phase.aborting is None and phase.gate < len(phase.slots)
    held = approval_pending(phase)
    early = (
        swarm.aborts
        and swarm.early_aborts
        and not swarm.crashed_batches
        and (*key, "abort") not in aimed
    )
    beside = held and RUNNING in statuses  # (ABORT-3, see the docstring)
    # With `crashed_batches` on, not where the call at the gate waits only for a slot (the
    # simplest batch fills a cap of two): the batch runs on to the crash aimed at its last call
    # (REC-1), where an abort at its start drained it (crash repair's mutants went from a
    # median of 6 programs to 6.5).
    for_a_slot = swarm.crashed_batches and at_the_gate and _waits_for_a_slot(phase)
    if (
        swarm.aborts
        and at_the_gate
        and ((early and phase.turn == 1) or beside or not (held or for_a_slot))
        and (*key, "abort") not in aimed
    ):
        return "abort"
    # One abort more while an abort drains the batch, refused whatever its cause (ABORT-1;
    # `gen.abort_on` gives it another): once, not at every step (see
    # `denied_call_passed_busy_slots`). With none aimed, a loop taking an abort of another
    # cause there needed a median of 73 programs (batches 0-19).
    if swarm.aborts and phase.aborting is not None and (*key, AGAIN) not in aimed:
        return AGAIN
    # The last call running, every other result written: the rest of the batch as it was.
    last = statuses.count(RUNNING) == 1 and statuses.count(COMMITTED) == len(statuses) - 1
    crash = swarm.crashed_batches and last and "crash" in batch_aims(swarm, phase)
    if crash and (*key, "crash") not in aimed:
        return "crash"
    if early and phase.aborting is None and COMMITTED in statuses and RUNNING in statuses:
        return "abort"
    return None


def _waits_for_a_slot(phase: Dispatching) -> bool:
    """Whether the call at the gate waits for a free slot alone: it and every running call are
    concurrency-safe (SCHED-1: the cap holds it)."""
    waiting = phase.slots[phase.gate]
    running = (slot for slot in phase.slots if slot.status == RUNNING)
    return waiting.concurrency_safe and all(slot.concurrency_safe for slot in running)


def settling(choose: Choose, swarm: Swarm, running: Sequence[_Picked]) -> _Picked:
    """Which of the `running` calls (model order) settles next: with `out_of_order` on, mostly
    a later one, which then waits for an earlier one (ORD-3's situation and, with aborts on, an
    abort over a partly finished batch); otherwise mostly the earliest, so a batch's first
    result commits while later ones are still due (where a context must wait, ADJ-1). Left to
    a uniform pick, a target that runs few calls at once rarely shows either."""
    if len(running) > 1 and choose(4) < 3:
        return pick(choose, running[1:]) if swarm.out_of_order else running[0]
    return pick(choose, running)


def disruptions(choose: Choose, swarm: Swarm) -> str:
    """Which disruption comes next: the swarm's features are each several times more likely."""
    table = _disruptions(swarm.interjections, swarm.aborts, swarm.crashes, swarm.settled_outcomes)
    return pick(choose, table)


@functools.cache
def _disruptions(
    interjections: bool, aborts: bool, crashes: bool, settled_outcomes: bool
) -> tuple[str, ...]:
    weights = {
        "none": 6,
        "interject": 4 if interjections else 1,
        "abort": 4 if aborts else 1,
        "crash": 3 if crashes else 1,
        "settled": 3 if settled_outcomes else 0,
        "arbitrary": 1,
    }
    return tuple(kind for kind, weight in weights.items() for _ in range(weight))
