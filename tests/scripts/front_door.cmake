# Fails when a source outside the input layer sniffs gzip, compares the magic, calls pread or
# retries on EINTR itself (see tests/front_door.cmake). gzip's identification bytes belong to the
# inflater (lib/gzip_inflater.cpp, lib/detail/gzip_inflater.hpp) and the magic to the format's
# definition and its writer; everything else asks the input layer.
cmake_minimum_required(VERSION 3.16)
include(${CMAKE_CURRENT_LIST_DIR}/source_lines.cmake)
set(allowed lib/input.cpp include/inputanim/input.hpp)
set(forbidden "pread[0-9]*[ ]*\\(" "EINTR" "0x1[fF]" "0x8[bB]" "\\\\x1[fF]\\\\x8[bB]")
file(GLOB_RECURSE sources RELATIVE ${ROOT}
     ${ROOT}/lib/*.cpp ${ROOT}/lib/*.hpp ${ROOT}/include/*.hpp ${ROOT}/tools/*.cpp
     ${ROOT}/tools/*.hpp ${ROOT}/python/src/*.cpp)
set(found "")
foreach(file IN LISTS sources)
  if(file IN_LIST allowed)
    continue()
  endif()
  set(patterns ${forbidden})
  # The magic is the format's (format.hpp, rules.hpp) and the writer's; the tools and the Python
  # module ask starts_like_recording.
  if(file MATCHES "^(tools|python)/")
    list(APPEND patterns "file_magic")
  endif()
  # The inflater is where gzip's identification bytes are defined.
  if(file MATCHES "gzip_inflater")
    set(patterns "pread[0-9]*[ ]*\\(" "EINTR")
  endif()
  source_lines(${ROOT}/${file} lines)
  set(n 0)
  foreach(line IN LISTS lines)
    math(EXPR n "${n} + 1")
    source_line_text("${line}" line)
    # Comments may name what the code leaves to the input layer.
    if(line MATCHES "^[ ]*//")
      continue()
    endif()
    foreach(pattern IN LISTS patterns)
      if(line MATCHES "${pattern}")
        string(APPEND found "${file}:${n}: ${line}\n")
        break()
      endif()
    endforeach()
  endforeach()
endforeach()
if(found)
  message(FATAL_ERROR "sniffing, pread or EINTR retries outside the input layer:\n${found}")
endif()
