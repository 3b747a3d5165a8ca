"""Profiles of real implementations: the divergences from the model each is known to have."""

from __future__ import annotations

from loopspec.properties.profiles import dsh, real_harnesses
from loopspec.properties.profiles.known import KnownDivergence, Profile

PROFILES: dict[str, Profile] = {dsh.PROFILE.name: dsh.PROFILE, **real_harnesses.PROFILES}

__all__ = ["PROFILES", "KnownDivergence", "Profile"]
