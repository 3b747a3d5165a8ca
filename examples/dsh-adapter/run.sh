#!/bin/sh
# Run the dsh adapter from any working directory: the polyfills must be loaded with --import
# before dsh is imported (see polyfills.mjs), and main.mjs speaks the driver protocol on
# stdin/stdout.
here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
# A fresh clone has no node_modules: say the one command that installs them, not node's stack.
# Status 69 tells loopspec the machine lacks something (the driver protocol's setup error).
if ! command -v node >/dev/null 2>&1; then
  echo "dsh-adapter: node is not installed: install Node.js 20 or later, then run npm ci in $here" >&2
  exit 69
fi
if [ ! -d "$here/node_modules/@deepseek-ai" ]; then
  echo "dsh-adapter: the pinned dsh packages are not installed: run npm ci in $here" >&2
  exit 69
fi
exec node --import "$here/polyfills.mjs" "$here/main.mjs" "$@"
