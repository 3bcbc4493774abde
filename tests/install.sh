#!/usr/bin/env bash
# install.sh: `cmake --install BUILD_DIR` into a temporary prefix installs the binary, its man page and its bash completion (issue #17 item 8).
set -euo pipefail
build=$1
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
status=0
check() {  # check PATH WHAT: PATH exists and is not empty
  if [[ -s $prefix/$1 ]]; then echo "installed: $1"; else echo "missing after cmake --install: $1 ($2)"; status=1; fi
}
check bin/convcompare "the binary"
check share/man/man1/convcompare.1 "the man page (help2man)"
check share/bash-completion/completions/convcompare "bash completion"
# The installed binary runs, says its revision and backends; the pages name real options.
"$prefix/bin/convcompare" --version | grep -q '(git ' || { echo "--version names no git revision"; status=1; }
"$prefix/bin/convcompare" --version | grep -q '^backends: cpu' || { echo "--version lists no backends"; status=1; }
grep -q -- '--time-budget' "$prefix/share/bash-completion/completions/convcompare" || { echo "completion lacks --time-budget"; status=1; }
grep -q -- 'time\\-budget' "$prefix/share/man/man1/convcompare.1" || { echo "man page lacks --time-budget"; status=1; }
# The completion script loads in bash and completes an option prefix.
words=$(bash -c 'source "$1"; COMP_WORDS=(convcompare --time-b); COMP_CWORD=1; _convcompare; echo "${COMPREPLY[*]}"' _ \
          "$prefix/share/bash-completion/completions/convcompare")
[[ $words == --time-budget ]] || { echo "completion of --time-b gave '$words'"; status=1; }
exit $status
