# bash_completion.cmake: writes convcompare's bash completion from its own option table (cmake -DEXE=... -DOUTPUT=... -P), so no list is kept by hand.
# `convcompare --completion-table` (tools/convcompare/cli.cpp) prints one list a line: "options ...", "valued ..." (options
# taking a value), "files ...", "directories ...", "merge ..." (merge's options), "values OPTION V ..." (a comma
# list) and "value OPTION V ..." (one value).
execute_process(COMMAND ${EXE} --completion-table OUTPUT_VARIABLE table RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${EXE} --completion-table failed (${status})")
endif()
string(REPLACE "\n" ";" lines "${table}")
set(value_cases "")
foreach(line IN LISTS lines)
  if(line MATCHES "^(options|valued|files|directories|merge) ?(.*)$")
    set(list_${CMAKE_MATCH_1} "${CMAKE_MATCH_2}")
  elseif(line MATCHES "^(values?) ([^ ]+) (.+)$")  # values: a comma list; value: one
    string(APPEND value_cases "    ${CMAKE_MATCH_2}) _convcompare_values \"${CMAKE_MATCH_3}\" ${CMAKE_MATCH_1} \"\$cur\" \"\$prefix\"; return ;;\n")
  endif()
endforeach()
if(NOT list_options OR NOT list_merge OR NOT list_files)
  message(FATAL_ERROR "no options found in ${EXE} --completion-table")
endif()
# "a b c" -> "a|b|c" for a case pattern.
string(REPLACE " " "|" files "${list_files}")
string(REPLACE " " "|" directories "${list_directories}")
string(REPLACE " " "|" valued "${list_valued}")
file(WRITE ${OUTPUT} "# bash completion for convcompare, generated from convcompare --completion-table at build time\n"
"# _convcompare_values WORDS values|value CUR PREFIX: complete CUR from WORDS, each reply after PREFIX; with values\n"
"# CUR is the last item of a comma list (--variant global,ti -> global,tiled), and the items already in\n"
"# the list are not offered again.\n"
"_convcompare_values() {\n"
"  local cur=\$3 head=\"\" words=\$1 word\n"
"  if [[ \$2 == values && \$cur == *,* ]]; then\n"
"    head=\${cur%,*},\n"
"    words=\"\"\n"
"    for word in \$1; do [[ ,\$head == *,\$word,* ]] || words+=\" \$word\"; done\n"
"  fi\n"
"  COMPREPLY=(\$(compgen -P \"\$4\$head\" -W \"\$words\" -- \"\${cur#\"\$head\"}\"))\n"
"  [[ \${COMPREPLY[0]} == *[=:] ]] && compopt -o nospace 2>/dev/null\n"
"}\n"
"_convcompare() {\n"
"  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]} word merge=0 prefix=\"\"\n"
"  # --opt=value: bash splits it at '=' (COMP_WORDBREAKS) into --opt, = and the value, or keeps one word\n"
"  # where '=' is no break; the replies then carry --opt= themselves.\n"
"  if [[ \$cur == = ]]; then cur=\"\"\n"
"  elif [[ \$prev == = ]] && (( COMP_CWORD >= 2 )); then prev=\${COMP_WORDS[COMP_CWORD-2]}\n"
"  elif [[ \$cur == --*=* ]]; then prev=\${cur%%=*}; prefix=\$prev=; cur=\${cur#*=}\n"
"  fi\n"
"  for word in \"\${COMP_WORDS[@]:1:COMP_CWORD-1}\"; do [[ \$word == merge ]] && merge=1; done\n"
"  case \$prev in\n"
"    ${files}) compopt -o filenames 2>/dev/null; COMPREPLY=(\$(compgen -P \"\$prefix\" -f -- \"\$cur\")); return ;;\n"
"    ${directories}) compopt -o filenames 2>/dev/null; COMPREPLY=(\$(compgen -P \"\$prefix\" -d -- \"\$cur\")); return ;;\n"
"${value_cases}"
"    ${valued}) COMPREPLY=(); return ;;\n"
"  esac\n"
"  if (( merge )); then\n"
"    if [[ \$cur == -* ]]; then COMPREPLY=(\$(compgen -W \"${list_merge}\" -- \"\$cur\"))\n"
"    else compopt -o filenames 2>/dev/null; COMPREPLY=(\$(compgen -f -- \"\$cur\")); fi\n"
"    return\n"
"  fi\n"
"  COMPREPLY=(\$(compgen -W \"${list_options} merge\" -- \"\$cur\"))\n"
"}\n"
"complete -F _convcompare convcompare\n")
