# The front door (lib/input.cpp, include/inputanim/input.hpp) is the
# one place that sniffs gzip, compares the magic, reads a file with pread and retries a call that
# a signal interrupted: no other source of the library, the tools or the Python module does.
add_test(NAME front_door_owns_sniffing_and_reads
         COMMAND ${CMAKE_COMMAND} -DROOT=${PROJECT_SOURCE_DIR}
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/front_door.cmake)
