# Fails when a file that walks, converts or writes a recording or decides its layout holds rule
# code of its own (see tests/rules.cmake): a code or limit of the format's, or a piece of the
# layout choice.

# The rules of the fields: the walkers may name only the two codes that describe the walk rather
# than a field (`truncated`, `trailing_bytes`), and none may test a field's value. The Int32
# limit (detail::int32_max) is named, never spelled again as a number or defined anew.
set(rule_code
    "errc::(bad_magic|unsupported_version|bad_flag|bad_wrap_mode|negative_count|bad_marker|limit_exceeded|non_finite|bad_bool_value|bad_weighted_mode|unsorted_keys|bad_utf8)"
    "file_magic" "valid_wrap_mode" "isfinite" "isnan" "max_bytes" "max_keyframes" "max_total"
    "max_markers" "max_marker_name" "0x7fffffff" "2147483647" "INT32_MAX"
    "numeric_limits<std::int32_t>::max" "int32_max *[={]")
set(rule_code_files lib/reader.cpp lib/stream.cpp lib/recording.cpp lib/validate.cpp
    lib/validate_parts.cpp lib/content.cpp lib/convert.cpp lib/writer.cpp)

# The layout choice and the walk plan: which layouts a choice tries and in which order
# (detail::layout_candidates), which walk wins (detail::choose_walk and its helpers), and each
# curve's id, kind and stride under a layout (detail::curve_of_walk). A walker names no layout,
# edition, 2019 header or bool key size, asks no walk whether it is sound, and compares no two
# walks' ends.
set(layout_choice
    "layout_choice::" "layout::(compact|full)" "edition::(june|may)_2019" "bool_keyframe_size"
    "header_2019" "sound_walk" "choose_layout" "[.]offset *[<>].*([.]|->)offset" "curve_in_file"
    "keyframe_stride" "kind_of[(]")
set(layout_choice_files ${rule_code_files} lib/input.cpp)

include(${CMAKE_CURRENT_LIST_DIR}/source_lines.cmake)

set(found "")
foreach(list rule_code layout_choice)
  foreach(file IN LISTS ${list}_files)
    source_lines(${ROOT}/${file} lines)
    set(n 0)
    foreach(line IN LISTS lines)
      math(EXPR n "${n} + 1")
      foreach(pattern IN LISTS ${list})
        if(line MATCHES "${pattern}")
          source_line_text("${line}" line)
          string(APPEND found "${file}:${n}: ${line}\n")
          break()
        endif()
      endforeach()
    endforeach()
  endforeach()
endforeach()
if(found)
  message(FATAL_ERROR "rule code outside lib/detail/rules.hpp:\n${found}")
endif()
