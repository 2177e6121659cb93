# One list element per line of a source file, for the lint scripts: file(STRINGS) would merge a
# line holding '[' with the next and split one holding ';', so the characters a CMake list treats
# specially are stood in for, and source_line_text gives a line back as it is written.
function(source_lines path out)
  file(READ ${path} text)
  string(REPLACE ";" "__SEMICOLON__" text "${text}")
  string(REPLACE "[" "__OPEN__" text "${text}")
  string(REPLACE "]" "__CLOSE__" text "${text}")
  string(REPLACE "\\" "__BACKSLASH__" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(${out} "${lines}" PARENT_SCOPE)
endfunction()

function(source_line_text line out)
  string(REPLACE "__SEMICOLON__" ";" line "${line}")
  string(REPLACE "__OPEN__" "[" line "${line}")
  string(REPLACE "__CLOSE__" "]" line "${line}")
  string(REPLACE "__BACKSLASH__" "\\" line "${line}")
  set(${out} "${line}" PARENT_SCOPE)
endfunction()
