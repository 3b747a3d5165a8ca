#!/bin/sh
# Run the dsh adapter from any working directory: the polyfills must be loaded with --import
# before dsh is imported (see polyfills.mjs), and main.mjs speaks the driver protocol on
# stdin/stdout.
here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
# A fresh clone has no node_modules: say the one command that installs them, not node's stack.
if [ ! -d "$here/node_modules/@deepseek-ai" ]; then
  echo "dsh-adapter: the pinned dsh packages are not installed: run npm ci in $here" >&2
  exit 1
fi
exec node --import "$here/polyfills.mjs" "$here/main.mjs" "$@"
