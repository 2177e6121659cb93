# test_reader_2019_errors replays the fuzzers' corpora: files without the magic stay bad_magic.
if(TARGET test_reader_2019_errors)
  target_compile_definitions(test_reader_2019_errors PRIVATE
    INPUTANIM_FUZZ_DIR="${PROJECT_SOURCE_DIR}/fuzz")
endif()
