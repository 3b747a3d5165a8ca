"""How several hooks' answers combine, over plain values (CrossHair-checked).

Ranks order decisions by strictness: deny > ask > allow > pass (rule HOOK-2). Rewrites combine
by configured order, never by completion order: the last hook in configuration order that
supplied an input wins, and hooks without one (passthrough) never erase it (rule HOOK-3).
"""

from __future__ import annotations

RANK_PASS = 0
RANK_ALLOW = 1
RANK_ASK = 2
RANK_DENY = 3


def merged_rank(ranks: tuple[int, ...]) -> int:
    """The strictest rank among the hooks' answers; `pass` when there are none.

    pre: all(RANK_PASS <= r <= RANK_DENY for r in ranks)
    post: RANK_PASS <= __return__ <= RANK_DENY
    post: all(r <= __return__ for r in ranks)
    post: __return__ == RANK_PASS or __return__ in ranks
    """
    strictest = RANK_PASS
    for rank in ranks:
        strictest = max(strictest, rank)
    return strictest


def winning_rewrite(supplied: tuple[bool, ...], merged: int) -> int:
    """Index (configured order) of the rewrite in effect, or -1 when none applies.

    `supplied[i]` says whether hook i returned an input. A deny discards every rewrite.

    pre: RANK_PASS <= merged <= RANK_DENY
    post: -1 <= __return__ < len(supplied)
    post: (__return__ == -1) == (merged == RANK_DENY or not any(supplied))
    post: __return__ == -1 or supplied[__return__]
    post: __return__ == -1 or not any(supplied[__return__ + 1:])
    """
    if merged == RANK_DENY:
        return -1
    for index in range(len(supplied) - 1, -1, -1):
        if supplied[index]:
            return index
    return -1


def commit_prefix(ready: tuple[bool, ...], cursor: int) -> int:
    """How far the model-order commit cursor can move: past every ready slot from `cursor`.

    Results are committed only for the contiguous ready prefix, so a later call that settles
    first waits for every earlier one (rule ORD-3).

    pre: 0 <= cursor <= len(ready)
    post: cursor <= __return__ <= len(ready)
    post: all(ready[cursor:__return__])
    post: __return__ == len(ready) or not ready[__return__]
    """
    end = cursor
    while end < len(ready) and ready[end]:
        end += 1
    return end


def may_start(safe: tuple[bool, ...], running: tuple[bool, ...], index: int, cap: int) -> bool:
    """Whether call `index` may start now (rule SCHED-1).

    An exclusive call starts only when no earlier call runs; a concurrency-safe call starts
    when no earlier exclusive call runs and fewer than `cap` calls run. The first three
    postconditions say it never starts what it must not (safety); the last two that it starts
    when nothing runs before it, and a safe call among safe calls starts below the cap
    (liveness, rule SCHED-2): a gate that never opens passes the safety conditions alone.

    pre: len(safe) == len(running)
    pre: 0 <= index < len(safe)
    pre: cap >= 1
    post: not __return__ or sum(running[:index]) < cap
    post: not __return__ or safe[index] or not any(running[:index])
    post: not __return__ or not any(r and not s for r, s in zip(running[:index], safe[:index]))
    post: __return__ or any(running[:index])
    post: __return__ or not safe[index] or sum(running[:index]) >= cap or not all(safe[:index])
    """
    earlier = running[:index]
    if not safe[index]:
        return not any(earlier)
    if any(r and not s for r, s in zip(earlier, safe[:index], strict=True)):
        return False
    return sum(earlier) < cap
