# docs/FORMAT.md is the format's description in the repository: every error code error_name can
# return and every warning warning_name can return must appear in it, and every function of the
# rule module it names as enforcing a rule must exist in lib/detail/rules.hpp, so that a new code
# or a renamed rule cannot leave the page behind. The script reads the names from the library's
# own string tables.
add_test(NAME format_doc_names_every_code
         COMMAND ${CMAKE_COMMAND} -DROOT=${PROJECT_SOURCE_DIR}
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/format_doc.cmake)
