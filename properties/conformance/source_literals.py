"""Keep the literals of loaded modules out of conform's draws, so a seed means one set of programs.

Hypothesis (6.131 on) now and then draws, instead of a random value, a literal it found in the
source of a loaded module it takes for the user's own code: any module outside site-packages,
the standard library and test files. Which modules those are depends on where a run happens:
loopspec from a checkout is such code and loopspec from a wheel is not, a user's `--impl`
module or conftest adds its own, and a maintainer's new literal joins them all. One such draw
also changes every later draw of the program. Measured with Hypothesis 6.170.17, `conform
--examples 100 --seed S` for S in 1, 2, 3, 7: every seed drew other programs from a wheel
than from a checkout.

Hypothesis has no setting for that pool, so this swaps its private source of the pool for an
empty one while conform draws, and leaves everything else (the global constants, the seed,
the engine) as it is. `tests/test_seed_programs.py` fails if Hypothesis renames what this
swaps, or if the pool reaches conform's programs again.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


@contextlib.contextmanager
def without_source_literals() -> Iterator[None]:
    """Hypothesis draws from no loaded module's literals inside the block (see the module).

    A Hypothesis without the private names swapped here is left as it is: its runs then draw
    as Hypothesis does, which tests/test_seed_programs.py notices.
    """
    try:
        # Imported here: conform imports Hypothesis only once it runs programs.
        from hypothesis.internal import constants_ast  # noqa: PLC0415
        from hypothesis.internal.conjecture import providers  # noqa: PLC0415

        found = providers._get_local_constants
        cache = providers.CONSTANTS_CACHE.cache
        empty = constants_ast.Constants
    except (ImportError, AttributeError):
        yield
        return
    # The cache holds each draw's permitted constants, local ones included, computed once:
    # cleared on the way in so none computed before counts, and on the way out so a later
    # Hypothesis test in this process gets its own pool back.
    cache.clear()
    providers._get_local_constants = empty
    try:
        yield
    finally:
        providers._get_local_constants = found
        cache.clear()
