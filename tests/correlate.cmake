# test_correlate tests the library's internal cross-correlation (lib/detail/correlate.hpp)
# directly: it needs lib/ on its include path.
set_property(SOURCE test_correlate.cpp APPEND PROPERTY INCLUDE_DIRECTORIES ${PROJECT_SOURCE_DIR}/lib)
