# `inputanim export` checked by readers nobody here wrote (tests/export/): glTF-Validator from
# npm (pinned in web/package-lock.json, installed into the viewer's build folder by `npm ci`) and
# the exports' values against `inputanim sample` (export_gltf). Skipped (exit 77) without the
# npm packages; not registered without node.
if(TARGET inputanim_cli AND EXISTS /usr/bin/python3 AND INPUTANIM_NODE)
  add_test(NAME export_gltf
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/export/gltf_test.py
            --cli $<TARGET_FILE:inputanim_cli> --node ${INPUTANIM_NODE}
            --modules ${PROJECT_BINARY_DIR}/tools/web/node_modules
            --recordings ${INPUTANIM_RECORDINGS_DIR})
  set_tests_properties(export_gltf PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
endif()
# three.js's GLTFLoader (the viewer's pinned three) in headless Chromium, as the viewer's browser
# test runs: the loaded scene's world transforms against `inputanim sample`.
if(TARGET inputanim_cli AND EXISTS /usr/bin/python3)
  add_test(NAME export_three_browser
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/browser/gltf_loader_test.py
            --cli $<TARGET_FILE:inputanim_cli>
            --modules ${PROJECT_BINARY_DIR}/tools/web/node_modules)
  set_tests_properties(export_three_browser PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
endif()
