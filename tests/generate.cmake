# The generator is its own library (generate/), outside the core: the tests that use it, directly
# or through support/validation_cases.hpp, link it.
inputanim_test_executables(executables test_generate test_generate_errors test_cli_sample
  test_evaluate_allocation test_serve test_validate_errors test_validate_threads test_stream
  test_validate_batch test_gzip test_recording test_metrics_allocation test_cli_metrics
  test_cli_index_metrics test_reader_2019 test_reader_2019_errors test_convert test_cli_convert
  test_cli_output_file test_import_gltf test_import_anim test_compare test_compare_errors
  test_cli_diff)
foreach(executable ${executables})
  target_link_libraries(${executable} PRIVATE inputanim::generate)
endforeach()
