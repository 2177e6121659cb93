# Fails when docs/FORMAT.md leaves out an error code or a warning the library can report, or
# names a rule function the rule module does not define (see tests/format_doc.cmake).

# The names are read from the string tables the library answers with (the rows of errc's code
# table in lib/error.cpp, warning_name in lib/validate.cpp), not from a list kept here, so that a
# new code fails this test until the page documents it.
set(doc_file ${ROOT}/docs/FORMAT.md)
set(rules_file ${ROOT}/lib/detail/rules.hpp)

# block_of(<var> <file> <head regex> <end> <what>): the text of `file` from the line the head
# regex matches (through its end of line) up to `end`, which closes the block in column 0.
function(block_of var file head_regex end what)
  file(READ ${ROOT}/${file} source)
  string(REGEX MATCH "${head_regex}" head "${source}")
  if(NOT head)
    message(FATAL_ERROR "no ${what} in ${file}: update tests/scripts/format_doc.cmake to where "
                        "the names are now")
  endif()
  string(FIND "${source}" "${head}" at)
  string(SUBSTRING "${source}" ${at} -1 body)
  string(FIND "${body}" "${end}" stop)
  string(SUBSTRING "${body}" 0 ${stop} body)
  set(${var} "${body}" PARENT_SCOPE)
endfunction()

# names_from(<var> <text> <match regex> <name regex> <what>): the names the match regex finds in
# the text, each the first group of the name regex; a fatal error when there is none (a table read
# as empty would make every check below pass: a parse gone wrong, not a success).
function(names_from var text match name_regex what)
  string(REGEX MATCHALL "${match}" found "${text}")
  set(names "")
  foreach(f IN LISTS found)
    string(REGEX REPLACE "${name_regex}" "\\1" name "${f}")
    list(APPEND names ${name})
  endforeach()
  if(NOT names)
    message(FATAL_ERROR "read no names from ${what}: update tests/scripts/format_doc.cmake")
  endif()
  set(${var} ${names} PARENT_SCOPE)
endfunction()

# names_returned_by(<var> <file> <signature regex>): the string literals the function whose
# definition starts with the signature returns, up to its closing brace in column 0.
function(names_returned_by var file signature)
  block_of(body ${file} "${signature}[^\n]*\\{\n" "\n}\n" "definition matching '${signature}'")
  # Without the statement's semicolon, which would split CMake's list.
  names_from(names "${body}" "return \"[^\"]+\"" "^return \"([^\"]+)\"$" "'${signature}' in ${file}")
  set(${var} ${names} PARENT_SCOPE)
endfunction()

# names_in_rows(<var> <file> <table> <enum>): the names of the rows ({<enum>::code, "name", ...})
# of the code table whose definition names `table`, up to its closing "};" in column 0.
function(names_in_rows var file table enum)
  block_of(body ${file} "[^\n]* ${table}\\[\\] = \\{\n" "\n};\n" "table ${table}")
  names_from(names "${body}" "\\{${enum}::[a-z_0-9]+,[ \n]+\"[^\"]+\"" "^.*\"([^\"]+)\"$"
             "${table} in ${file}")
  set(${var} ${names} PARENT_SCOPE)
endfunction()

names_in_rows(codes lib/error.cpp errc_rows errc)
names_returned_by(warnings lib/validate.cpp
                  "std::string_view warning_name\\(warning_code [a-z_]+\\) noexcept")

if(NOT EXISTS ${doc_file})
  message(FATAL_ERROR "docs/FORMAT.md is missing")
endif()
file(READ ${doc_file} doc)

set(missing "")
foreach(kind codes warnings)
  foreach(name IN LISTS ${kind})
    string(FIND "${doc}" "`${name}`" at)
    if(at EQUAL -1)
      string(APPEND missing "  ${name} (${kind})\n")
    endif()
  endforeach()
endforeach()

# The page writes a function of the rule module as `name()`. A definition in rules.hpp starts in
# column 0 (the namespace is not indented; a call or a member is), and nothing before the name on
# that line opens a parenthesis or ends a statement.
file(READ ${rules_file} rules)
string(REGEX MATCHALL "`[A-Za-z_][A-Za-z0-9_]*\\(\\)`" named "${doc}")
list(REMOVE_DUPLICATES named)
if(NOT named)
  message(FATAL_ERROR "docs/FORMAT.md names no function of lib/detail/rules.hpp as `name()`: "
                      "each rule names the function that enforces it")
endif()
set(unknown "")
foreach(n IN LISTS named)
  string(REGEX REPLACE "^`([A-Za-z0-9_]+)\\(\\)`$" "\\1" function "${n}")
  if(NOT rules MATCHES "\n[a-z][^\n(;=]*[ *&]${function}\\(")
    string(APPEND unknown "  ${function}()\n")
  endif()
endforeach()

set(message "")
if(missing)
  string(APPEND message "docs/FORMAT.md does not document (as `name`) what the library reports:\n"
                        "${missing}")
endif()
if(unknown)
  string(APPEND message "docs/FORMAT.md names functions lib/detail/rules.hpp does not define:\n"
                        "${unknown}")
endif()
if(message)
  message(FATAL_ERROR "${message}")
endif()
list(LENGTH codes code_count)
list(LENGTH warnings warning_count)
list(LENGTH named function_count)
message(STATUS "docs/FORMAT.md documents ${code_count} codes and ${warning_count} warnings and "
               "names ${function_count} functions of the rule module")
