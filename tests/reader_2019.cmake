# test_reader_2019_errors replays the fuzzers' corpora: files without the magic stay bad_magic.
set_property(SOURCE test_reader_2019_errors.cpp APPEND PROPERTY
             COMPILE_DEFINITIONS INPUTANIM_FUZZ_DIR="${PROJECT_SOURCE_DIR}/fuzz")
