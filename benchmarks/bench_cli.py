"""Benchmark the command line's start-up against `python -c pass`, measured in the same run.

Run by hand: `.venv/bin/python benchmarks/bench_cli.py [--rounds N]`. Each round starts the bare
interpreter, then each measured command, interleaved so load on the machine hits all of them
alike. For each it prints the median wall time and the median CPU time (user + system, which
other load on the machine disturbs less), each with its ratio to `python -c pass`'s. The targets:

- issue #11: `loopspec --help` answers in under 0.5 s (the exit status says whether it did); the
  verbs' own modules (Hypothesis, the checker, the model) are imported only by the verb that runs;
- issue #15: `loopspec check` starts near the interpreter (1.10x `python -c pass` in CPU time,
  where the wheel is installed; printed as a verdict, not an exit status): it imports neither
  attrs, cattrs, Hypothesis nor the event model (`tests/test_check_startup.py` holds it to that;
  the time is only measured here). The floor any Python command line of its kind pays,
  `import argparse, json`, is printed beside it.

`python -c pass` here includes what `site` runs: an editable install (`pip install -e .`) made
with setuptools' import finder (this checkout's pyproject asks for a plain .pth path instead, but
another installer's may not) imports pathlib, re, enum and more before any program runs, and the
ratios are then lower than an installed wheel's. So the
same commands are also measured as a user runs them: the wheel is built from this checkout
(`pip wheel --no-build-isolation`) and installed into a fresh venv in a temporary folder, the
rows marked `wheel:`, each against that venv's own `python -c pass`. That venv holds loopspec
without its dependencies: none of the commands measured imports one (`tests/test_check_startup.py`
holds `check` to that). `--no-wheel` leaves them out (building takes a few seconds).

How the `loopspec` script is written is the installer's: pip 25.0 and later (and uv) write one that
imports only `sys`; earlier pips wrote distlib's template, which imports `re` to strip `.exe`
from `argv[0]` — half again the interpreter's start, before loopspec runs. The wheel's venv also
gets such a script (`loopspec-pip24`), and `check` is measured through it: no entry point form
avoids it (`python -m loopspec` pays runpy's imports instead), so the row says what a user with
an older pip pays.

`loopspec replay CASE` (a bundled regression case, replayed on the bundled implementation) is
measured in this checkout only: the wheel's venv lacks the dependencies a replay imports (attrs,
cattrs). Issue #15 item 7 tracks it: each replay subprocess of the suite, and every user's, pays
its start-up; `tests/test_replay_startup.py` holds what it imports. Measured (2026-12-03,
callgrind, `python -m loopspec` in this checkout): 1708M instructions (18.9x `python -c pass`)
before replay stopped importing Hypothesis, jsonschema and the hook bridge, 1129M (12.5x) after.

With `--instructions` (valgrind installed), check's rows, `spec STEP-1`'s and replay's are also
counted in instructions, each against `python -c pass` (check's and spec's of the wheel's venv,
or of this checkout with `--no-wheel`; replay's of this checkout): a second view that the load
of other processes on a shared machine does not move. Check's rows of SMALL, HOOKED and MARKED
also print their share of the fair floor's count of the same log (`FLOOR_PROGRAM`, below).

Measured (2026-12-03, installed wheel; CPU median of 21 runs on a loaded machine, instructions):
`check SMALL` 1.59x / 1.65x `python -c pass`, where it was 2.17x / 2.02x before check stopped
importing collections, functools, array and json; through a pip<25 script 2.62x / 2.36x. Later
that day, in instructions: `check SMALL` 1.46x, HOOKED 1.51x, MARKED 1.55x, `--known
claude-code SMALL` 1.49x (were 1.66x, 1.71x, 1.75x, 3.56x), once start-up holds off the cyclic
collector until the verb's modules are imported (`cli.main.start_up_done`), `--known` over dsh
logs no longer imports the readers of other loops' logs, and neither `bisect`, the system's
words for a refused file nor `logcheck.foreign` is imported for a readable dsh log.
2026-12-04, in instructions: `check SMALL` 1.42x, BROKEN 1.42x, HOOKED 1.47x, MARKED 1.51x,
`--known claude-code SMALL` 1.45x, through a pip<25 script 2.08x (were 1.46x, 1.46x, 1.51x,
1.55x, 1.49x, 2.12x), once a log file without compact rows or replacements is checked without
`logcheck.compact_rows`, the pipe and zstd streams (`logcheck.streams`) and `_bisect`.
Later that day: `check SMALL` 1.37x, BROKEN 1.37x, HOOKED 1.41x, MARKED 1.44x, `--known
claude-code SMALL` 1.40x, pip<25 2.03x, once a clean check imports neither the model's errors,
`impl` (its recorded faults, its framing of commits), `logcheck.hook_faults`, nor a module for
the default bounds alone. What is left (SMALL, 13M over the interpreter): some twenty loopspec
modules at ~0.45M each in the import system alone, their code's unmarshalling (~5M, a quarter
of it `model.invariants`), the classes they build, and `__future__` (0.7M, every module's
`from __future__ import annotations`).
2026-12-04 evening, in instructions (`--rounds 5 --instructions`): `check SMALL` 1.28x (45.5M
against the interpreter's 35.7M), BROKEN 1.28x, HOOKED 1.32x, MARKED 1.35x, `--known claude-code
SMALL` 1.30x, pip<25 1.92x (were 1.40x, 1.40x, 1.44x, 1.48x, 1.42x, 2.06x, counted from the
wheel of the commit before), once the program ends a check without the interpreter's
finalization (`cli.main.program`; tearing down what start-up built was 3.7M of SMALL's 49.8M)
and two modules of a few lines each are gone from check's way (`cli.check_arguments`, read in
`cli.check`; `model.plain_record`, in `loopspec.model`: ~0.3M each). What is left (~10M):
fifteen loopspec modules at ~0.3M each in the import system, with `__future__` (0.7M) and
`_json` (0.4M); their code's unmarshalling (~4.5M, 2M of it `model.invariants`); their bodies
(~1M); and the check itself (~1.2M). Only fewer or smaller modules on that path would lower it.
`spec STEP-1`, the command check prints under its violations, counted since: 38.0M, 1.07x (was
106.7M, 2.99x), once it reads its rules without argparse and SPEC.md's headings without re.
2026-12-04 night (installed wheel, callgrind, each command counted alone against the same
venv's `python -c pass`, 35.65M): `check --format json SMALL` 45.7M, 1.28x (was 72.0M, 2.02x:
json's import, with the re, enum and collections it imports, was a third of it), once the
report is written as `json.dump(..., indent=2)` writes it without importing json
(`report.json_text`); `check SMALL` 45.4M, 1.27x (was 45.7M), once an invariant's one-line
meaning is worked out only where SPEC.md's table reads it. `check CLAUDE-CODE` 51.6M, 1.45x
(was 111.7M, 3.13x), once the readers of Claude Code and Codex logs import neither json, typing
(their records were NamedTuples), collections.abc nor shlex (a hook command is split only
where `run --harness` wrapped it): what is left over `check SMALL` is those readers' seven
modules. One breaking RW-1, as both CLIs do on every rewrite: 51.8M, 1.45x (was 78.1M, 2.19x),
once the inputs the violation names are written without json (`jsonvalue.json_dumps`).
`check` of a folder holding that transcript and a Claude Code prompt history (as ~/.claude
does): 53.2M, 1.49x (was 99.1M, 2.78x), once the history is told without typing (`home_files`).
A Codex rollout whose session_meta is longer than `foreign` reads of a first line (the model's
instructions in it): 50.9M, 1.43x (was 73.7M, 2.07x), once its first keys are read without re.
`check SMALL` 45.25M (was 45.54M; `check --help` 100.83M, was 100.67M), once the dsh layouts
are read in the `logcheck` package every check imports instead of a module of their own.
A log opening with the header dsh writes, which holds an integer `delegationDepth`: 45.3M,
1.27x (was 105.4M, 2.96x; 499M in a development checkout, where the codec's cattrs is
installed too), once a header's integer extras are read without the model's codec. A dsh
log with a call whose arguments are no JSON (a model's cut-off output, EXE-2): 46.0M, 1.29x
(was 72.3M, 2.03x), once such arguments are told from JSON without asking json why.
`check TORN` (SMALL whose last line a crash cut off: a torn-commit notice, exit 0) 45.4M, 1.27x
(was 71.6M, 2.01x; tests/fixtures/logs/crashed/torn-last-line.jsonl 47.4M, was 73.6M), once a
last line without its newline that json's C scanner cannot read is reported without json's
decoder, whose error such a line's notice does not word (`unreadable_lines._refused_for_its_bytes`).
A Claude Code transcript (CLAUDE-CODE) or a Codex rollout with such a last line: 51.6M and
51.7M, 1.45x (were 77.9M and 78.0M, 2.19x), once their reader does the same
(`harness_logs._record_of`).
2026-12-05 (installed wheel, `--rounds 3 --instructions`, against `python -c pass` 35.7M in
each run): `check --format json SMALL` 47.2M, 1.32x (was 45.9M, 1.29x: +2.8%), once the
document is written from `logcheck.check_document`, the one definition `loopspec schema check`
makes its JSON Schema from (a module of some sixty keys, imported for `--format json` alone);
`check SMALL` 45.6M either way, its summary line now summed without the JSON writer.

`--breakdown` counts, with callgrind, where `check SMALL`'s instructions go, each part with its
share of `python -c pass`'s: the interpreter's start, each module check imports that the bare
interpreter does not (counted as a fresh interpreter's import of it after every module before it,
the collector held off as check holds it), the check itself; then the same instructions by kind
of work (unmarshalling `.pyc` code, building classes, the collector; each module's part split
so too), and, from the wheel, a check installed without bytecode where none may be written
(below).
Measured so (2026-12-05, installed wheel): `check SMALL` 45.65M, 1.28x `python -c pass`'s 35.69M.
`python -c pass` is 28.72M of start and 6.97M of finalization, which check skips; check's 16.9M
past the start are its imports, 15.4M, and the check itself (options, signals, reading the log,
the report, one young-generation collection), 1.5M. The imports, in percent of `python -c pass`:
`loopspec.model.invariants` 7.8 (the rules' registry the model's tests run: 127 KB of bytecode,
seven classes), `logcheck.checker` 6.7 (73 KB, thirteen classes), `model.jsonvalue` 3.7,
`model.facts` 3.4, `logcheck.clean_events` 3.1, `cli.main` 3.0, `logcheck.report` 2.5,
`logcheck.files` 1.9, `cli.check` 1.8, `loopspec` 1.5, `__future__` 1.4 (every module's `from
__future__ import annotations`), `logcheck` 1.4, `loopspec.model` 1.3, `properties` 1.1 and
`cli` 1.2 (packages of a docstring: the import system's work alone), `_json` 0.9 (the C scanner
every log line is read with), `gc` 0.5 (held off, the collector would walk the heap again and
again). By kind: unmarshalling 430 KB of bytecode 5.5M (15 %), building 36 classes 2.9M (8 %,
~70k each, an exception's more), the import system's work 0.31M (0.9 %) a module (an empty
one's), sixteen of them 5M (14 %), the modules' bodies ~1M. No module that `python -c pass`
lacks is imported but these: neither argparse, re, enum, typing, collections, functools,
contextlib nor pathlib (tests hold it). Moving off check's way every function a check of SMALL,
BROKEN, TORN, HOOKED and MARKED never calls (some 200, the invariants' full path, other layouts'
readers, errors' wording), tried by replacing their bodies in an installed copy, saves 1.1M
(3 %, to 1.25x). So a check at 1.10x (39.3M) would need some 6M fewer: half its modules (each
merged into another saves 0.31M), half its bytecode and half its classes together. A check that
runs the model's own invariant registry, from modules of their own, stays near 1.25x. The same
wheel under Python 3.12 and 3.13 (installed by pip, so compiled; counted by hand as this script
counts): `check SMALL` 53.2M against `python -c pass`'s 42.0M, 1.27x, and 57.2M against 46.8M,
1.22x. Later that day, `check SMALL` 45.42M (one class fewer: `jsonvalue.json_scanner` builds
both readers' scanners), then 45.98M, 1.29x, once the console script starts in
`loopspec._console` (it takes the ending signals over before the command line loads: 0.56M,
1.6 %, of which 0.31M its being a module of its own).
The floor (2026-12-05, installed wheel, `--rounds 3 --instructions --breakdown`, each module's part
now split into unmarshalling, classes and the rest): `check SMALL` 46.17M, 1.29x; 1.10x is 39.26M,
10.54M past the interpreter's start, where check spends 17.45M. Importing a module costs 0.33M
before its code and classes (`_json`, code-less: 0.33M; `loopspec.model`, past its one class and
small code: 0.33M): check imports seventeen (`__future__`, `_json` and fifteen of loopspec's, five
of them packages), 5.6M, with `gc` 5.8M, fixed while the modules are. That leaves 4.7M for some
11.6M now: unmarshalling 5.66M (`model.invariants` 1.50M, `logcheck.checker` 0.97M, `model.facts`
0.56M, `jsonvalue` 0.47M, `report` 0.45M, `clean_events` 0.44M, `cli.main` 0.38M), building the 37
classes 3.06M (`checker`'s twelve 0.88M, `invariants`' seven 0.63M, `jsonvalue`'s four 0.38M), the
modules' bodies past their import ~1.7M (`invariants`' registering 0.4M), and the check itself
1.49M. Tried, each alone, in a copy of these modules counted as this script counts (none landed; the
saving, then what it would cost the code): a clean log checked without the rule registry, `Prefix`
and its fold in a module of their own (the other 95 KB of `invariants`' 137 KB, its 32 checks, their
helpers and `LogMonitor`, imported at the first event the judges pass down the full path), the
judges' `stands_for` held to the registry by a test instead of at each run, the chunk's quiet kind a
table held so: SMALL -1.68M (to 1.25x), HOOKED -1.61M, `--format json` nothing (its `rules_checked`
reads the registry); 900 lines of `model.invariants` moved, and the judges' guard, run by every
check, left to a test. No `from __future__ import annotations` (the same bytecode but its import),
every annotation naming a TYPE_CHECKING import quoted in fifteen modules: -0.49M.
`loopspec._console` in `loopspec/__init__.py`: -0.33M, a package with two jobs. Every docstring of
check's modules gone: -0.30M. `clean_events.CleanJudge` a tuple: -0.09M; `LogMonitor`'s routes read
from (check, filter) pairs: -0.03M. Together some 2.9M (to 1.21x). At 1.10x, besides all of these,
half the classes and most of the code left on a check's way would have to go, or its ten modules be
merged into a few (0.33M each): the one-blob shape this project refuses.
Installed without bytecode (uv installs so unless given `--compile-bytecode`; pip compiles as it
installs) the first run of each module compiles it; where Python may not write the bytecode
(PYTHONDONTWRITEBYTECODE, which container images often set, or a read-only install) every run
does: `check SMALL` 366.6M, 10.3x.
2026-12-05, later (installed wheel, `--rounds 3 --instructions`, this commit's wheel against its
parent's, one run after the other, `python -c pass` 35.7M in each): `check SMALL` 45.1M, 1.26x
(was 47.0M, 1.32x), HOOKED 46.8M (was 48.7M), MARKED 47.8M (was 49.6M), TORN 45.2M (was
47.1M), `--format json SMALL` 46.7M (was 48.7M), `--known claude-code SMALL` 45.9M (was 47.9M),
CLAUDE-CODE 51.8M (was 53.3M), BROKEN 47.7M (was 47.6M: it needs the registry, and imports
one module more), once `Prefix` and its fold are a module of their own (`model.prefix`) and
the registry (`model.invariants`) is imported at the first event the judges and the quiet
path leave to it (`checker._monitor`): the judges' `stands_for`, the chunk's quiet kind
(`clean_events.QUIET_KINDS`) and the rules a report names (`logcheck.INVARIANT_RULES`) are
held to the registry by tests instead of at each run. Then `check CLAUDE-CODE` 50.9M, 1.43x
(was 52.0M, 1.46x; `check SMALL` 45.2M, was 45.3M), once the clean-event judges
(`logcheck.clean_events`) are imported where a dsh log is checked, not by every check.
`check CODEX` (a clean rollout, counted since) 49.2M, 1.38x (was 51.2M, 1.44x), `check
CLAUDE-CODE` 50.4M, 1.41x (was 51.1M, 1.43x; the rest as they were), once `foreign` tells a
transcript from a rollout by first-record tests of its own and imports only the reader of the
dialect found: a rollout had imported Claude Code's reader, its hooks' reader and the hook audit
with it, a transcript the Codex reader. Then `check CLAUDE-CODE` 49.6M, 1.39x (was 50.4M,
1.41x), once a hook is named without the hook audit's wrapper (and the harness driver's package)
unless its command is one `run --harness` wrapped. Then `check CLAUDE-CODE` 49.0M, 1.37x, and
`check CODEX` 48.4M, 1.35x (were 49.6M and 49.2M), once the tally of hooks' faults
(`logcheck.hook_faults`) is imported at the first fault a transcript or rollout records.

The fair floor (2026-12-05, installed wheel, `--rounds 3 --instructions`): a Python program
that only reads the log line by line with `json.loads` (`FLOOR_PROGRAM`, the least any checker
of a JSON-lines log must do, ending as Python ends) runs SMALL in 67.1M, HOOKED in 68.1M, MARKED
in 68.2M (1.88x-1.91x `python -c pass`: json's import, with the re, enum and collections it
imports, and their finalization); `check SMALL` is 0.67 of it, HOOKED 0.68, MARKED 0.70: check
does less than the plainest reader of its log. Then `check SMALL` 44.9M, 1.26x (was 45.3M,
1.27x), BROKEN 47.8M (was 48.2M), HOOKED 46.6M (was 47.0M), MARKED 47.5M (was 47.9M),
CLAUDE-CODE 48.6M (was 49.0M), CODEX 48.0M (was 48.3M), this commit's wheel against its
parent's in one sitting, once itertools (0.39M to import, builtin as it is) is imported only
where `checker.nested_deeper` counts a line with more brackets than a log may nest. Then
`check SMALL` 44.6M, 1.25x (was 44.9M), HOOKED 46.4M (was 46.6M), BROKEN 47.5M (was 47.8M),
CLAUDE-CODE 48.4M (was 48.7M), CODEX 47.8M (was 48.1M), once the program's first step (the
ending signals taken over before the command line loads) is the `cli` package's own code, where
it was a module of its own (`loopspec._console`, left for the scripts an older install wrote).
Then `check SMALL` 44.4M, 1.24x (was 44.6M, 1.25x), HOOKED 46.1M (was 46.4M), MARKED 47.1M
(was 47.3M), CLAUDE-CODE 48.2M (was 48.4M), CODEX 47.5M (was 47.8M), but BROKEN 48.0M (was
47.5M: it reads facts, and imports one module more), once the readers of each event type's data
(`model.fact_readers`) are imported at the first fact read from its JSON, which the clean-event
judges and the other loops' readers never ask for. Then `check SMALL` 44.2M, 1.24x (was
44.4M), BROKEN 47.8M (was 48.0M), HOOKED 46.0M (was 46.1M), MARKED 46.9M (was 47.1M),
CLAUDE-CODE 48.0M (was 48.2M), CODEX 47.4M (was 47.5M), once the reading of a key given twice
(`model.repeated_keys`, with its exception class), which no check runs (LOG-3: check reads the
last of two, as dsh does), is no longer part of `model.jsonvalue`.
What is left (`--breakdown`, installed wheel, after those): `check SMALL` 44.25M, 1.24x; past
the interpreter's start 15.5M: `__future__` 0.49M, `gc` 0.19M, `_json` 0.34M, fourteen
loopspec modules (five of them packages, 0.4M-0.6M each, nearly all the import system's work)
and the check itself 1.08M. The largest: `logcheck.checker` 2.68M (twelve classes 0.96M, its
code 1.05M), `model.prefix` 1.61M, `model.jsonvalue` 1.18M, `report` 1.03M, `clean_events`
1.01M, `model.facts` 0.99M, `cli.main` 0.97M. Of `facts` and `jsonvalue` a clean check of
SMALL, HOOKED and MARKED runs little (`message_plain`; `json_scanner`, `value_of`): `prefix`
and `clean_events` import them at module level for their constants and classes, so `facts`
stays on the clean path however little of it runs (what a module of those constants alone
would save is not counted). Moving out of `cli.main` what a clean check never calls (the ends
of a bug, a stop, an unwritable output) was counted at 0.14M, a module more for a run that ends
so: not done. Moving the repeated keys' reading out of `jsonvalue` alone was counted at 0.19M
before it landed, the data readers out of `facts` at 0.25M: what a function costs a check that
never calls it is its code's unmarshalling, some 0.01M per kilobyte of bytecode.
`loopspec check --help` 93.3M (was 103.6M), `loopspec --help` 83.9M (was 94.2M), `loopspec
--version` 32.9M, 0.92x (was 39.0M, 1.09x), a usage error (`check --nope x`) 75.0M (was 85.2M),
once help, `--version` and a usage error, which end before any verb ran, end without the
interpreter's finalization as check does (tearing down argparse, re and gettext); counted from
the wheel of this commit and of its parent, one after the other, `python -c pass` 35.6M.
`loopspec spec STEP-1` 35.9M, 1.01x (was 39.7M, 1.11x; `spec RW`, a family, 36.7M, was
39.8M), once the rules named are found by their headings (`spec_rules.named_rule_sections`)
instead of SPEC.md split whole into every rule's section.
`loopspec check --format=json SMALL` 45.9M, as `--format json` (was 85.8M, 2.41x: argparse read
it), and `--max-violations=5` 44.3M (was 85.0M), once an option joined to its value by `=` is
read as the usual check's options are (`cli.check.usual_check_arguments`).
`loopspec check` of a folder holding SMALL and a copy of it below: 44.7M (was 45.5M), once the
system's words for a folder that cannot be listed (`impl.system_words`, and the `impl` package)
are imported where one could not be, not at the first folder walked.
`loopspec spec --list` 42.8M (was 94.7M), once it is read without argparse as `spec RULE` is
(`cli.spec.usual_spec_list`), ends without the interpreter's finalization, and lists every
rule without looking each up among all.

2026-12-05, evening (installed wheel, callgrind, this commit's wheel against its parent's, one
after the other, `python -c pass` 35.61M): `check SMALL` 43.97M, 1.23x (was 44.27M, 1.24x),
BROKEN 47.59M (was 47.89M), HOOKED 45.58M (was 45.89M), MARKED 46.49M (was 46.80M), but TORN
44.79M (was 44.38M: its torn line imports the module), once the judging of a line json's
scanner cannot read (json's decoder's errors, the torn, glued, blank, binary and zeroed lines'
words: 17 functions and a class) is `logcheck.unreadable_lines`, imported at the first such line.
Then `check SMALL` 43.85M, 1.23x (was 43.97M), HOOKED 45.47M (was 45.58M), once
`checker._NOT_BRACKETS` (`nested_deeper`'s table of every byte but the brackets) is made by
`bytes.translate` where a generator over the 256 bytes ran at every start.
Then `check SMALL` 43.41M, 1.22x (was 43.85M), HOOKED 45.02M (was 45.47M), MARKED 45.93M (was
46.49M), TORN 44.22M (was 44.79M), `--format json SMALL` 46.11M (was 46.97M), CLAUDE-CODE 47.60M
(was 48.47M), CODEX 47.07M (was 47.94M), but BROKEN 47.82M (was 47.59M: the registry imports
both modules), once JSON text's reading and writing without json (`model.json_text`: the C
scanner, `value_of`, `loads`, `json_dumps`, `spelled`) is a module apart from the model's frozen
values (`model.jsonvalue`: `FrozenMap`, an ABC, `freeze`, `parse_arguments`), which a check
imports only for a call whose arguments hold more than strings (`prefix.arguments_are_an_object`).
What is left (`--rounds 1 --instructions --breakdown`, after those): `check SMALL` 43.59M, 1.22x
(44.43M, 1.24x, at the session's start; the figures above, counted alone from the wheel's own
bytecode, read ~0.2M less than these rows, whose bytecode sits under a temporary
PYTHONPYCACHEPREFIX). 1.10x is 39.26M: 4.3M fewer. Past the interpreter's start check spends
14.9M: the import system's work for sixteen modules (fourteen of loopspec's, five of them
packages, `__future__` and `_json`), 0.34M-0.54M each, ~6.4M with `gc`; unmarshalling 4.83M;
34 classes 2.37M; the check itself 1.12M. Counted in a copy of the installed modules: every
function a clean check of SMALL, HOOKED and MARKED never calls removed (not moved: no module
more for the runs that call them) saves 1.42M (to 1.18x); no `from __future__ import
annotations` in any of them 0.49M (every annotation naming a TYPE_CHECKING import then quoted);
a class ~0.07M (an exception ~0.08M); a module merged into another ~0.30M. So 1.10x needs all of
those and some eight of the fourteen modules merged into others: the one-blob shape, not taken.
Nor is the one collection check adds to the interpreter's (0.25M) a choice: it runs while
`loopspec.properties` is imported, before the program can hold the collector (`python -c pass`
leaves 589 of the 700 allocations that set one off; `loopspec` alone takes 81).
Then `check SMALL` 44.04M, 1.24x (was 43.43M), HOOKED 45.65M (was 45.04M), MARKED 46.57M (was
45.95M), counted alone from the wheels of 4baab7b and its parent, once check reads a log's lines
through `io.TextIOWrapper` (`checker.LineReader`, which saves 7.6M on bench_check.py's
20,000-event log): its five classes and their code cost the checker's import 0.54M, the text
reader a log 0.07M; the trade pays from some 1,600 events a log.
Then `check SMALL` 43.81M (was 43.97M on the main of the day), HOOKED 45.42M (was 45.58M),
BROKEN 48.22M (was 48.38M), TORN 44.82M (was 44.80M), once the line `LineReader` cannot hand
over as text (`RawLine`) and its reading on as bytes (`Replay`) are `logcheck.unreadable_lines`'.
(A venv whose path is five characters longer counts ~0.06M more: compare counts from one path.)
2026-12-05, night: this session's merges against its start (da402a5, a clone with its own
venv, `--no-wheel`, callgrind, each row counted from both in one sitting, `python -c pass`
39.89M): `check SMALL` 47.81M (was 47.69M), BROKEN 52.41M (52.20M), HOOKED 49.46M (49.31M),
MARKED 50.39M (50.24M), CLAUDE-CODE 52.18M (52.02M), CODEX 51.60M (51.47M): every row imports
the modules it did, the 0.12M-0.21M more is code added to them (`clean_events`, `prefix`,
`cli.main`, `report`: some 4.5 KB of source together). MARKED is 1.26x, 0.69 of its floor, 0.9M
over HOOKED for `logcheck.commit_units` (its import, code and class): a row of 137.4M (3.45x)
was a count taken while a module it imports was uncompiled (81.1M with `commit_units` alone
uncompiled, its bytecode not yet in the cache), as a merge landing mid-run leaves one.
2026-12-05, night (this checkout, `--no-wheel`: an editable install, as `make venv` makes;
callgrind, `python -c pass` 39.9M): `loopspec --version` 38.7M, 0.97x (was 210.9M, 5.29x),
once an editable install's version is read from the metadata importlib.metadata would find
first on `sys.path` (`version_lookup.version_on_path`), where it imported importlib.metadata
(with email, zipfile, threading and more) and ended with the interpreter's finalization; a
wheel's was read so already (`version_beside`). Then the lookup is `loopspec.version_lookup`,
imported by `__version__` alone: `import loopspec`, which every check runs, 33.34M where it took
33.45M (`check SMALL` 47.70M, was 47.81M), `--version` 39.05M (0.98x) for the module more.
Then `check BROKEN` 51.48M, 1.29x (was 52.41M, 1.31x; `--format json` BROKEN 53.19M, was
54.36M), once the registry (`model.invariants`) imports the model's frozen values
(`model.jsonvalue`) only to compare a call's arguments spelt two ways (`same_arguments`), where a
check of a log with a violation imported them with it.
Then `check --format json SMALL` 49.43M, 1.24x (was 50.44M, 1.26x; BROKEN so 54.31M, was
55.01M), once the JSON document's definition (`check_document`) spells the loops `--known`
names, held to `known_divergences.LOOPS` by a test, where it imported that module for them.

Every command runs with its bytecode cached (in a temporary `PYTHONPYCACHEPREFIX`, written by a
warm-up run, even where `PYTHONDONTWRITEBYTECODE` is set), as an installed copy runs: otherwise
each start would compile loopspec's sources, which no user's start pays.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from callgrind import instructions_of_command

from loopspec.properties.cli.demo_scenario import DEMO_COMMANDS, DEMO_CONFIG
from loopspec.properties.logcheck.synth import HEADER, MARKED_HEADER, marked_model_rows, model_rows

HELP_TARGET_SECONDS = 0.5
CHECK_TARGET_RATIO = 1.10  # (was 1.5, met since 2026-12-03; the instructions' view says 1.23x)
BASELINE = "python -c pass"
FLOOR_PROGRAM = """\
import json, sys
with open(sys.argv[1], encoding="utf-8") as log:
    for line in log:
        json.loads(line)
"""
"""The fair floor of checking a log: a Python program that only reads it line by line with
`json.loads`, the least any checker of a JSON-lines log must do (it ends as Python ends)."""
FLOOR = "python: json.loads each line of"
"""The floor's rows, by the log they read: `FLOOR SMALL` and so on."""
FLOORED_LOGS = ("SMALL", "HOOKED", "MARKED")
"""The logs whose check rows are also counted against the floor reading the same log."""
ROOT = Path(__file__).resolve().parent.parent


def _loopspec() -> list[str]:
    """The console script beside this interpreter, or `python -m loopspec`."""
    script = Path(sys.executable).with_name("loopspec")
    if script.exists():
        return [str(script)]
    found = shutil.which("loopspec")
    return [found] if found else [sys.executable, "-m", "loopspec"]


class Sample(NamedTuple):
    wall: float
    cpu: float


def _cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(argv: Sequence[str], status: int, env: dict[str, str]) -> Sample:
    cpu_before = _cpu_of_children()
    started = time.perf_counter()
    done = subprocess.run(
        argv, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
    )
    wall = time.perf_counter() - started
    if done.returncode != status:  # a command that fails early would be measured as fast
        raise SystemExit(f"{' '.join(argv)}: exit status {done.returncode}, expected {status}")
    return Sample(wall, _cpu_of_children() - cpu_before)


# A small clean dsh log: a header and one turn of one step, as `loopspec check` sees it.
SMALL_LOG = [
    {"type": "session", "version": 0, "id": "s", "createdAt": 1700000000000, "cwd": "/w"},
    {"type": "turn/start", "seq": 0, "time": 0, "data": {"turn": 1}},
    {"type": "step/start", "seq": 1, "time": 0, "data": {"turn": 1, "step": 1}},
    {"type": "assistant/chunk", "seq": 2, "time": 0, "data": {"turn": 1, "step": 1}},
    {"type": "step/end", "seq": 3, "time": 0, "data": {"turn": 1, "step": 1}},
    {"type": "turn/end", "seq": 4, "time": 0, "data": {"turn": 1, "reason": {"kind": "completed"}}},
]
# The demo's first two turns (parallel calls, PreToolUse hooks, a rewrite, an approval, a
# denial), written as a dsh log (HOOKED) and as `loopspec run` writes them (MARKED: version 1,
# commit markers, which check reads with `logcheck.commit_units` besides).
TWO_TURNS = DEMO_COMMANDS[:14]
# The same turn with its step numbered 2 where 1 was due: one violation (STEP-1), exit 1.
BROKEN_LOG = [
    SMALL_LOG[0],
    {"type": "turn/start", "seq": 0, "time": 0, "data": {"turn": 1}},
    {"type": "step/start", "seq": 1, "time": 0, "data": {"turn": 1, "step": 2}},
    {"type": "step/end", "seq": 2, "time": 0, "data": {"turn": 1, "step": 2}},
    {"type": "turn/end", "seq": 3, "time": 0, "data": {"turn": 1, "reason": {"kind": "completed"}}},
]
# SMALL cut off inside its last line, as a crash leaves a log: a torn-commit notice (LOG-8), exit 0.
TORN_AT = -20


def main(argv: Sequence[str] | None = None) -> int:
    """Print the start-up times and ratios; exit 1 when `--help` misses 0.5 s."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--no-wheel", action="store_true", help="skip the installed wheel's rows")
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count check's instructions with valgrind's callgrind, against python -c pass",
    )
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help="also count, with callgrind, where `check SMALL`'s instructions go: the "
        "interpreter's start and finalization, each module it imports, the check itself",
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as tmp:
        logs = {}
        for name, rows in (
            ("small", SMALL_LOG),
            ("broken", BROKEN_LOG),
            ("hooked", [HEADER, *model_rows(DEMO_CONFIG, TWO_TURNS)]),
            ("marked", [MARKED_HEADER, *marked_model_rows(DEMO_CONFIG, TWO_TURNS)]),
        ):
            logs[name] = Path(tmp, f"{name}.jsonl")
            logs[name].write_text("".join(json.dumps(row) + "\n" for row in rows))
        logs["torn"] = Path(tmp, "torn.jsonl")
        logs["torn"].write_text(logs["small"].read_text()[:TORN_AT])
        env = {
            **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
            "PYTHONPYCACHEPREFIX": str(Path(tmp, "pycache")),
        }
        wheel = None if args.no_wheel else _install_wheel(Path(tmp, "wheel"), installed_env(env))
        status = _measure(args.rounds, logs, Path(tmp, "missing.jsonl"), env, wheel)
        if args.instructions:
            _count_instructions(Path(tmp), logs, env, wheel)
        if args.breakdown:
            _break_down(Path(tmp), logs["small"], env, wheel)
        return status


def installed_env(env: dict[str, str]) -> dict[str, str]:
    """`env` for the wheel's venv: without PYTHONPATH, which would put a checkout (the one a
    worktree's commands name) before the wheel, so that its rows measured the checkout's code,
    and pip, finding the checkout's `loopspec.egg-info` there, installed nothing."""
    return {key: value for key, value in env.items() if key != "PYTHONPATH"}


# The rows counted by `--instructions`: check, and the `spec RULE` it names, against the
# interpreter they start.
COUNTED = (
    BASELINE,
    "loopspec --version",
    "loopspec check SMALL",
    "loopspec check BROKEN",
    "loopspec check TORN",
    "loopspec check HOOKED",
    "loopspec check MARKED",
    "loopspec check --format json SMALL",
    "loopspec check CLAUDE-CODE",
    "loopspec check CODEX",
    "loopspec check --known claude-code SMALL",
    "loopspec spec STEP-1",
    *(f"{FLOOR} {log}" for log in FLOORED_LOGS),
)


CLAUDE_CODE_LOG = ROOT / "tests/fixtures/logs/claude-code/valid/rewrite-to-the-same-input.jsonl"
"""A Claude Code transcript that breaks no rule, read by `logcheck.claude_code`."""

CODEX_LOG = ROOT / "tests/fixtures/logs/codex/valid/parallel-calls-in-issue-order.jsonl"
"""A Codex rollout that breaks no rule, read by `logcheck.codex`."""

REPLAY_CASE = ROOT / "tests" / "regressions" / "dsh-abort-drops-queued-input.json"
"""A case the bundled implementation replays without divergence (7 commands, dsh's profile)."""


def _checkout_only() -> dict[str, tuple[list[str], int]]:
    """The rows measured in this checkout alone (their verbs import the dependencies the
    wheel's venv is made without)."""
    # --bundled: the case was found on a --cmd target, and replay refuses such a case that
    # names no target (exit 2) unless told to run it on the bundled implementation.
    replay = [*_loopspec(), "replay", "--bundled", str(REPLAY_CASE)]
    return {"loopspec replay CASE": (replay, 0)}


def _installation(wheel: Path | None) -> tuple[str, list[str]]:
    """The interpreter and the `loopspec` command measured: the wheel's venv's, or this
    checkout's where no wheel was installed."""
    if wheel is None:
        return sys.executable, _loopspec()
    return str(wheel / "python"), [str(wheel / "loopspec")]


def _count_instructions(
    tmp: Path, logs: dict[str, Path], env: dict[str, str], wheel: Path | None
) -> None:
    """Print the instructions of check's rows and their ratio to `python -c pass`'s: a count
    does not move with the load other processes put on the machine, as times do (it does not
    weigh cache misses and stalls either, which times do)."""
    if shutil.which("valgrind") is None:
        print("instructions: valgrind not installed")
        return
    python, loopspec = _installation(wheel)
    commands = _commands(python, loopspec, logs, tmp / "missing.jsonl")
    counted = {name: commands[name] for name in COUNTED}
    if wheel is None:
        counted |= _checkout_only()
    if wheel is not None:
        old_script = [str(wheel / OLD_PIP_SCRIPT), "check", str(logs["small"])]
        counted["loopspec check SMALL, pip<25 script"] = (old_script, 0)
    out = tmp / "callgrind.out"
    counted_env = env if wheel is None else installed_env(env)
    counts = {
        name: instructions_of_command(argv, code, out, counted_env)
        for name, (argv, code) in counted.items()
    }
    where = "the installed wheel" if wheel is not None else "this checkout"
    print(f"\ninstructions (callgrind, {where}; x {BASELINE}, and / the floor: {FLOOR} LOG)")
    for name, count in counts.items():
        line = f"{name:48} {count / 1e6:7.1f}M {count / counts[BASELINE]:5.2f}x"
        floor = counts.get(f"{FLOOR} {name.rsplit(' ', 1)[-1]}")
        if name.startswith("loopspec check") and floor is not None:
            line += f" {count / floor:5.2f} of the floor"
        print(line)
    if wheel is None:
        return
    # Replay against this checkout's interpreter, not the wheel venv's (see the module's help).
    here = {BASELINE: ([sys.executable, "-c", "pass"], 0), **_checkout_only()}
    mine = {name: instructions_of_command(a, code, out, env) for name, (a, code) in here.items()}
    print("\ninstructions (callgrind, this checkout)")
    for name, count in mine.items():
        print(f"{name:48} {count / 1e6:7.1f}M {count / mine[BASELINE]:5.2f}x")


def _break_down(tmp: Path, small: Path, env: dict[str, str], wheel: Path | None) -> None:
    """Print where `check SMALL`'s instructions go, each part with its share of `python -c
    pass`'s: the interpreter's start (`python -c pass` ended by `os._exit`), the finalization
    `python -c pass` runs and check skips (`cli.main.program`), each module check imports that
    the bare interpreter does not, and the rest (the check itself, its options and output).

    A module's part is what importing it adds, counted in a fresh interpreter that imports, with
    the collector held off (as check holds it), every module before it in the order check's
    imports end (`-X importtime`'s order: a module's own imports end first), then it, then
    ends by `os._exit`: the import system's work for it, its code's unmarshalling, and its body
    (the classes, functions and tables it builds)."""
    if shutil.which("valgrind") is None:
        print("breakdown: valgrind not installed")
        return
    python, loopspec = _installation(wheel)
    counted_env = env if wheel is None else installed_env(env)
    out = tmp / "callgrind.out"

    def count(argv: list[str]) -> int:  # each command counted here exits 0
        return instructions_of_command(argv, 0, out, counted_env)

    check = [*loopspec, "check", str(small)]
    # (gc: imported by the line that holds the collector, below)
    before_check = {"gc", *_imported_in_order([python, "-c", "pass"], counted_env)}
    modules = [name for name in _imported_in_order(check, counted_env) if name not in before_check]
    bare = count([python, "-c", "pass"])
    started = count([python, "-c", "import os; os._exit(0)"])
    started_kinds = _kinds_of_work(out)
    held = "import gc, os; gc.disable(); "
    # -P: the current folder is not searched first, as the `loopspec` script's is not.
    before = count([python, "-P", "-c", f"{held}os._exit(0)"])
    parts = {
        "the interpreter's start (python -c pass but its finalization)": started,
        "import gc, gc.disable()": before - started,
    }
    # Per module, its part by kind of work: unmarshalling its code, building its classes, and
    # the rest (the import system's work, the rest of its body).
    split: dict[str, tuple[int, int]] = {}
    kinds_before = _kinds_of_work(out)
    for index, name in enumerate(modules):
        imports = "".join(f"import {each}; " for each in modules[: index + 1])
        total = count([python, "-P", "-c", f"{held}{imports}os._exit(0)"])
        kinds = _kinds_of_work(out)
        parts[f"import {name}"] = total - before
        split[f"import {name}"] = (
            kinds[UNMARSHAL] - kinds_before[UNMARSHAL],
            kinds[CLASSES] - kinds_before[CLASSES],
        )
        before, kinds_before = total, kinds
    whole = count(check)
    check_kinds = _kinds_of_work(out)
    parts["the check: options, reading the log, the report"] = whole - before
    where = "the installed wheel" if wheel is not None else "this checkout"
    print(f"\nwhere `loopspec check SMALL` goes (callgrind, {where}; % of {BASELINE})")
    print(
        f"{BASELINE}: {bare / 1e6:.2f}M, of which its finalization {(bare - started) / 1e6:.2f}M"
        " (check ends without it: `cli.main.program`)"
    )
    print(f"{'':77}  {'unmarshal':>9} {'classes':>8} {'the rest':>9}")
    for name, part in parts.items():
        line = f"{name:60} {part / 1e6:+7.2f}M {part / bare:+7.1%}"
        if name in split:
            unmarshalled, built = split[name]
            rest = part - unmarshalled - built
            line += f"  {unmarshalled / 1e6:8.2f}M {built / 1e6:7.2f}M {rest / 1e6:8.2f}M"
        print(line)
    print(f"{'loopspec check SMALL':60} {whole / 1e6:7.2f}M {whole / bare:6.2f}x")
    print("what check does past the interpreter's start, by kind of work")
    for kind, function in KINDS_OF_WORK.items():
        more = check_kinds[function] - started_kinds[function]
        print(f"  {kind:58} {more / 1e6:+7.2f}M {more / bare:+7.1%}")
    rest = whole - started - sum(check_kinds[f] - started_kinds[f] for f in KINDS_OF_WORK.values())
    print(f"  {'the rest: the import system, module bodies, the check':58} {rest / 1e6:+7.2f}M")
    if wheel is not None:
        uncompiled = _install_uncompiled(tmp / "uncompiled", wheel, counted_env)
        env_without_bytecode = {**counted_env, "PYTHONDONTWRITEBYTECODE": "1"}
        argv = [str(uncompiled / "loopspec"), "check", str(small)]
        count_uncompiled = instructions_of_command(argv, 0, out, env_without_bytecode)
        print(
            f"{'check SMALL, installed without bytecode, none written':60}"
            f" {count_uncompiled / 1e6:7.2f}M {count_uncompiled / bare:6.2f}x"
        )


def _install_uncompiled(folder: Path, wheel_venv: Path, env: dict[str, str]) -> Path:
    """The `bin` folder of a fresh venv in `folder` holding the wheel installed as uv installs
    one unless told `--compile-bytecode`: without its modules compiled. Where Python may not
    write their bytecode either (PYTHONDONTWRITEBYTECODE, which container images often set, or
    a read-only install), every run compiles every module it imports."""
    (wheel_file,) = wheel_venv.parent.parent.glob("loopspec-*.whl")
    venv = folder / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)],
        check=True,
        stdout=subprocess.DEVNULL,
        env=env,
    )
    pip = [sys.executable, "-m", "pip", "-q", "--disable-pip-version-check"]
    install = ["--python", str(venv / "bin" / "python"), "install", "--no-deps", "--no-compile"]
    subprocess.run(
        [*pip, *install, str(wheel_file)], check=True, stdout=subprocess.DEVNULL, env=env
    )
    return venv / "bin"


UNMARSHAL = "marshal_loads"
CLASSES = "builtin___build_class__"
KINDS_OF_WORK = {
    "unmarshalling modules' code (.pyc)": UNMARSHAL,
    "building classes (their bodies with them)": CLASSES,
    "the cyclic collector": "gc_collect_main",
}
"""Kinds of work an import does, by the interpreter's C function that does it (callgrind counts
each with what it calls)."""


def _kinds_of_work(out: Path) -> dict[str, int]:
    """The instructions of each of `KINDS_OF_WORK`'s functions, with what it calls, in the
    callgrind profile `out`."""
    annotated = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(out)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    found = dict.fromkeys(KINDS_OF_WORK.values(), 0)
    for line in annotated.splitlines():
        count, _, where = line.strip().partition(" ")
        # "1,234 (5.6%)  file.c:function [library]": a recursive call's line ("function'2") is
        # counted within the outer call's already.
        function = where.split(":")[-1].split(" ")[0] if ":" in where else ""
        if function in found and count.replace(",", "").isdigit():
            found[function] = max(found[function], int(count.replace(",", "")))
    return found


def _imported_in_order(argv: list[str], env: dict[str, str]) -> list[str]:
    """The modules the command `argv` imports, in the order their imports end (what
    `PYTHONPROFILEIMPORTTIME` prints on stderr)."""
    done = subprocess.run(
        argv,
        check=True,
        capture_output=True,
        text=True,
        env={**env, "PYTHONPROFILEIMPORTTIME": "1"},
    )
    lines = [line for line in done.stderr.splitlines() if line.startswith("import time:")]
    return [line.rsplit("|", 1)[1].strip() for line in lines[1:]]  # past the column titles


def _install_wheel(folder: Path, env: dict[str, str]) -> Path:
    """Build this checkout's wheel and install it, without dependencies, into a fresh venv in
    `folder`; the venv's `bin` folder."""
    venv = folder / "venv"
    pip = [sys.executable, "-m", "pip", "-q", "--disable-pip-version-check"]

    def run(*command: str) -> None:
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)

    run(*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(folder), str(ROOT))
    run(sys.executable, "-m", "venv", "--without-pip", str(venv))
    (wheel,) = folder.glob("loopspec-*.whl")
    run(*pip, "--python", str(venv / "bin" / "python"), "install", "--no-deps", str(wheel))
    old_script = venv / "bin" / OLD_PIP_SCRIPT
    old_script.write_text(f"#!{venv / 'bin' / 'python'}\n{OLD_PIP_TEMPLATE}")
    old_script.chmod(0o755)
    return venv / "bin"


OLD_PIP_SCRIPT = "loopspec-pip24"
OLD_PIP_TEMPLATE = """# -*- coding: utf-8 -*-
import re
import sys
from loopspec.properties.cli.main import program
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit(program())
"""
"""The console script pip wrote before 25.0 (distlib's template), below its `#!` line."""


def _commands(
    python: str, loopspec: list[str], logs: dict[str, Path], missing: Path
) -> dict[str, tuple[list[str], int]]:
    """Each measured command line of one installation, and its exit status."""
    return {
        "python -S -c pass": ([python, "-S", "-c", "pass"], 0),
        BASELINE: ([python, "-c", "pass"], 0),
        # What any Python command line that parses arguments and reads JSON imports.
        "python -c 'import argparse, json'": ([python, "-c", "import argparse, json"], 0),
        "loopspec --help": ([*loopspec, "--help"], 0),
        "loopspec --version": ([*loopspec, "--version"], 0),
        "loopspec check --help": ([*loopspec, "check", "--help"], 0),
        "loopspec check SMALL": ([*loopspec, "check", str(logs["small"])], 0),
        "loopspec check BROKEN": ([*loopspec, "check", str(logs["broken"])], 1),
        "loopspec check TORN": ([*loopspec, "check", str(logs["torn"])], 0),
        "loopspec check HOOKED": ([*loopspec, "check", str(logs["hooked"])], 0),
        "loopspec check MARKED": ([*loopspec, "check", str(logs["marked"])], 0),
        # A Claude Code transcript (hand-written: a hook's rewrite the model's input held).
        "loopspec check CLAUDE-CODE": ([*loopspec, "check", str(CLAUDE_CODE_LOG)], 0),
        # A Codex rollout (hand-written: parallel calls, their outputs in issue order).
        "loopspec check CODEX": ([*loopspec, "check", str(CODEX_LOG)], 0),
        # A CI job reading the report as JSON.
        "loopspec check --format json SMALL": (
            [*loopspec, "check", "--format", "json", str(logs["small"])],
            0,
        ),
        # A CI job setting a loop's known divergences aside, over a dsh log.
        "loopspec check --known claude-code SMALL": (
            [*loopspec, "check", "--known", "claude-code", str(logs["small"])],
            0,
        ),
        "loopspec check MISSING": ([*loopspec, "check", str(missing)], 2),
        "loopspec spec STEP-1": ([*loopspec, "spec", "STEP-1"], 0),
        **{
            f"{FLOOR} {log}": ([python, "-c", FLOOR_PROGRAM, str(logs[log.lower()])], 0)
            for log in FLOORED_LOGS
        },
    }


WHEEL = "wheel: "
"""The prefix of the rows measured in the venv the wheel is installed into."""


def _measure(
    rounds: int, logs: dict[str, Path], missing: Path, env: dict[str, str], wheel: Path | None
) -> int:
    commands = _commands(sys.executable, _loopspec(), logs, missing) | _checkout_only()
    if wheel is not None:
        installed = _commands(str(wheel / "python"), [str(wheel / "loopspec")], logs, missing)
        commands |= {WHEEL + name: command for name, command in installed.items()}
        old_script = [str(wheel / OLD_PIP_SCRIPT), "check", str(logs["small"])]
        commands[f"{WHEEL}loopspec check SMALL, pip<25 script"] = (old_script, 0)
    samples: dict[str, list[Sample]] = {name: [] for name in commands}
    envs = {name: installed_env(env) if name.startswith(WHEEL) else env for name in commands}
    for name, (command, status) in commands.items():  # warm the file and bytecode caches once
        _run(command, status, envs[name])
    for _ in range(rounds):
        for name, (command, status) in commands.items():
            samples[name].append(_run(command, status, envs[name]))
    wall = {name: statistics.median(s.wall for s in runs) for name, runs in samples.items()}
    cpu = {name: statistics.median(s.cpu for s in runs) for name, runs in samples.items()}
    print(f"{f'median of {rounds} runs':48} {'wall':>9} {'ratio':>6} {'cpu':>10} {'ratio':>6}")
    for name in commands:
        base = WHEEL + BASELINE if name.startswith(WHEEL) else BASELINE  # the same venv's
        print(
            f"{name:48} {wall[name] * 1000:6.1f} ms {wall[name] / wall[base]:5.2f}x"
            f" {cpu[name] * 1000:7.1f} ms {cpu[name] / cpu[base]:5.2f}x"
        )
    if _starts_with_an_editable_hook(env):
        print(
            f"note: {BASELINE} runs an editable install's import hook (pip install -e), which "
            "imports pathlib, re, enum and more: an installed wheel's ratios are higher"
        )
    # The target is held where a user meets it: the installed wheel, when it was measured.
    prefix = WHEEL if wheel is not None else ""
    check_ratio = cpu[prefix + "loopspec check SMALL"] / cpu[prefix + BASELINE]
    check_verdict = "met" if check_ratio <= CHECK_TARGET_RATIO else "missed"
    print(
        f"target: {prefix}loopspec check within {CHECK_TARGET_RATIO}x {BASELINE} (cpu): "
        f"{check_ratio:.2f}x, {check_verdict}"
    )
    help_verdict = "met" if wall["loopspec --help"] < HELP_TARGET_SECONDS else "MISSED"
    print(f"target: loopspec --help under {HELP_TARGET_SECONDS} s: {help_verdict}")
    return 0 if help_verdict == "met" else 1


def _starts_with_an_editable_hook(env: dict[str, str]) -> bool:
    """Whether the bare interpreter's `site` installs an editable install's import finder."""
    probe = "import sys; print(any(type(f).__module__.startswith('__editable__') or "
    probe += "getattr(f, '__module__', '').startswith('__editable__') for f in sys.meta_path))"
    done = subprocess.run(
        [sys.executable, "-c", probe], check=False, capture_output=True, text=True, env=env
    )
    return done.stdout.strip() == "True"


if __name__ == "__main__":
    sys.exit(main())
