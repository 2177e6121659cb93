# The README shows examples/tour.cpp verbatim; this keeps the two from drifting apart.
add_test(NAME readme_shows_the_compiled_tour
         COMMAND ${CMAKE_COMMAND} -DREADME=${PROJECT_SOURCE_DIR}/README.md
                 -DTOUR=${PROJECT_SOURCE_DIR}/examples/tour.cpp
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/readme_tour.cmake)
