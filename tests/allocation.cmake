# The tests that prove the core never allocates replace global operator new with a counter; only
# their executable links it.
if(TARGET inputanim_allocation_tests)
  target_sources(inputanim_allocation_tests PRIVATE
    ${CMAKE_CURRENT_SOURCE_DIR}/support/allocation_counter.cpp)
endif()
