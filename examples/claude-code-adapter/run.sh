#!/bin/sh
# The driver-protocol adapter of the pinned real CLI, for `loopspec conform --cmd` (see
# properties/harnesses/conform_driver.py): run from any working directory of a checkout where
# `make harnesses` installed the binary; it uses the checkout's .venv when there is one, and
# says what to do, exiting 69, where no Python with loopspec is found (../conform-driver.sh).
exec sh "$(dirname -- "$0")/../conform-driver.sh" claude-code "$@"
