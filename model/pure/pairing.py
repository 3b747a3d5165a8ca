"""Call/result pairing arithmetic over plain id tuples.

Every provider pairs a tool result with its call by id alone, so the questions the provider
validators and the projection tests ask reduce to set and order facts about two id tuples:
`calls` (tool-call ids, in the order the model made them) and `results` (the ids the tool
results cite, in the order they arrive). Keeping them here, over `str` tuples only, lets
CrossHair check the contracts symbolically (`crosshair check loopspec.model.pure.pairing`).
"""

from __future__ import annotations


def unanswered_calls(calls: tuple[str, ...], results: tuple[str, ...]) -> tuple[str, ...]:
    """The call ids no result answers: each once, in the order the calls were made.

    post: all(c in calls and c not in results for c in __return__)
    post: all(c in __return__ for c in calls if c not in results)
    post: len(set(__return__)) == len(__return__)
    post: (len(__return__) == 0) == set(calls).issubset(set(results))
    """
    answered = set(results)
    missing: list[str] = []
    for call_id in calls:
        if call_id not in answered and call_id not in missing:
            missing.append(call_id)
    return tuple(missing)


def orphan_results(calls: tuple[str, ...], results: tuple[str, ...]) -> tuple[str, ...]:
    """The result ids that answer no call: each once, in the order the results arrived.

    post: all(r in results and r not in calls for r in __return__)
    post: all(r in __return__ for r in results if r not in calls)
    post: len(set(__return__)) == len(__return__)
    """
    # The same question as `unanswered_calls`, asked from the other side.
    return unanswered_calls(results, calls)


def repeated_ids(ids: tuple[str, ...]) -> tuple[str, ...]:
    """The ids that occur more than once: each once, in order of first occurrence.

    post: all(ids.count(i) > 1 for i in __return__)
    post: all(i in __return__ for i in ids if ids.count(i) > 1)
    post: len(set(__return__)) == len(__return__)
    post: (len(__return__) == 0) == (len(set(ids)) == len(ids))
    """
    seen: set[str] = set()
    repeated: list[str] = []
    for item in ids:
        if item in seen and item not in repeated:
            repeated.append(item)
        seen.add(item)
    return tuple(repeated)


def results_in_call_order(calls: tuple[str, ...], results: tuple[str, ...]) -> bool:
    """Whether the results that answer calls arrive in the order the calls were made.

    Results citing unknown ids are ignored (that is the orphan question, not an order one); a
    call answered twice is out of order, because no single call order explains it.

    pre: len(set(calls)) == len(calls)
    post: __return__ == ([r for r in results if r in calls] == [c for c in calls if c in results])
    post: not (__return__ and sorted(results) == sorted(calls)) or results == calls
    """
    position = {call_id: index for index, call_id in enumerate(calls)}
    last = -1
    for result_id in results:
        index = position.get(result_id)
        if index is None:
            continue
        # Strictly increasing: an equal index is the same call answered again.
        if index <= last:
            return False
        last = index
    return True
