# test_cli runs the built `inputanim` command as a user would. Without the tools (configured
# with INPUTANIM_BUILD_TOOLS=OFF) its tests skip.
if(TARGET test_cli)
  find_package(nlohmann_json 3.2 CONFIG REQUIRED)
  target_link_libraries(test_cli PRIVATE nlohmann_json::nlohmann_json)
  target_compile_definitions(test_cli PRIVATE INPUTANIM_VERSION="${PROJECT_VERSION}")
  if(TARGET inputanim_cli)
    target_compile_definitions(test_cli PRIVATE INPUTANIM_CLI="$<TARGET_FILE:inputanim_cli>")
    add_dependencies(test_cli inputanim_cli)
  else()
    target_compile_definitions(test_cli PRIVATE INPUTANIM_CLI="")
  endif()
endif()
