# bash_completion.cmake: writes convcompare's bash completion from its --help (cmake -DEXE=... -DOUTPUT=... -P), so the option list is never kept by hand.
execute_process(COMMAND ${EXE} --help OUTPUT_VARIABLE help RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${EXE} --help failed (${status})")
endif()
string(REPLACE "\n" ";" lines "${help}")
set(options "")
set(file_options "")
foreach(line IN LISTS lines)
  # An option line of CLI11's help: "  --name TYPE  description" or "  -h,--help  description".
  if(line MATCHES "^  +(-[a-zA-Z],)?(--[a-z][a-z0-9-]*)( +([A-Z][A-Za-z.]*))?")
    list(APPEND options ${CMAKE_MATCH_2})
    if(CMAKE_MATCH_4 MATCHES "^(FILE|PATH|DIR|BASELINE\\.json)$")
      list(APPEND file_options ${CMAKE_MATCH_2})
    endif()
  endif()
endforeach()
list(REMOVE_DUPLICATES options)
if(NOT options)
  message(FATAL_ERROR "no options found in ${EXE} --help")
endif()
list(JOIN options " " words)
list(JOIN file_options "|" files)
if(NOT files)
  set(files "--no-file-option")
endif()
file(WRITE ${OUTPUT} "# bash completion for convcompare, generated from its --help at build time\n"
"_convcompare() {\n"
"  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]}\n"
"  case \$prev in\n"
"    ${files}) COMPREPLY=(\$(compgen -f -- \"\$cur\")); return ;;\n"
"  esac\n"
"  if [[ \${COMP_WORDS[1]} == merge ]]; then COMPREPLY=(\$(compgen -f -- \"\$cur\")); return; fi\n"
"  COMPREPLY=(\$(compgen -W \"${words} merge\" -- \"\$cur\"))\n"
"}\n"
"complete -o filenames -F _convcompare convcompare\n")
