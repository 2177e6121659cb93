# The viewer's JavaScript (web/): ESLint over its sources (viewer_lint, with the ESLint that
# web/package-lock.json pins, from the viewer's build folder where the build ran `npm ci`), and
# its globs held to the library's (test_viewer_globs). Both need node; without it the lint is not
# registered and the globs test skips. The lint skips (exit 77) without the viewer's packages.
find_program(INPUTANIM_NODE node)
if(INPUTANIM_NODE)
  add_test(NAME viewer_lint
    COMMAND ${INPUTANIM_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/web/lint.mjs ${PROJECT_SOURCE_DIR}/web
            ${PROJECT_BINARY_DIR}/tools/web)
  set_tests_properties(viewer_lint PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
endif()
inputanim_test_executables(globs_executables test_viewer_globs)
if(globs_executables)
  set(node "${INPUTANIM_NODE}")
  if(NOT INPUTANIM_NODE)
    set(node "")
  endif()
  set_property(SOURCE test_viewer_globs.cpp APPEND PROPERTY COMPILE_DEFINITIONS
    INPUTANIM_NODE="${node}"
    INPUTANIM_VIEWER_DATA_JS="${PROJECT_SOURCE_DIR}/web/src/data.js"
    INPUTANIM_GLOB_VERDICTS="${CMAKE_CURRENT_SOURCE_DIR}/web/glob_verdicts.mjs")
endif()
