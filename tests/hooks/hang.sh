#!/usr/bin/env bash
# Never answers. Starts a child first and writes its pid to $1, so a test can check that the
# whole process group died, not only this shell.
sleep 30 &
echo $! > "$1"
wait
