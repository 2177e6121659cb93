# The viewer in a real browser (tests/browser/viewer_test.py): headless Chromium, driven by
# Debian's python3-selenium through chromium-driver. Skipped (exit 77) when any of them is absent
# or the page was not built; never failed for their absence. Screenshots go to the build folder.
if(TARGET inputanim_cli AND EXISTS /usr/bin/python3)
  add_test(NAME viewer_browser
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/browser/viewer_test.py
            --cli $<TARGET_FILE:inputanim_cli> --out ${CMAKE_BINARY_DIR}/viewer-screenshots)
  set_tests_properties(viewer_browser PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 240 COST 500)
endif()
