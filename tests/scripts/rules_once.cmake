# Fails when lib/reader.cpp or lib/stream.cpp holds rule code of its own (see tests/rules.cmake).
set(forbidden
    "errc::(bad_magic|unsupported_version|bad_flag|bad_wrap_mode|negative_count|bad_marker|limit_exceeded|non_finite|bad_bool_value|bad_weighted_mode|unsorted_keys|bad_utf8)"
    "file_magic" "valid_wrap_mode" "isfinite" "isnan" "max_bytes" "max_keyframes" "max_total"
    "max_markers" "max_marker_name" "0x7fffffff")
set(found "")
foreach(file lib/reader.cpp lib/stream.cpp)
  file(STRINGS ${ROOT}/${file} lines)
  set(n 0)
  foreach(line IN LISTS lines)
    math(EXPR n "${n} + 1")
    foreach(pattern IN LISTS forbidden)
      if(line MATCHES "${pattern}")
        string(APPEND found "${file}:${n}: ${line}\n")
      endif()
    endforeach()
  endforeach()
endforeach()
if(found)
  message(FATAL_ERROR "rule code outside lib/detail/rules.hpp:\n${found}")
endif()
