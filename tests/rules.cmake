# Every rule of the format has one definition, in lib/detail/rules.hpp, and so has the layout
# choice. The files that walk a recording (the pull reader, the push walker, recording's walk by
# reads, validate's side-by-side walk and its parts, the content checks), the conversion and the
# writer, and the input layer that feeds the push walker only move bytes to the rules and write
# what they say: the only codes they may name themselves are
# the two that describe the walk rather than a field (`truncated`: the bytes ran out;
# `trailing_bytes`: bytes follow the end), none may test a field's value against the format, and
# none may name a layout, decide between layouts or between walks, or work out a curve's id, kind
# or stride under a layout (detail::layout_candidates, detail::choose_walk,
# detail::curve_of_walk). The script lists the files and the patterns.
add_test(NAME rules_have_one_definition
         COMMAND ${CMAKE_COMMAND} -DROOT=${PROJECT_SOURCE_DIR}
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/rules_once.cmake)

# test_rules tests the rules module directly: it needs lib/ on its include path and Boost's
# headers (lib/detail/load.hpp uses Boost.Endian).
inputanim_test_executables(rules_executables test_rules)
if(rules_executables)
  set_property(SOURCE test_rules.cpp APPEND PROPERTY INCLUDE_DIRECTORIES ${PROJECT_SOURCE_DIR}/lib)
  target_link_libraries(${rules_executables} PRIVATE Boost::headers)
endif()
