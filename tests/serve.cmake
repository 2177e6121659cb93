# test_serve starts `inputanim serve` on loopback and talks to it with curl (Debian's package;
# scripts/install-deps.sh installs it) and raw sockets; without curl its tests skip.
if(TARGET test_serve)
  find_program(INPUTANIM_CURL curl)
  if(NOT INPUTANIM_CURL)
    set(INPUTANIM_CURL "")
  endif()
  target_compile_definitions(test_serve PRIVATE INPUTANIM_CURL="${INPUTANIM_CURL}")
endif()
