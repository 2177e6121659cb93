# test_serve and test_serve_archives start `inputanim serve` on loopback and talk to it with curl
# (Debian's package; scripts/install-deps.sh installs it) and raw sockets; without curl their
# tests skip.
if(DEFINED INPUTANIM_TEST_EXECUTABLE_test_serve)
  find_program(INPUTANIM_CURL curl)
  if(NOT INPUTANIM_CURL)
    set(INPUTANIM_CURL "")
  endif()
  set_property(SOURCE test_serve.cpp test_serve_archives.cpp APPEND PROPERTY
               COMPILE_DEFINITIONS INPUTANIM_CURL="${INPUTANIM_CURL}")
endif()
