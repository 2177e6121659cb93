# import_gltf_blender: a glTF written by Blender's own exporter (Debian's `blender`, headless)
# imports, and samples within 5 mm of Blender's own world positions (tests/scripts/blender_gltf.py,
# which runs blender_gltf_scene.py inside Blender). Skipped (exit 77) where blender is not
# installed.
if(TARGET inputanim_cli AND EXISTS /usr/bin/python3)
  add_test(NAME import_gltf_blender
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/scripts/blender_gltf.py
            --cli $<TARGET_FILE:inputanim_cli>
            --work ${CMAKE_CURRENT_BINARY_DIR}/import_gltf_blender)
  set_tests_properties(import_gltf_blender PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
endif()
