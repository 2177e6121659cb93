# test_cli_gzip and test_serve run the built `inputanim` command (test_serve starts
# `inputanim serve` on loopback and talks to it with curl and raw sockets). Without the tools
# (INPUTANIM_BUILD_TOOLS=OFF) their tests skip.
foreach(name test_cli_gzip test_serve)
  if(NOT TARGET ${name})
    continue()
  endif()
  find_package(nlohmann_json 3.2 CONFIG REQUIRED)
  target_link_libraries(${name} PRIVATE nlohmann_json::nlohmann_json)
  if(TARGET inputanim_cli)
    target_compile_definitions(${name} PRIVATE INPUTANIM_CLI="$<TARGET_FILE:inputanim_cli>")
    add_dependencies(${name} inputanim_cli)
  else()
    target_compile_definitions(${name} PRIVATE INPUTANIM_CLI="")
  endif()
endforeach()
# test_serve talks to the server with curl (Debian's package; scripts/install-deps.sh installs
# it); without curl its tests skip.
if(TARGET test_serve)
  find_program(INPUTANIM_CURL curl)
  if(NOT INPUTANIM_CURL)
    set(INPUTANIM_CURL "")
  endif()
  target_compile_definitions(test_serve PRIVATE INPUTANIM_CURL="${INPUTANIM_CURL}")
endif()
