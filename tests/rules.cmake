# Every rule of the format has one definition, in lib/detail/rules.hpp: the pull reader and the
# push walker only move bytes to the rules, so the only codes they may name themselves are the
# two that describe the walk rather than a field (`truncated`: the bytes ran out; `trailing_bytes`:
# bytes follow the end), and neither may test a field's value against the format.
add_test(NAME rules_have_one_definition
         COMMAND ${CMAKE_COMMAND} -DROOT=${PROJECT_SOURCE_DIR}
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/rules_once.cmake)
