"""Benchmarks for `loopspec check`: time against two baselines, memory against log length.

Run by hand: `.venv/bin/python benchmarks/bench_check.py` (some five minutes of CPU;
`--harness-only` times #15's row alone, the harness-written log, in about one). It writes
generated logs to a temporary directory and prints, from one run:

- time: the checker against a bare pass that only runs `json.loads` on each line of the same
  file (target: at most 1.3x, on each of the three logs below; every run once a round, five
  rounds, each ratio taken within a round, their median printed with the lowest and highest and
  the machine's load average, which moves them), against the same pass with a
  faster parser — `orjson.loads` and `msgspec.json.decode`, each when installed
  (`pip install -e '.[bench]'`; the checker itself never uses them) — and against validating
  the same events with a JSON Schema through `jsonschema` (target: at least 10x faster);
- memory: peak memory checking a 1,000,000-event log against a 100,000-event log, each measured
  in a fresh subprocess (target: less than 20 MB apart);
- where the checker's time goes, on a small log of each shape, each part as a multiple of the bare
  `json.loads` pass: its own reading (text lines from 64 KiB chunks, the json scanner it calls, and
  nothing else), the clean-event judges (`logcheck.clean_events`) on the events past the quiet
  path (with the full path for those a judge sends on), and the rest (the loop, the quiet
  events judged without a fact, and what the judges cost more between parses than timed
  alone); and, for comparison, what those events cost without the judges: building their facts
  (`fact_from_wire`) and feeding them to the invariants (`LogMonitor.feed`);
- with `--instructions`, when valgrind is installed: the same ratio counted in instructions
  (callgrind) on a 20,000-event log of each shape, less any interpreter start-up and import
  counted in a run that reads nothing. A count does not move with the load other processes put
  on a shared machine, which times do; it does not weigh cache misses and stalls, which times
  do, so it is a second view, not the target. Beside each ratio it prints what refusing a key
  given twice in one object (LOG-3) would add: the bare pass asking `repeated_keys.keys_may_repeat`
  of every line, the cheapest reading found, which check does not run.

The logs are the model's scripted demo (two turns: parallel calls, hooks, a rewrite, an approval,
a denial) as a dsh harness writes it — stream chunks, compact chunk rows, plugin events — repeated
with renumbered seqs and turns (`loopspec.properties.logcheck.synth`). A second, plainer log (the
model's events only, one per line) shows how the ratio depends on how many events a line holds:
every line of it is an event the clean-event judges read, where most lines a harness writes are
quiet ones. A third is that log as `loopspec run` writes it: header version 1, every event of a
commit of several marked `unit: [k, n]`, which the checker holds to LOG-8 besides
(`logcheck.commit_units`).

Where session 22 left the version-1 log (instructions, 20,000 events): 1.34x the json.loads pass
(909.5M against 679.2M), the goal 1.3x. Its own reading (readline, decode, scan) is 0.82x of
that pass; LOG-8 is 61M of the excess (with the markers unread, the checker is 1.24x, its excess
the plain log's, 165M), of which `CommitUnits.take`'s body is 46M (about 70 bytecodes a line) and
its call 15M. Tried and left out, each under 1%: `take`'s whole fast path inlined in the
checker's loop (-8M), `_lossless_float` replaced by `float` (-3M); worse: only a commit's middle
lines inlined (+10M), lines split from 64 KiB blocks (+11M). Reading text lines from a
`TextIOWrapper` saves 27M by iteration, but reads a line of any length whole (SAFE-4 bounds
it), and 10M through `readline(size)`, which bounds characters, not bytes.

Where session 24 found the model's-events-only log's instructions (20,000 events, each part
counted in its own run, less a run that reads nothing): reading (`readline(size)`, decode, the
C scanner, the newline test) 488M, 0.79x the json.loads pass (620M); the loop's tests of seq,
type and time and its judge lookup 89M more; the judges and the prefix folds they call 230M
more. The excess is spread thin: of 382 bytecodes an event, the loop runs 105, `_result` 38,
`_reply` 31, the judge of hook/result 24, nothing else above 16; a builtin's load, a `dict.get`
on a parsed line (whose keys json's scanner makes afresh, so each lookup compares strings) and a
Python call each cost about 40, 290 and 350 instructions. Kept: builtins as locals in the loop
(-1.8M), `arguments_are_an_object`'s type test in C (-1.4M); 1.305x to 1.298x in all (version 1
1.368x to 1.361x). Tried and left out: lines read as text from an `io.TextIOWrapper` over the
bytes, bounded per line by a plain class (an `io` subclass costs the reader a lookup of `closed`
per line), with bytes not UTF-8 kept as surrogates so that the line is still named: 20M less
than `readline(size)` and decode in a loop of its own, within 2M of it in check.

Where session 24 left LOG-8 on the version-1 log (instructions, 20,000 events, 19,444 marked
lines in commits of 2 to 7: 5,556 first, 8,333 middle, 5,556 last): with `CommitUnits.take`
returning at once (still called), the checker is 878.0M, 1.29x; `take`'s body is the other 45M,
where 1.3x (883.1M) leaves it 5M, about 260 a marked line. Reading a marker at all costs about
650 (its `dict.get`, about 350, and the test of the pair); without the call (15M, above) a
reader inlined whole in the loop, its state in locals, would have about 1,000 a line for
every line of a commit, first and last too, which do the most today. Kept: the
bound `take` a local of the loop, and a commit's last line whose reply's calls were all
recorded ended without calling `_reply_recorded`: 923.5M to 922.4M. Tried and worse: the
middle lines of a commit passed in the loop with locals, `take` handing back the next k it
allows (+5.4M: 5,555 lines spared a call, but handing the state back costs the other 14,445
lines as much); a line's marker read off its end with `str.endswith` over the two ways
json.dumps writes it (+18M: `endswith` costs about 970 instructions a call in Python 3.11,
as much as `take`'s whole fast path on such a line).

Where session 25 took LOG-8 on the version-1 log (instructions, 20,000 events, one run each;
the json.loads pass 680.3M): the commit a line opens is read by the checker's loop itself, its
size, place and first line in locals (`CommitUnits.take` only for what is not a well-marked
commit's next line, once the open commit is handed over: `CommitUnits.adopt`); a line of a
commit costs the marker's lookup, its unpacking and three identity tests, and a call of
`CommitUnits.note` (a reply, or a commit's first call record) or `CommitUnits.end` (a commit
that held one) only for those lines: 922.5M to 909.3M (1.356x to 1.337x). Then a call's record
after the first noted line added to the commit's set in the loop (`CommitUnits.recording`),
`_afresh` inlined in `note`, the seq's type tested once for LOG-8 and the quick path, and the
findings of `take` recorded where it is called (no test of an empty list on every line):
909.3M to 902.9M (1.327x; the model's events only 805.2M to 805.0M). With the markers unread
the checker is 863.7M (1.270x); of what LOG-8 still costs (about 39M), the marker's lookup
alone is 11M, and the calls for replies (`note`, the reply judge's wrapper `judge_reply`, `end`:
three Python calls for each of the 2,222 commits holding a reply) about 8M. Left: 1.3x (884.4M)
needs 18.5M more, about 900 instructions a line; the lookup and the tests a commit's line
needs are about 700 of what is left, so the rest must come from what every event pays (the
judges and the prefix folds) as well. Not tried for that reason: a reply's calls taken from the
prefix by the loop instead of `note`, the wrapper and `end` (about 4M at best, and the loop would
have to learn which replies the clean judge folded). The whole run after both (`--instructions
--repeat 1`): harness-written 402.0M against 352.9M (1.14x), the model's events only 805.0M
against 621.8M (1.29x), version 1 902.8M against 680.2M (1.33x). Its `commit markers` part
still times `CommitUnits.take` on every line, which the checker now calls only for unusual ones.

Where session 26 took the version-1 log (instructions, 20,000 events, one run each, less a run that
reads nothing; its json.loads pass 677.5M): 903.0M to 879.7M (1.333x to 1.298x). A tenth of its
excess was one event in 36, in this log and the model's-events-only one alike: the demo's rewritten
call (556 of the 20,000), whose sidecar sent it to the fact's reading and
`rewrite_traced_to_hooks`, about 40,000 instructions each (22M: with it folded for nothing, the
checker was 880.6M). The judge of tool/call now reads a sidecar naming the one hook whose last
PreToolUse answer, before the reply, supplied the input the call runs with, no other input or deny
given (`_sidecar_names_its_one_supplier`; any other sidecar as before): -15.6M. Then, each alone: a
call's record asks `supplied_rewrite` only of a hooked call without a sidecar (-2.2M); a step's
start and end and a turn's start and end forget in one call (`Prefix._reset`), not two or three
(-1.8M with two flags; its scope a string, for reading, 0.3M more); the judge of hook/result tests
the duration inline (-1.1M); `value_of` strips a text only where something stands before or after
its value (-0.9M); `arguments_are_an_object` tests the values in a loop, not through `map` in C
(-0.9M); `_lossless_float` returns at once a number neither negative nor infinite (-0.7M); the
approval folds do what `under_way` did inline (-0.4M). Measured, not kept: a reply's hooked ids
built by `dict(pre_hook_runs.keys())` in C, not a set comprehension (-0.3M, a trick to read). Where
the rest goes: LOG-8's calls for the lines of a commit holding a reply or a call (`note`,
`judge_reply`, `end`: 6,665 calls) 11.5M, by a run with the three skipped; HOOK-4's test of a
reply's hooked call (`arguments_are_an_object`) about 9,500 a call, 10.5M for 1,111, of which
json's C scanner reading the arguments is about 3,500. The whole run after all these
(`--instructions --repeat 1`, against the same command on the commit before them, one after the
other): harness-written 402.4M against 350.9M (1.15x) to 396.2M against 350.7M (1.13x), the model's
events only 805.6M against 625.0M (1.29x) to 782.5M against 622.0M (1.26x), version 1 903.0M
against 682.9M (1.32x) to 880.0M against 679.8M (1.29x); the json.loads pass itself moves by up to
3M (0.5%) from run to run.

Later in session 26 (instructions, `--instructions` views alone, one run after the other): HOOK-4's
test of a reply's hooked calls reads arguments opening with "{" with `value_of`'s scanner
directly (about 1,000 instructions a call spared of 7,100; the scanner is 3,400 of the rest) and
finds them over the hook runs, not a set comprehension; LOG-8's `end` is skipped for a commit
whose reply was folded clean without calls (`CommitUnits.awaits_end`; about 2,400 each on the
5,000-event log). Harness-written 396.0M against 350.1M (1.131x) to 395.4M against 350.9M
(1.127x), the model's events only 782.4M against 619.3M (1.263x) to 778.9M against 621.2M
(1.254x), version 1 879.9M against 677.1M (1.299x) to 876.0M against 679.4M (1.289x). Measured,
not kept: the reply judge without its LOG-8 wrapper costs more (+3.2M on 5,000 events), as `end`
then reads the reply's calls from its JSON. Not tried: a reply's `note`, wrapper and `end` left
out altogether (11.5M together), which needs the loop to hold a reply until its judge folds it
and every entry of `CommitUnits` to note a reply so held first.

Where session 29 took the version-1 log (instructions, 20,000 events; the json.loads pass moved by
5M from one run to the next, so both checkers are set against one run's, 676.3M): LOG-8 costs
it about 43M (5,000 events: 221.1M, against 210.2M for the same lines under a version-0 header,
their markers unread). Per event the checker runs some 430 bytecodes and 3.2 Python calls
(counted with `sys.settrace`): the loop 159 a line, `_result` 348 a call, `_reply` 280, the judge
of hook/result 236, `_hook_invoked` 151, `_call` 132, `Prefix._reset` 64 (three a step). A reply
that is the first noted line of a commit the loop reads, neither its first line nor its last
(the demo's replies with calls), is judged in the loop's LOG-8 reading and held there
(`held_calls`): its calls are tested against the commit's records at the commit's end, and
`CommitUnits` is handed it (`take_held_reply`) only where its own state is read, where `note`,
the reply judge's wrapper and `end` were three calls a reply: 880.9M to 876.2M (1.303x to
1.296x). Left: a reply opening its commit (the demo's replies without calls) held alike, about
2.9M more, but the commit's opening branch would repeat the held path's dozen lines; 1.27x
needs some 17M more, about 850 instructions an event, from judges whose every test reads a rule.
Later in session 29 (same counts, less a run that reads nothing; the json.loads pass 676.1M): a
reply opening its commit is held alike, the opening branch and the next line's sharing the
held path (`position`, the k of a line of the commit the loop reads, None for any other line,
one test more a line): 875.3M to 873.4M, run again 872.9M to 870.6M (1.295x to 1.292x; a run
moves by up to 3M), where 2.9M were hoped for.

Where session 30 took the version-1 log (instructions, 20,000 events, each change against its
parent in one sitting; the json.loads pass 677.3M to 678.4M): a line's seq, type and time read
by subscript, where seq and time were `dict.get` calls (about 95 instructions each; a line
without one, as a compact row, reads them in `_envelope` after a caught KeyError: harness-written
1.5M more): 873.5M to 869.3M (1.289x to 1.284x). The events counted as the lines read plus what
the header, a torn line, a compact row's run and the line an input error stopped at add or take
away, where each event line added one (each addition allocates an int, about 200 instructions):
870.5M to 866.0M (1.284x to 1.278x; other commits had added 1.2M). A turn's start right after
the last turn's end and a step's start right after its turn's start forget nothing again
(`Prefix.reset_at`, the event index where the last reset ran), and a call's record and a
hook's answer are built with `object.__new__` and their fields, where calling their class runs
a Python `__init__` (about 600 instructions each): 866.2M to 862.2M (1.277x to 1.273x; the
model's events only 776.3M to 772.5M, 1.252x to 1.247x; harness-written 397.2M to 396.8M,
1.133x). Measured, not kept: a line's commit marker read by subscript (+0.3M: the 556 lines
without one pay a caught KeyError); `_reset` itself telling what the event before forgot
(+0.9M: every reset pays the test, and a skip still pays the call). Left: 1.27x (860.4M)
needs about 2M more.

Where session 31 took the version-1 log (instructions, 20,000 events, each change against its
parent in one sitting; the json.loads pass 679.8M). Costs measured alone on parsed lines: a
`dict.get` about 345 instructions, a subscript finding its key 230, an `in` test 135, a Python
call about 425; a judge's lookup by a line's type about 570 (json makes the type's string anew,
so its hash is computed on every line). The clean-event judges read the members a clean event
has by subscript, catching KeyError and TypeError (a member missing, or read in no object,
sends the event down the full path as a `get` finding nothing did): 862.8M to 855.1M (1.269x to
1.258x). Then a member most events leave out (sourceEventSeqs, usage, error, exitCode) tested
with `in` before it is read; a reply's calls built with `object.__new__` and their fields, not
`CallFact`'s `__init__`; a result's reply entry and call record read by subscript; the user
message's `_all_answered` inlined; the loop's event line before kept by one store at its top
(`earlier = obj`), where it swapped two: 855.4M to 849.4M (1.250x). A step's start right after
its step's end forgets only its hooks' and approvals' answers (`Prefix._reset("hooks")`), the
step's own forgotten already: 849.4M to 848.9M. Measured, not kept: the judge looked up by
subscript in a dict subclass whose `__missing__` stores None (+2.9M: a subclass's subscript is
not specialized); the log read in 64 KiB blocks decoded whole, each value scanned at its index
in the block, its line's end found by `str.find`, no line's bytes or string made (the
reading alone 551.6M against 548.3M line by line). Not tried: `_lossless_float` (2,222 calls, a
Python call from C each, about 1,200 instructions) has no C callable to stand for it that keeps
-0.0 and 1e400 refused. The whole run (`--instructions --repeat 1`, 4e2272d then a54dbd8, one
after the other; other sessions' commits between them): harness-written 396.6M against 350.6M
(1.131x) to 392.9M against 349.6M (1.124x), the model's events only 772.3M against 620.7M
(1.244x) to 758.4M against 618.9M (1.225x), version 1 862.1M against 678.8M (1.270x) to 848.2M
against 676.8M (1.253x; 1.248x against the 679.8M of the sitting above). The json.loads pass
moves by 2 to 3M from run to run, so that 1.25x is met or missed by as much: a margin wants
some 5M more. Left, each small: `updatedInput` and `stderrSummary` tested before they are read
(about 0.5M together); `append_surface`'s 5,556 calls (about 2.4M of call overhead alone)
folded into the judges, which would repeat its lines in each.

Later in session 31 (instructions, 20,000 events, each change against its parent in one sitting).
Where the version-1 log's excess lies, each part by a run without it: the clean-event judges and
the prefix folds they call 224M (with every judge only moving the seq on, the checker is 622M,
below the json.loads pass), of which the dict lookups on parsed lines about 44M (17M of it
comparing a key's characters: json makes each key anew, so no lookup finds the very string it
asks with) and the frames of some 57,000 Python calls about 10M; LOG-8's reading 33M (the
checker with the markers unread 813M). Kept: a line's judge looked up by subscript in a dict
holding every type seen, None for those without one (turn/start, the quiet kinds, and each type
the full path learns); a hook answer's `stderrSummary` and `updatedInput` tested before they are
read; `message_plain` tests a message's source is a dict before calling `_is_map`: 848.1M to
845.3M. A turn/start's judge tried before the quiet kinds are looked up: 845.6M to 844.8M (the
harness-written log 392.4M to 392.8M: its chunks with a seq pay the comparison). The judge of
tool/result asks each container barring a success whether it holds anything before looking the
call up in it: 845.3M to 844.6M. The whole run (`--instructions --repeat 1`, 34014ed then
b991280, other sessions' commits between them): harness-written 393.2M against 350.4M (1.122x)
to 392.4M against 351.0M (1.118x), the model's events only 758.5M against 620.1M (1.223x) to
754.4M against 619.8M (1.217x), version 1 848.3M against 678.5M (1.250x) to 844.1M against
677.6M (1.246x). Not tried: `append_surface` folded into the judges, nor a hook answer's pending
key handed from its judge to `take_hook_answer` (about 0.5M, for a parameter the fact's fold
would not use); what is left is spread over bytecodes each reading a rule.

Where session 32 took the three logs (instructions, 20,000 events, `--instructions` views of
6f0c882 and of its child, one after the other): a log's lines read as text from 64 KiB chunks
through `io.TextIOWrapper` (`checker.LineReader`: the line bound kept on the lines that span
chunks; a line past it, or not UTF-8, read on as bytes from its start), where each line was read
as bytes (`readline(size)`) and decoded alone: two method calls a line, about 540 instructions
with their loads, where the text reader's next costs about 310 (its `closed` asked of the chunk
reader, a Python object, about 105 of them). Harness-written 392.3M against 350.2M (1.120x) to
388.5M against 350.7M (1.108x), the model's events only 755.1M against 619.8M (1.218x) to
749.1M against 621.2M (1.206x), version 1 844.7M against 677.7M (1.246x) to 838.8M against
679.5M (1.235x). With the collector off (its collections move with the objects a module adds at
import, in the run that reads nothing too, by up to 6M): version 1 852.8M to 845.2M, the model's
events 763.3M to 757.1M, harness-written 396.7M to 392.2M. Measured, not kept: chunks handed to
the text reader in whole lines, tested for UTF-8 with `bytes.isascii` (+6M against the bytes
reading: the slices and joins copy every byte once more, which callgrind counts about an
instruction a byte, `rep movsb`, and `isascii` is 4M); lines split from decoded blocks with
`str.split` (its loop reads every character: 28M for the 5.6 MB); `kind == "tool/call" or ...`
where LOG-8 asks `kind in {...}` (no change). Where the version-1 log's excess lies now: LOG-8
33.6M (the same lines under a version-0 header, markers unread: 811.2M against 844.8M, the
collector off), of which the marker's `get` 6.7M and the loop's 59 bytecodes a marked line the
rest; the judges and their folds as before. 1.20x (815M) needs 24M more: LOG-8 nearly free, or
a tenth of what the judges and folds cost, where every test left in the loop is under 1M.

Later in session 32 (instructions, 20,000 events, the collector off, less a run that reads nothing,
each change against its parent in one sitting): `Prefix` keeps one list of surface seqs until the
first replacement, the keys being the seqs until then (an append more, and the list's growth), and
tells an out-of-order surface event by one comparison with the last seq, which starts below every
int (a test of None was one more), together about 600 instructions a surface event: version 1 851.8M
to 848.3M, the model's events only 761.6M to 758.1M, harness-written 395.0M to 394.5M. Then
`json_text.same_json` (the RW-2 comparison of a rewrite's arguments with the input its hook supplied
as JSON values, which had cost the version-1 log 5.9M: 845.7M to 851.5M) reads a string first, an
object's members in a loop, not `all` over a generator, and numbers against a tuple of types, where
`int | float` made a union object at each test: 848.3M to 844.9M. The whole view after both
(`--instructions --repeat 1`, the collector on, one run before and one after, other sessions'
commits the same): version 1 844.1M against 677.7M (1.246x) to 837.3M against 677.3M (1.236x), the
model's events only 754.4M against 619.7M (1.217x) to 747.7M against 619.4M (1.207x),
harness-written 390.8M against 350.6M (1.115x) to 389.7M against 349.9M (1.114x). Measured, not
kept: a line's marker read by subscript, a KeyError caught (-0.35M; session 30 found +0.3M: within a
run's spread); the line's number from `enumerate` (+0.7M); a line's seq, type and time through
`operator.itemgetter` (about 350 instructions a line more than the three subscripts, counted alone).
Where LOG-8's 33M lies: with each marker read (the `get` and its guard) and nothing judged, the
checker is 829.9M against 851.5M and 818.5M for the same lines under a version-0 header, so the
marker's state machine is about 22M (54 bytecodes a line in the loop on average, 46 for a commit's
middle line: the pair unpacked, two identity tests and the seq's type, the k stored, then whether a
line is noted or last) and the read, with the replies' LOG-8 wrapper it then runs, about 11M. The
state machine is at its floor as a per-line Python test: what is left of 1.20x (813M in that view,
some 24M) needs LOG-8 read other than line by line in Python, or a tenth of the judges' and folds'
cost.

Where session 33 took the harness-written log by time (CPU time, 20,000 events, medians of 15
rounds in one process, the checker against the faster bare pass in the same round; processes of the
parent commit and of the change taking turns, four each; the machine shared, load 5 to 12 on 2
cores, so a ratio moves by 0.03 from one process to the next). Parts, by the reading alone and by
runs of the checker cut short at each place: its reading and scan 0.72x the bare pass; the loop up
to the judge's lookup 0.11x more; the quiet chunks and plugin events past that 0.01x; the 1,022
compact rows 0.065x (about 1.7 us each: a KeyError, `_envelope`, the quick path's tests and six
`get`s); the judges 0.32x (this benchmark's parts; each call timed alone, medians: reply 4.2 us, of
which `_cites_earlier` on its 17 to 43 sources 1.3 to 2.4 us; result 2.1, hook/result 2.0,
hook/invoked 1.5, step/end and call 1.2). Kept: a compact row after the first counted in the
envelope's KeyError branch by one `compact_rows.quiet_run` of subscripts (389.7M to 385.7M
instructions); a source list of seqs one after another judged by its comparison with the list
counting up from its first and its sum's type (385.7M to 380.3M). By time, 1.31 to 1.36x (median
1.325x) to 1.25 to 1.30x (1.27x); the model's events only (1.49 to 1.54x) and version 1 (1.55 to
1.61x) unchanged, their instructions too (version 1 837.6M). Why time and instructions part:
callgrind's simulation (`--cache-sim=yes --branch-sim=yes`, five checks of the log) gives the
checker 3.2 times the bare pass's L1 data misses and 1.4 times its indirect mispredicts, but a
cycle estimate from them (10 a miss, 15 a mispredict) is 1.18x where time is 1.36x: it does not
explain the gap either; `perf` has no hardware counters on this machine. Measured, not kept: the
collector off in both passes (no change). Left: the judges are 0.3x on this log and 0.6x on the
other two, spread over a dozen functions of 1 to 3 us, each test in them reading a rule.

Where session 34 measured the three logs by time (CPU time, 100,000 events unless said, medians of 3
to 7 rounds taking turns in one process; the load 6 to 13 on 2 cores, so a ratio moves by 0.05 from
one process to the next; `--repeat 3` on 1M events: 1.31x, 1.59x, 1.71x). The judges in place, by a
run whose every clean-event judge only moves the seq on: the model's events only 1.53x to 0.82x the
bare pass, version 1 1.69x to 0.93x, so the judges and their folds are 0.71x and 0.76x by time where
their instructions are about 0.36x (session 31); 1.3x on the first needs them at 0.48x. perf
(sampling cpu-clock, four checks of the model's-events log against four bare passes; symbols only,
Python 3.11 writes no perf map) puts 57% of the checker's excess samples in
`_PyEval_EvalFrameDefault`, 12% in key lookups on parsed dicts (each ending in a `memcmp`: json
makes every key anew) and 5% in making and freeing dicts' key tables. Opcodes run an event
(`sys.settrace`): the model's events 337 and 2.95 Python calls (the loop 88; `_result` 303 a result,
`_reply` 261, hook/result's judge 231 and its fold 91), version 1 391 (the loop 142, LOG-8's 54),
harness-written 135 (a chunk's line 149, a plugin event's 134, a compact row's 151). By time, LOG-8
is 0.10x (version 1 1.67x against 1.57x for its lines under a version-0 header), twice its share of
instructions; EXE-2's parse about 0.016x (`arguments_are_an_object` about 465 ns a call, json's
scanner 255 of it). Judged and not done: a per-commit LOG-8 (each line's marker must still be read
and compared, and a break found at the commit's end would come after the lines between were judged
without the hole it opens, `_in_hole`); one fold per commit (it spares at most the judge's call,
about 60 ns of an event's 2.4 us bare pass); EXE-2's parse skipped where the text is plainly an
object (only the parse tells; the 556 successes in 20,000 events whose hooked call HOOK-4 parsed
already could be cached, about 0.004x); cheaper facts (no event of these logs takes the full path
but the first of each of four plugin types). Measured, not kept: the lines of a block scanned as one
JSON array, so that json's key memo (cleared after each scanner call) serves them all: 0.301s
against 0.305s for 200,000 lines one by one. The interpreter moves the ratios (hence the time view's
header): this machine's /usr/bin/python3.11 (Debian's 3.11.2, libpython linked in) against the
venv's (pyenv's 3.11.7, a shared libpython), same code and logs, best of 5: the bare pass 0.110s
against 0.147s on the harness-written log, the checker 0.174s against 0.202s, so 1.58x, 1.93x, 2.15x
against 1.37x, 1.50x, 1.70x: json's C scanner gains more from that build than the judges' bytecode.
The one lever found, tried outside the repository: `clean_events.py` and `prefix.py` compiled by
mypyc (the same source but for `_BELOW_EVERY_SEQ` made an int and `object.__new__` replaced by calls
of the classes, which native classes require), the loop still interpreted: 1.18x, 1.11x to 1.18x,
1.20x to 1.30x against 1.33x to 1.38x, 1.57x to 1.60x, 1.65x to 1.70x in the same sitting
(`--repeat 3` on 1M events: 1.15x, 1.14x, 1.25x, against the 1.31x, 1.59x, 1.71x above);
instructions (20,000 events, one check, start-up included) 783.5M to 712.6M, 1,122.5M to 987.7M,
1,233.3M to 1,099.5M. It needs a build step (a C compiler, or wheels per platform), and native
classes refuse what the code and tests do today: of some 350 tests of check_fuzz, commit_units and
the prefix's, 65 failed (`object.__new__` on a native class, `PlainRecord.copy` among them; an
interpreted subclass of a compiled class; a float among a reply's sources: `_cites_earlier`'s `sum`,
typed an int, raises TypeError where the interpreted code tests its type, so every runtime test of a
value's type against its annotation would want reading again).

Where session 35 took the time view (CPU time; the harness-written log, 300,000 and 1,000,000
events; Python 3.11.7, the venv's): why `--repeat 3` had read 1.41x where one process timing the
bare pass and the checker in turn, five rounds, read 1.33x. Two causes, each as large as what is
left of the target. The machine's load: at a load average of 2 to 5 both ways read 1.28x to
1.30x on either size; at 9 to 13, 1.33x to 1.40x, the checker's time growing (0.59s to 0.61s a
300,000-event check at the lower load, 0.60s to 0.65s at the higher) where the bare pass's barely
moves (0.455s to 0.485s): it has more code and data in play, and loses more of its caches to the
processes sharing its core. The best of each run, where the best check and the best bare pass
come from different rounds: in one process, seven rounds, 1.407x against a median of the rounds'
own ratios of 1.347x, 1.376x against 1.340x; the spread of the rounds' ratios 0.06 to 0.13 at
that load. No effect beyond that spread: the order of the passes in a round, a warm-up run
before the first round, 300,000 events or 1,000,000, and writing the other shapes' six logs in
the same process first, as `main` does (1.36x and 1.28x with them, 1.32x and 1.28x without,
alternating processes). So a round now times every run once, a ratio is taken within a round,
and the median of five is printed with the lowest and the highest and the load average; the
figure is the median, and a figure at a load above the cores is a ceiling, not the row.
This view then (1,000,000 events, load average 15 to 16, h2 to h8 running tests beside it):
1.40x (1.31x to 1.45x) and 1.36x (1.33x to 1.45x), 1.10x and 1.12x the bytes pass; at the
session's start (load 2 to 5, the same log, one process taking turns) 1.28x to 1.30x.
Instructions (20,000 events, less the run that reads nothing): 404.9M against 349.6M (1.158x).
What the harness-written log has that the others lack, in opcodes an event (`sys.settrace`, 135
an event in all, the loop's share and the judges'): its 3,212 stream chunk lines 149 each (24 an
event), 1,022 compact rows 151 each (7.7), 1,606 plugin events (request/header and /context,
agent/inbox/spliced, session/title) 134 each (10.7): 53% of its lines, 31% of its opcodes, each
little more than the loop's own reading of a line; the judged events of the model the rest
(tool/result 537 each, a reply 512, hook/result 426, tool/call 342, hook/invoked 308). Measured,
not kept: a line's seq and time read by `get` (a compact row's KeyError, about 400ns alone,
spared, its type given no judge): the same process timing both checkers in turn, nine rounds,
0.997x (0.949x to 1.017x), and 1.5M instructions more (the version-1 log 4.3M).

Where session 37 looked for the harness-written log's time (1,000,000 events at the session's
start, load 0.6: 1.33x, rounds 1.26x to 1.41x; 200,000 events here, CPU time, one process, 7 to
11 rounds taking turns, a ratio per round, the load 7 to 10: the checker 1.25x to 1.34x from one
process to the next). Instructions (20,000 events, less a run that reads nothing) put it at 1.09x
to 1.10x (384.6M to 385.2M against 349.3M to 351.9M; its own reading 256.4M, 0.735x), time at
1.3x: the checker's Python runs slower per instruction than json's C scanner. perf (cpu-clock
samples, eight checks against eight bare passes; symbols only) puts 61% of the checker's excess
in `_PyEval_EvalFrameDefault`, 10% in dict lookups on parsed lines (`unicodekeys_lookup_unicode`,
its `memcmp`, `_Py_dict_lookup`). By time, the judges of the model's events (a reply, a call's
record and result, a hook's pair, an approval's, a user message) are 0.43x of the bare pass: with
each only moving the seq on (turns' and steps' judges kept, so the quiet lines read as before),
the checker is 0.89x against 1.32x (its reading alone 0.70x), where their opcodes are some 40% of
the checker's 140 an event; perf of that difference: the eval loop 48%, allocating and freeing
9%, string hashing 3%. Each judge's helper answering at once, the rest as is (per-round ratio to
the checker, 11 rounds): `_cites_earlier` 0.962 (a reply's 15 to 43 sources: 4% of the check,
about 0.05x of the bare pass, the largest share of any one function), `arguments_are_an_object`
0.989, `message_plain` 0.992. Of `_cites_earlier`'s cost on 43 parsed seqs (timeit, the same
load: 2.6 to 3.0 us), the list counting up is 1.5 to 2.1 us (an int allocated for each seq past
256), comparing it 0.75 to 1.0 us, `sum` 0.35. Measured, not kept: the run told without making
those ints, each item below the next (`all(map(_operator.lt, ...))`: 2.2 to 2.4 us alone,
slower in place, instructions unchanged, 384.9M to 384.6M); sorted, distinct and summed
(`sorted(s) == s`, 0.55 us, the compare of identical items free; `len(set(s))` 1.0 to 1.7 us:
1.307x against 1.305x in place, within a round's spread); `array('q', s)` 1.4 to 1.7 us alone.
The O(n) work of that test is at CPython 3.11's builtins' floor within a fifth; what 1.25x needs
(0.05x to 0.08x) is as large as that whole function, or the judges' allocations and lookups,
which read the rules, made fewer together.

Where session 38 took the harness-written log (time: CPU time, one process timing the checker with
and without a change in turn, a ratio per round, the median of 101 rounds of 20,000 events, the load
9 to 11 on 2 cores, where a round's ratio moves by 0.05 and a median of 15 rounds of 200,000 events
by 0.02; instructions: 20,000 events, less a run that reads nothing). Kept: a compact row after the
first known by its type's judge, a marker put in the judges' dict when the first row loads their
reader, so that the loop reads a line's type and judge before its seq and counts a quiet row's run
without the KeyError its missing seq raised (about 460 ns alone, against some 100 for the lookups it
replaces; an identity test more a line): time 0.985x (0.901x to 1.057x) against its parent (11 and
15 rounds of 200,000 events: 0.979x, 0.998x), instructions 386.9M to 385.7M (the model's events only
765.3M to 766.5M, version 1 854.9M to 856.3M: their lines pay the test and gain nothing). Measured,
not kept: a stream chunk's line matched by a compiled regular expression (the envelope's members in
either spacing json.dumps or JSON.stringify writes, the chunk any JSON value three levels deep of
strings, integers and literals, anything else left to the scanner), its seq, turn and step compared
unparsed: alone, a chunk's line 1,154 ns matched with its groups against 1,574 ns scanned, another
line's failed match 94 ns (the envelope's literal characters alone 423 ns, some 4.7 ns a character,
where json's scanner takes 8.8 a character of the whole line, its objects made); in place 386.9M to
380.8M instructions but 1.030x the time (9 rounds of 200,000 events, 1.010x to 1.118x), 1.001x with
the other lines turned away by one character first (0.942x to 1.040x), and it needs `re`, which
check imports for no dsh log (tests/test_check_startup.py). Lines split from decoded 64 KiB blocks
(`str.split`), by time: 19.7 ms against `LineReader`'s 14.5 ms for the 110,951 lines of 200,000
events, reading alone. A quiet compact row's gaps told free of bools (53225c87: `true` sums as 1)
by a loop over them in `quiet_run`, where `bool not in map(type, gaps)` in a function of its own
had cost the log 3.7M instructions: 389.5M to 388.4M, `quiet_run` 880 ns to 748 ns a row (its
10,219 rows of 200,000 events, 41 rounds in turn); a set of the gaps' types was 389.7M.
Measured, not kept: a quiet kind looked up by subscript, a KeyError caught for a type not yet
learned, where `quiet_of.get` is a method call (388.4M to 387.8M: under what time can tell here;
and each event of a log past `_QUIET_CACHE_LIMIT` types would raise). Where the time goes, by
this benchmark's parts (100,000 events, one round, load 11 to 13): the harness-written log 1.26x,
its reading 0.66x, the clean-event judges 0.34x on the 26,277 of 55,474 lines past the quiet
path, the rest (the loop, quiet lines, compact rows) 0.26x.

Where session 39 took the harness-written log (instructions: 20,000 events, a copy of checker.py
run less a run importing it; time: CPU time, one process timing the bare pass and two checkers in
turn, the order rotated each round, the median of 301 per-round ratios on 20,000 events, then the
two the other way round: at load 9 to 12 on 2 cores such a median moves by some 0.4%). Kept: the
character after a line's value read by index (`text[end]`, an IndexError caught for a last line
without its newline), where a slice up to `depth_free` made a slice object and read its bounds
(115 ns against 49 ns a line alone, under load): 522.0M to 519.6M, the time 0.990x and 0.994x;
a stream chunk's type known by its judge's lookup (`_in_step_judge`, a marker as the compact
rows' judge is), where its quiet kind's `get` and the turn/start comparison followed: 519.6M to
518.3M, the time 0.997x and 1.004x (under what time tells; a judged line pays one identity test
more). Both (ce3cb51d against its parent): the model's events only 767.4M to 764.3M, version 1
856.7M to 853.8M; the time on 200,000 harness-written events 0.989x and 1.000x (41 rounds each
way, load 8 to 9); `--harness-only` after them, load 9.7: 1.37x (1.31x to 1.38x), a ceiling at
that load (see session 35). Measured, not kept: the lines
counted as a float (`lines_read += 1.0` takes its result from the floats' free list where an int
past 256 is allocated: 7 ns against 37 ns a line alone), `int()` where a line is named: 518.3M to
518.0M, but 1.004x and 1.008x the time. Alone: `earlier = obj` 1 ns a line, `if opening:` 2 ns,
`enumerate` 13 ns more than `line += 1`; all three of `line += 1`, `earlier = obj` and the slice
left out (wrongly) made the check 0.963x. Where the excess lies (callgrind by function, the run
less one reading nothing, lazily compiled modules included: 407.4M against 349.2M): the eval
loop's own instructions 38M more than json.loads' Python (69M against 31M), dict lookups 12M
more (4.8M of it comparing a fresh key's characters), string hashing 2.8M. 1.3x with a margin on
a quiet machine needs some 4% of the check: the loop's per-line tests left are about 1% together,
each reading a rule or a line's place; the judges (a third of the time) hold the rest.

Refusing a key given twice (LOG-3), measured in session 23 (instructions, 5,000 events, check with
the refusal in its loop): a line's top-level and `data` keys alone, counted against its colons,
settle a third to a half of the lines (`len(obj) + len(data)` equal to the colons: no member was
dropped); the rest need `keys_may_repeat`'s walk. The model's events only: 1.28x the json.loads
pass without it, 1.79x with it; version 1: 1.34x, 1.85x. Tried and worse than that walk, each
timed against the scan of the same lines: a walk pushing only containers (through
`itertools.compress`, or a loop), one level at a time through `gc.get_referents`, json's C
encoder with a control character for key separator (its count is the keys), `marshal.dumps`.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from json.scanner import make_scanner
from pathlib import Path
from typing import Any

from callgrind import instructions_running

from loopspec.model.facts import Fact, fact_from_wire
from loopspec.model.invariants import LogMonitor
from loopspec.model.prefix import QUIET_NEVER
from loopspec.model.repeated_keys import keys_may_repeat
from loopspec.properties.cli.demo_scenario import DEMO_COMMANDS, DEMO_CONFIG
from loopspec.properties.logcheck import DEFAULT_MAX_LINE_BYTES, MARKED_VERSION
from loopspec.properties.logcheck.checker import LineReader, check_paths
from loopspec.properties.logcheck.clean_events import clean_judges
from loopspec.properties.logcheck.commit_units import CommitUnits
from loopspec.properties.logcheck.synth import (
    HEADER,
    MARKED_HEADER,
    Row,
    as_harness_writes,
    marked_model_rows,
    model_rows,
    repeat_turns,
)

TWO_TURNS = DEMO_COMMANDS[:14]  # the demo's first two turns, both complete

# What a user might write to validate dsh events with JSON Schema: the envelope, and the fields
# of each core event type. It checks shapes only; no schema can state the relational rules.
_INT = {"type": "integer", "minimum": 0}
_MESSAGE = {
    "type": "object",
    "required": ["role", "content"],
    "properties": {"role": {"type": "string"}, "content": {"type": "array"}},
}


def _event(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    return {
        "if": {"properties": {"type": {"const": kind}}},
        "then": {"properties": {"data": data}},
    }


def _data(required: list[str], **properties: Any) -> dict[str, Any]:
    return {"type": "object", "required": required, "properties": properties}


EVENT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["type"],
    "properties": {
        "type": {"type": "string", "minLength": 1},
        "seq": _INT,
        "seq0": _INT,
        "time": {"type": "number"},
        "data": {},
        "surfaceOp": {
            "oneOf": [
                {"const": "append"},
                {
                    "type": "object",
                    "required": ["op", "start", "end"],
                    "properties": {"op": {"const": "replace"}, "start": _INT, "end": _INT},
                },
            ]
        },
        "sourceEventSeqs": {"type": "array", "items": _INT, "uniqueItems": True},
    },
    "oneOf": [{"required": ["seq"]}, {"required": ["seq0"]}],
    "allOf": [
        _event("turn/start", _data(["turn"], turn=_INT)),
        _event(
            "turn/end",
            _data(["turn", "reason"], turn=_INT, reason=_data(["kind"], kind={"type": "string"})),
        ),
        _event("step/start", _data(["turn", "step"], turn=_INT, step=_INT)),
        _event("step/end", _data(["turn", "step"], turn=_INT, step=_INT)),
        _event("assistant/chunk", _data(["turn", "step"], turn=_INT, step=_INT)),
        _event("user/message", _data(["content"], content={"type": "array"})),
        _event("assistant/message", _data(["turn", "step", "message"], message=_MESSAGE)),
        _event(
            "tool/call",
            _data(
                ["turn", "step", "callId", "name", "arguments"],
                callId={"type": "string"},
                name={"type": "string"},
                arguments={"type": "string"},
            ),
        ),
        _event("tool/result", _data(["turn", "step", "message"], message=_MESSAGE)),
        _event(
            "hook/invoked",
            _data(["turn", "point", "handlerId"], point={"type": "string"}),
        ),
        _event(
            "hook/result",
            _data(["turn", "point", "handlerId", "decision"], decision={"type": "string"}),
        ),
        _event("approval/asked", _data(["id"], id={"type": "string"})),
        _event("approval/decided", _data(["id", "outcome"], outcome={"type": "string"})),
    ],
}


# ---------------------------------------------------------------------------------------------
# Logs.


def write_log(path: Path, rows: Iterable[Row], header: Row = HEADER) -> None:
    """A header line, then one row per line."""
    with path.open("w", encoding="utf-8") as out:
        out.write(json.dumps(header) + "\n")
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")


def harness_template() -> list[Row]:
    """Two complete turns as a harness writes them."""
    return as_harness_writes(model_rows(DEMO_CONFIG, TWO_TURNS))


def plain_template() -> list[Row]:
    """Two complete turns as the model writes them: one event per line."""
    return model_rows(DEMO_CONFIG, TWO_TURNS)


def marked_template() -> list[Row]:
    """Two complete turns as `loopspec run` writes them: the plain template, commits marked."""
    return marked_model_rows(DEMO_CONFIG, TWO_TURNS)


# Each log shape: its label, its two turns, its header.
SHAPES: tuple[tuple[str, Callable[[], list[Row]], Row], ...] = (
    ("harness-written", harness_template, HEADER),
    ("model events only", plain_template, HEADER),
    ("version 1 (marked)", marked_template, MARKED_HEADER),
)


# ---------------------------------------------------------------------------------------------
# Timing.


def race(rounds: int, runs: Mapping[str, Callable[[], object]]) -> dict[str, list[float]]:
    """Each run's CPU seconds in this process, in each of `rounds` rounds of all runs in turn.

    CPU time rather than wall time, and runs taking turns, keep the ratios steady on a shared
    machine: other processes' load neither counts nor lands on one contender only. Even so the
    load moves a ratio (see the notes: the checker, with more code and data in play than a bare
    pass, loses more to the processes sharing its core), so a ratio is taken within a round.
    """
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            start = time.process_time()
            run()
            times[name].append(time.process_time() - start)
    return times


def medians(times: Mapping[str, list[float]]) -> dict[str, float]:
    """Each run's median time of its rounds."""
    return {name: statistics.median(each) for name, each in times.items()}


def round_ratios(over: list[float], under: list[float]) -> tuple[float, float, float]:
    """The median of the per-round ratios `over / under`, and their lowest and highest: a ratio
    of two times from one round, both under the same load, not of two bests from any rounds."""
    ratios = [a / b for a, b in zip(over, under, strict=True)]
    return statistics.median(ratios), min(ratios), max(ratios)


def load_average() -> str:
    """The machine's one-minute load average, where the platform tells it."""
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "unknown"


def bare_binary(path: Path) -> None:
    """Only `json.loads` on each line, read as bytes."""
    loads = json.loads
    with path.open("rb") as lines:
        for line in lines:
            loads(line)


def bare_text(path: Path) -> None:
    """Only `json.loads` on each line, read as text (the faster of the two bare passes)."""
    loads = json.loads
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            loads(line)


def fast_parser(name: str) -> Callable[[bytes], object] | None:
    """`orjson.loads` or `msgspec.json.decode`, if that package is installed."""
    try:
        if name == "orjson":
            import orjson  # noqa: PLC0415 -- optional, for this benchmark only

            loads: Callable[[bytes], object] = orjson.loads
            return loads
        import msgspec  # noqa: PLC0415 -- optional, for this benchmark only

        decode: Callable[[bytes], object] = msgspec.json.decode
        return decode
    except ImportError:
        return None


def bare_fast(loads: Callable[[bytes], object], path: Path) -> None:
    """Only a fast parser's `loads` on each line, read as bytes."""
    with path.open("rb") as lines:
        for line in lines:
            loads(line)


def own_reading(path: Path) -> None:
    """The checker's reading without its judging: text lines from 64 KiB chunks of strict UTF-8
    (`checker.LineReader`, bounded as it reads them), and the json module's scanner called
    directly, as the checker calls it."""
    # typeshed types the scanner's context as another scanner; it is the decoder, as in `json`.
    scan = make_scanner(json.JSONDecoder())  # type: ignore[arg-type]
    with path.open("rb") as stream:
        for text in LineReader(stream, DEFAULT_MAX_LINE_BYTES + 1).lines:
            scan(text, 0)


def checker(path: Path) -> None:
    """The whole check, as `loopspec check` runs it (without printing)."""
    for report in check_paths([str(path)]):
        if report.errors or report.violations:
            raise SystemExit(f"the benchmark log does not check clean: {report}")


def schema_validation(path: Path) -> None:
    """Parse each line, validate it against `EVENT_SCHEMA` with a compiled validator."""
    from jsonschema import Draft202012Validator  # noqa: PLC0415 -- only this benchmark needs it

    validator = Draft202012Validator(EVENT_SCHEMA)
    loads = json.loads
    with path.open("rb") as lines:
        next(lines)
        for line in lines:
            validator.validate(loads(line))


def judged_objects(path: Path) -> tuple[list[dict[str, Any]], int]:
    """The parsed events of `path` past the checker's quiet path (those whose type
    `LogMonitor.quiet_kind` does not let it judge without more), and how many lines it has."""
    monitor = LogMonitor()
    judged = []
    count = 0
    with path.open("rb") as lines:
        for line in lines:
            count += 1
            obj = json.loads(line)
            if "seq" in obj and monitor.quiet_kind(obj["type"]) == QUIET_NEVER:
                judged.append(obj)
    return judged, count


def build_facts(objects: list[dict[str, Any]]) -> None:
    """`fact_from_wire` of each object, each dropped at once as the checker drops it (keeping
    them all would time the collector too)."""
    for obj in objects:
        fact_from_wire(obj)


def feed_facts(facts: list[Fact]) -> None:
    """Each fact fed to a fresh monitor, the seq expected set to its own (as the quiet events
    between them, judged without a fact, leave it)."""
    monitor = LogMonitor()
    prefix, feed = monitor.prefix, monitor.feed
    for fact in facts:
        prefix.expected_seq = fact.seq
        if feed(fact):
            raise SystemExit(f"the benchmark log breaks a rule at seq {fact.seq}")


def judge_events(objects: list[dict[str, Any]]) -> None:
    """Each object through the clean-event judge of its type (`clean_events`), as the checker
    sends it, and down the full path (its fact fed to the invariants) when the judge sends it
    on; the seq expected set to its own, as in `feed_facts`."""
    monitor = LogMonitor()
    prefix, feed = monitor.prefix, monitor.feed
    judges = clean_judges()
    for obj in objects:
        seq = obj["seq"]
        prefix.expected_seq = seq
        judge = judges.get(obj["type"])
        if (judge is None or not judge(prefix, obj, seq)) and feed(fact_from_wire(obj)):
            raise SystemExit(f"the benchmark log breaks a rule at seq {seq}")


def event_objects(path: Path) -> list[dict[str, Any]]:
    """The parsed lines of `path` after its header."""
    with path.open("rb") as lines:
        next(lines)
        return [json.loads(line) for line in lines]


def read_markers(objects: list[dict[str, Any]]) -> None:
    """Each object's commit marker read by `CommitUnits.take` (LOG-8): the commit reader's own
    path, which the checker takes only for what is not a well-marked commit's next line (its
    loop reads those itself, for less), so an upper bound of what the markers cost it."""
    take = CommitUnits(LogMonitor().prefix).take
    for line, obj in enumerate(objects, 2):
        if take(obj, line, obj.get("seq"), obj.get("type")):
            raise SystemExit(f"the benchmark log breaks LOG-8 at line {line}")


def repeats_read(path: Path) -> None:
    """The bare text pass, each line also asked whether a key repeats (`keys_may_repeat`, the
    cheapest reading found, which every other reader of a user's JSON pays): what refusing a
    repeat (LOG-3) would add to check, which does not refuse one."""
    loads = json.loads
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if keys_may_repeat(line, loads(line)):
                raise SystemExit(f"the benchmark log gives a key twice: {line}")


def where_time_goes(label: str, path: Path, rounds: int, *, marked: bool) -> None:
    """Print the parts of the checker's time on `path` (a `label` log), each against the bare
    pass; `marked`: a version-1 log, whose commit markers the checker reads too."""
    times = race(
        rounds,
        {
            "bare": partial(bare_text, path),
            "checker": partial(checker, path),
            "reading": partial(own_reading, path),
        },
    )
    objects, lines = judged_objects(path)
    facts = [fact_from_wire(obj) for obj in objects]
    parts: dict[str, Callable[[], object]] = {
        "judges": partial(judge_events, objects),
        "facts": partial(build_facts, objects),
        "invariants": partial(feed_facts, facts),
    }
    if marked:
        parts["markers"] = partial(read_markers, event_objects(path))
    # Held out of the collector's sight while timed: the checker never holds them all, and
    # collections walking them would be timed with the parts.
    gc.freeze()
    try:
        times |= race(rounds, parts)
    finally:
        gc.unfreeze()
    took = medians(times)
    bare = took["bare"]
    took.setdefault("markers", 0.0)
    rest = took["checker"] - took["reading"] - took["judges"] - took["markers"]
    print(
        f"\nwhere the checker's time goes (small {label} log, medians of {rounds} rounds;"
        f" x the bare json.loads pass, {bare:.3f}s)"
    )
    print(f"  whole check                      {took['checker'] / bare:5.2f}x")
    print(f"  its own reading (decode + parse) {took['reading'] / bare:5.2f}x")
    print(
        f"  clean-event judges               {took['judges'] / bare:5.2f}x"
        f"  (the {len(objects):,} of {lines:,} lines past the quiet path; those a judge"
        " sends on, as facts fed to the invariants)"
    )
    if marked:
        print(
            f"  commit markers (LOG-8)           {took['markers'] / bare:5.2f}x"
            f"  (`CommitUnits.take` on each of the {lines - 1:,} event lines; the checker's"
            " loop reads a well-marked commit's lines for less, so the rest is more than shown)"
        )
    # The judges cost more between parses than in a tight loop of their own (caches), so the
    # rest holds that too, besides the loop and the quiet events.
    print(f"  the rest (loop, quiet events, cache effects) {rest / bare:5.2f}x")
    print("  the same lines without the judges (`check_stream(quick=False)`'s full path):")
    print(f"    building facts (fact_from_wire)  {took['facts'] / bare:5.2f}x")
    print(f"    invariants (LogMonitor.feed)     {took['invariants'] / bare:5.2f}x")


# ---------------------------------------------------------------------------------------------
# Memory, in a fresh interpreter per measurement.


def measure_memory(path: str) -> None:
    """Check `path` and print peak traced allocations and peak RSS (in bytes), as JSON."""
    tracemalloc.start()
    for report in check_paths([path]):
        events = report.events
    traced = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    rss = _peak_rss()
    print(json.dumps({"events": events, "traced": traced, "rss": rss}))


def _peak_rss() -> int:
    """This process's peak resident memory, in bytes.

    From its own address space (VmHWM) where Linux shows it: `ru_maxrss` keeps, across exec, the
    peak of the process that spawned this one (subprocess forks with vfork), so it reported this
    benchmark's own peak, not the checker's.
    """
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux
    (line,) = (line for line in status.splitlines() if line.startswith("VmHWM:"))
    return int(line.split()[1]) * 1024  # in kB


def memory_of(path: Path) -> dict[str, int]:
    """`measure_memory` in a subprocess."""
    done = subprocess.run(
        [sys.executable, __file__, "--measure-memory", str(path)],
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, int] = json.loads(done.stdout)
    return result


# ---------------------------------------------------------------------------------------------


def _mb(size: float) -> str:
    return f"{size / 1e6:.1f} MB"


def _verdict(met: bool) -> str:
    return "met" if met else "MISSED"


def interpreter() -> str:
    """The interpreter timed: the same checker's ratios move with its build (see the notes:
    session 34 found 1.37x on one build of Python 3.11 and 1.58x on another, the same log)."""
    return f"Python {platform.python_version()}, {sys.executable}"


def time_ratios(
    logs: Mapping[str, Path], small: Path, rounds: int
) -> tuple[dict[str, tuple[float, float, float]], dict[str, float], float]:
    """Print the timings; per log shape (`logs`, by label, the harness-written one first), the
    checker's ratio to the faster bare pass of each round (median, lowest, highest); on the
    harness-written log, its median ratio to each fast parser's pass (installed ones only); and
    its speedup over jsonschema on the `small` one (jsonschema is too slow for the large)."""
    print(
        f"\ntime (CPU seconds, medians of {rounds} rounds taking turns, a ratio per round;"
        f" {interpreter()}; load average {load_average()})"
    )
    ratios = {}
    versus_fast: dict[str, float] = {}
    parsers = {name: fast_parser(name) for name in ("orjson", "msgspec")}
    harness = next(iter(logs.values()))
    for label, path in logs.items():
        runs: dict[str, Callable[[], object]] = {
            "bytes": partial(bare_binary, path),
            "text": partial(bare_text, path),
            "checker": partial(checker, path),
        }
        for name, loads in parsers.items():
            if loads is not None:
                runs[name] = partial(bare_fast, loads, path)
        times = race(rounds, runs)
        bare = [min(pair) for pair in zip(times["bytes"], times["text"], strict=True)]
        ratio, low, high = ratios[label] = round_ratios(times["checker"], bare)
        took = medians(times)
        print(
            f"  {label:18s} json.loads bytes {took['bytes']:.3f}s, text {took['text']:.3f}s;"
            f" checker {took['checker']:.3f}s = {ratio:.2f}x the faster bare pass"
            f" ({low:.2f}x to {high:.2f}x;"
            f" {round_ratios(times['checker'], times['bytes'])[0]:.2f}x the bytes pass)"
        )
        for name, loads in parsers.items():
            if loads is None:
                print(f"  {'':18s} {name} not installed (pip install -e '.[bench]')")
                continue
            to_fast, *_ = round_ratios(times["checker"], times[name])
            print(
                f"  {'':18s} {name} pass {took[name]:.3f}s ="
                f" {round_ratios(times[name], bare)[0]:.2f}x the bare pass;"
                f" checker {to_fast:.2f}x the {name} pass"
            )
            if path == harness:
                versus_fast[name] = to_fast
    versus = medians(
        race(1, {"schema": partial(schema_validation, small), "checker": partial(checker, small)})
    )
    speedup = versus["schema"] / versus["checker"]
    print(
        f"  jsonschema on the small harness-written log: {versus['schema']:.3f}s;"
        f" checker {versus['checker']:.3f}s, {speedup:.1f}x faster; load average"
        f" {load_average()}"
    )
    return ratios, versus_fast, speedup


def memory_growth(small: Path, large: Path) -> float:
    """Print peak memory for both logs; how much more the large one needed (the larger of the
    traced and RSS differences), in bytes."""
    print("\nmemory (fresh process each; tracemalloc peak / peak RSS)")
    small_memory, large_memory = memory_of(small), memory_of(large)
    for memory in (small_memory, large_memory):
        print(
            f"  {memory['events']:>9,} events: {_mb(memory['traced'])} traced, "
            f"{_mb(memory['rss'])} RSS"
        )
    traced = large_memory["traced"] - small_memory["traced"]
    rss = large_memory["rss"] - small_memory["rss"]
    print(f"  large - small: {_mb(traced)} traced, {_mb(rss)} RSS")
    return max(traced, rss)


# ---------------------------------------------------------------------------------------------
# Instructions, counted by callgrind in a fresh interpreter per run.

INSTRUCTION_EVENTS = 20_000
_INSTRUCTION_RUNS: dict[str, Callable[[Path], None]] = {
    "nothing": lambda _path: None,
    "bare": bare_text,
    "checker": checker,
    "repeats": repeats_read,
}


def instructions_of(run: str, path: Path, out: Path) -> int:
    """The instructions a fresh interpreter executes importing this module and doing `run`."""
    return instructions_running(__file__, [run, str(path)], out)[0]


def instruction_ratio(tmp: str) -> dict[str, float] | None:
    """Print the checker's instructions against the bare pass's, per log shape; the ratios,
    or None without valgrind."""
    if shutil.which("valgrind") is None:
        print("\ninstructions: valgrind not installed")
        return None
    print(f"\ninstructions (callgrind, {INSTRUCTION_EVENTS:,} events, less start-up and imports)")
    nothing = instructions_of("nothing", Path(tmp), Path(tmp, "callgrind-nothing.out"))
    ratios = {}
    for label, template, header in SHAPES:
        path = Path(tmp, "count.jsonl")
        write_log(path, repeat_turns(template(), INSTRUCTION_EVENTS), header)
        bare, checker_count, repeats = (
            instructions_of(run, path, Path(tmp, f"callgrind-{run}.out")) - nothing
            for run in ("bare", "checker", "repeats")
        )
        ratios[label] = checker_count / bare
        print(
            f"  {label:18s} json.loads pass {bare / 1e6:.1f}M, checker"
            f" {checker_count / 1e6:.1f}M = {checker_count / bare:.2f}x; refusing a repeated"
            f" key would add {(repeats - bare) / 1e6:.1f}M = {(repeats - bare) / bare:.2f}x"
        )
    return ratios


def main() -> int:
    """Generate the logs, measure, print the ratios against the targets."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=100_000, help="events in the small log")
    parser.add_argument("--large", type=int, default=1_000_000, help="events in the large log")
    parser.add_argument(
        "--rounds",
        "--repeat",
        type=int,
        default=5,
        help="rounds of every timed run taking turns (the median of per-round ratios counts)",
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count instructions with valgrind's callgrind (a few minutes more)",
    )
    parser.add_argument(
        "--harness-only",
        action="store_true",
        help="time the harness-written log alone (#15's row for check), nothing else",
    )
    parser.add_argument("--measure-memory", metavar="PATH", help=argparse.SUPPRESS)
    parser.add_argument("--count-run", nargs=2, metavar=("RUN", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure_memory:
        measure_memory(args.measure_memory)
        return 0
    if args.count_run:
        run, path = args.count_run
        _INSTRUCTION_RUNS[run](Path(path))
        return 0
    with tempfile.TemporaryDirectory(prefix="bench-check-") as tmp:
        larges, smalls = {}, {}
        shapes = SHAPES[:1] if args.harness_only else SHAPES
        for number, (label, template, header) in enumerate(shapes):
            rows = template()
            larges[label], smalls[label] = (
                Path(tmp, f"{number}.jsonl"),
                Path(tmp, f"{number}s.jsonl"),
            )
            write_log(larges[label], repeat_turns(rows, args.large), header)
            write_log(smalls[label], repeat_turns(rows, args.small), header)
        large, small = larges["harness-written"], smalls["harness-written"]
        print(f"harness-written log: {large.stat().st_size / 1e6:.1f} MB, {args.large:,} events")
        ratios, versus_fast, speedup = time_ratios(larges, small, args.rounds)
        if args.harness_only:
            return 0
        for label, _template, header in shapes:
            marked = header["version"] == MARKED_VERSION
            where_time_goes(label, smalls[label], args.rounds, marked=marked)
        growth = memory_growth(small, large)
        counted = instruction_ratio(tmp) if args.instructions else None
    print("\ntargets (time: the median of the rounds' ratios, their lowest to highest beside it)")
    for label, (ratio, low, high) in ratios.items():
        print(
            f"  time vs bare json.loads <= 1.3x, {label}: {ratio:.2f}x ({low:.2f}x to"
            f" {high:.2f}x)  {_verdict(ratio <= 1.3)}"
        )
        print(f"  stretch, faster than json.loads alone (< 1x), {label}: {_verdict(ratio < 1)}")
    for label, count_ratio in (counted or {}).items():
        print(f"  (a second view) instructions vs the json.loads pass, {label}: {count_ratio:.2f}x")
    for name, versus in versus_fast.items():
        print(f"  (no target) time vs a bare {name} pass: {versus:.2f}x")
    print(f"  faster than jsonschema >= 10x: {speedup:.1f}x  {_verdict(speedup >= 10)}")
    print(f"  memory 1M - 100k < 20 MB:      {_mb(growth)}  {_verdict(growth < 20e6)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
