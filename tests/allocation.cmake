# The tests that prove the core never allocates replace global operator new with a counter; only
# they link it.
foreach(test test_no_allocation test_stream_allocation test_evaluate_allocation
    test_validate_threads test_encoder_allocation test_metrics_allocation)
  if(TARGET ${test})
    target_sources(${test} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/support/allocation_counter.cpp)
  endif()
endforeach()
