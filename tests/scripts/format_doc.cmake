# Fails when docs/FORMAT.md leaves out an error code or a warning the library can report, or
# names a rule function the rule module does not define (see tests/format_doc.cmake).

# The names are read from the string tables the library answers with (the rows of errc's code
# table in lib/error.cpp, warning_name in lib/validate.cpp), not from a list kept here, so that a
# new code fails this test until the page documents it.
set(doc_file ${ROOT}/docs/FORMAT.md)
set(rules_file ${ROOT}/lib/detail/rules.hpp)

# names_returned_by(<var> <file> <signature regex>): the string literals the function whose
# definition starts with the signature returns, up to its closing brace in column 0.
function(names_returned_by var file signature)
  file(READ ${ROOT}/${file} source)
  string(REGEX MATCH "${signature}[^\n]*\\{\n" head "${source}")
  if(NOT head)
    message(FATAL_ERROR "no definition matching '${signature}' in ${file}: update "
                        "tests/scripts/format_doc.cmake to where the names are now")
  endif()
  string(FIND "${source}" "${head}" at)
  string(SUBSTRING "${source}" ${at} -1 body)
  string(FIND "${body}" "\n}\n" end)
  string(SUBSTRING "${body}" 0 ${end} body)
  # Without the statement's semicolon, which would split CMake's list.
  string(REGEX MATCHALL "return \"[^\"]+\"" returns "${body}")
  set(names "")
  foreach(r IN LISTS returns)
    string(REGEX REPLACE "^return \"([^\"]+)\"$" "\\1" name "${r}")
    list(APPEND names ${name})
  endforeach()
  # A table read as empty would make every check below pass: a parse gone wrong, not a success.
  if(NOT names)
    message(FATAL_ERROR "read no names from '${signature}' in ${file}: update "
                        "tests/scripts/format_doc.cmake")
  endif()
  set(${var} ${names} PARENT_SCOPE)
endfunction()

# names_in_rows(<var> <file> <table> <enum>): the names of the rows ({<enum>::code, "name", ...})
# of the code table whose definition names `table`, up to its closing "};" in column 0.
function(names_in_rows var file table enum)
  file(READ ${ROOT}/${file} source)
  string(REGEX MATCH "[^\n]* ${table}\\[\\] = \\{\n" head "${source}")
  if(NOT head)
    message(FATAL_ERROR "no table ${table} in ${file}: update tests/scripts/format_doc.cmake to "
                        "where the names are now")
  endif()
  string(FIND "${source}" "${head}" at)
  string(SUBSTRING "${source}" ${at} -1 body)
  string(FIND "${body}" "\n};\n" end)
  string(SUBSTRING "${body}" 0 ${end} body)
  string(REGEX MATCHALL "\\{${enum}::[a-z_0-9]+,[ \n]+\"[^\"]+\"" rows "${body}")
  set(names "")
  foreach(r IN LISTS rows)
    string(REGEX REPLACE "^.*\"([^\"]+)\"$" "\\1" name "${r}")
    list(APPEND names ${name})
  endforeach()
  if(NOT names)
    message(FATAL_ERROR "read no names from ${table} in ${file}: update "
                        "tests/scripts/format_doc.cmake")
  endif()
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
