#!/bin/sh
# Run the dsh adapter from any working directory: the polyfills must be loaded with --import
# before dsh is imported (see polyfills.mjs), and main.mjs speaks the driver protocol on
# stdin/stdout.
here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
exec node --import "$here/polyfills.mjs" "$here/main.mjs" "$@"
