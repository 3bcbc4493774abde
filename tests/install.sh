#!/usr/bin/env bash
# install.sh: `cmake --install BUILD_DIR` into a temporary prefix installs the binary, its man page and its bash completion.
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
# The completion script loads in bash and, driven as bash drives it (COMP_WORDS/COMP_CWORD), completes
# options, option values, comma lists, files and merge's options.
completion=$prefix/share/bash-completion/completions/convcompare
work=$(mktemp -d)
trap 'rm -rf "$prefix" "$work"' EXIT
touch "$work/photo.png" "$work/plan.json"
complete_words() {  # complete_words WORD...: the COMPREPLY for the last word, run in $work
  (cd "$work" && bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _convcompare
                           printf "%s\n" "${COMPREPLY[@]}" | LC_ALL=C sort | tr "\n" " " | sed "s/ $//"' _ "$completion" "$@")
}
expect() {  # expect WANT WORD...
  local want=$1; shift
  local got; got=$(complete_words "$@")
  if [[ $got == "$want" ]]; then echo "completion of '$*': $got"; else echo "completion of '$*' gave '$got', expected '$want'"; status=1; fi
}
expect --time-budget convcompare --time-b
expect "photo.png plan.json" convcompare --image ""
expect photo.png convcompare --image ph
expect mirror convcompare --border m
expect tiled convcompare --variant ti
expect global,tiled convcompare --variant global,ti
# A comma list offers no name it already holds; --opt=value completes, as bash splits it (--opt, =,
# value) or not (one word); a filter whose first parameter is required completes with it.
expect "naive,tiled,tensor naive,tiled,texture naive,tiled,tma" convcompare --variant naive,tiled,t
expect "" convcompare --variant tiled,tiled
expect "clamp mirror wrap zero" convcompare --border =
expect mirror convcompare --border = m
expect --variant=tiled convcompare --variant=ti
expect photo.png convcompare --image = ph
expect gaussian:sigma= convcompare --filter gau
expect "box box:r=" convcompare --filter bo
expect pageable convcompare --memory pa
expect "pfm png" convcompare --output-format p
expect "" convcompare --size 2
expect "--csv --help --json --markdown --plot --quiet --verbose" convcompare merge a.json --
expect "photo.png plan.json" convcompare merge ""
bash -c 'source "$1"; complete -p convcompare' _ "$completion" | grep -q -- '-F _convcompare convcompare' ||
  { echo "complete -p names no _convcompare"; status=1; }
# Help and man page: --help within 80 columns; merge --help names its options; the man page
# has EXAMPLES, ENVIRONMENT and EXIT STATUS sections and none of CLI11's markup.
exe=$prefix/bin/convcompare
man=$prefix/share/man/man1/convcompare.1
for help in "--help" "merge --help"; do
  # shellcheck disable=SC2086  # $help is two words for merge
  long=$("$exe" $help | awk 'length($0) > 80 { n++ } END { print n + 0 }')
  [[ $long == 0 ]] || { echo "convcompare $help: $long lines over 80 columns"; status=1; }
done
# Read whole first: `grep -q` leaving a pipe early would make convcompare's write fail (EPIPE), rightly.
help_text=$("$exe" --help) merge_help=$("$exe" merge --help)
grep -A1 -- '--plot FILE' <<<"$help_text" | grep -q 'FILE.pdf' || { echo "--plot help does not mention PDF"; status=1; }
grep -q -- '--markdown FILE' <<<"$merge_help" || { echo "merge --help does not list --markdown"; status=1; }
grep -q '^Exit status:' <<<"$help_text" || { echo "--help has no exit status"; status=1; }
for section in EXAMPLES ENVIRONMENT '"EXIT STATUS"'; do
  grep -q "^\.SH $section\$" "$man" || { echo "man page lacks the $section section"; status=1; }
done
grep -q '^CONVCOMPARE_CACHE_DIR$' "$man" || { echo "man page ENVIRONMENT lacks CONVCOMPARE_CACHE_DIR"; status=1; }
grep -q '{false}' "$man" && { echo "man page shows CLI11's {false}"; status=1; }
grep -qi 'file:PATH.*Exit status' "$man" && { echo "man page runs the filters into the exit status"; status=1; }
grep -q -- '--no-file-option' "$completion" && { echo "completion holds a --no-file-option placeholder"; status=1; }
exit $status
